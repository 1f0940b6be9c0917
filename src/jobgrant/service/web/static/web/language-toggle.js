// On a page whose forms have a language button (web/switch_language.html), the header's language
// toggle is a plain link: following it would lose what was typed. With JavaScript it presses
// a form's language button instead, which posts the typed values to the same page in the other
// language (without JavaScript, that button is on the page). On a page with several forms, it
// is the button of the form last typed into (else the first one).
const buttons = Array.from(document.querySelectorAll("button[name='switch-language']"));
const header = document.querySelector("gcds-header");
let typedIn = null;
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
      chosen.click();
    }
  });
}
