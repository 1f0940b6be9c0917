// On a page whose form has a language button (web/switch_language.html), the header's language
// toggle is a plain link: following it would lose what was typed. With JavaScript it presses
// the form's language button instead, which posts the typed values to the same page in the
// other language (without JavaScript, that button is on the page).
const button = document.getElementById("switch-language");
const header = document.querySelector("gcds-header");
if (button && header) {
  header.addEventListener("click", (event) => {
    const path = event.composedPath();
    const inToggle = path.some((node) => node.tagName === "GCDS-LANG-TOGGLE");
    const onLink = path.some((node) => node.tagName === "A");
    if (inToggle && onLink) {
      event.preventDefault();
      button.click();
    }
  });
}
