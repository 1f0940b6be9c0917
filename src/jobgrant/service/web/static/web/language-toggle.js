// On a page whose forms have a language button (web/switch_language.html), the header's language
// toggle is a plain link: following it would lose what was typed. With JavaScript it presses
// a form's language button instead, which posts the typed values to the same page in the other
// language (without JavaScript, that button is on the page). On a page with several forms, it
// is the button of the form last typed into; else the one pressed to reach this page (only the
// button's id is remembered, for the next page, never what was typed); else the first.
const buttons = Array.from(document.querySelectorAll("button[name='switch-language']"));
const header = document.querySelector("gcds-header");
const REMEMBERED = "jobgrant-switched-with";

function remembered() {
  try {
    const id = sessionStorage.getItem(REMEMBERED);
    sessionStorage.removeItem(REMEMBERED);
    return id;
  } catch {
    return null; // storage refused: the first form's button
  }
}

const pressedBefore = remembered();
let typedIn = buttons.find((button) => button.id === pressedBefore)?.form || null;
document.addEventListener("input", (event) => {
  const form = event.target.form;
  if (form && buttons.some((button) => button.form === form)) typedIn = form;
});
if (buttons.length && header) {
  header.addEventListener("click", (event) => {
    const path = event.composedPath();
    const inToggle = path.some((node) => node.tagName === "GCDS-LANG-TOGGLE");
    const onLink = path.some((node) => node.tagName === "A");
    if (inToggle && onLink) {
      event.preventDefault();
      const chosen = buttons.find((button) => button.form === typedIn) || buttons[0];
      try {
        sessionStorage.setItem(REMEMBERED, chosen.id);
      } catch {
        // storage refused: the page after keeps what was typed all the same
      }
      chosen.click();
    }
  });
}
