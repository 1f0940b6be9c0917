// After a failed submit the error summary takes the focus (WCAG 3.3.1). `autofocus` alone
// cannot do it once GCDS runs: the component stays hidden until it has rendered.
// A file of its own, not an inline script: the Content-Security-Policy allows scripts from
// this origin only (script-src 'self').
const summary = document.querySelector("gcds-error-summary");
if (summary) {
  customElements.whenDefined("gcds-error-summary")
    .then(() => summary.componentOnReady())
    .then(() => (summary.shadowRoot?.querySelector("[tabindex='-1']") ?? summary).focus());
}
