// Employer pages: after a failed submission, focus moves to the error summary (WCAG 3.3.1).
// Without JavaScript the summary is still the first thing on the page.
document.addEventListener("DOMContentLoaded", function () {
  var summary = document.getElementById("error-summary");
  if (summary) {
    summary.focus();
  }
});
