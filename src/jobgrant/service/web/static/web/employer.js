// Employer pages: after a failed submission, focus moves to the error summary (WCAG 3.3.1).
// Without JavaScript the summary is still the first thing on the page.
document.addEventListener("DOMContentLoaded", function () {
  var summary = document.getElementById("error-summary");
  if (summary) {
    summary.focus();
  }
  keepTypedInputOnLanguageToggle();
});

// On a wizard step, the header's language toggle is a plain link: following it would lose what
// was typed. With JavaScript it presses the step's own language button instead, which saves the
// typed input in the draft and opens the same step in the other language (the no-JS path is
// that button itself).
function keepTypedInputOnLanguageToggle() {
  var button = document.getElementById("switch-language");
  var header = document.querySelector("gcds-header");
  if (!button || !header) {
    return;
  }
  header.addEventListener("click", function (event) {
    var path = event.composedPath();
    var inToggle = path.some(function (node) {
      return node.tagName === "GCDS-LANG-TOGGLE";
    });
    var onLink = path.some(function (node) {
      return node.tagName === "A";
    });
    if (inToggle && onLink) {
      event.preventDefault();
      button.click();
    }
  });
}
