// A table wider than its scrolling box (.jg-scroll) gets a visible cue above the box that it
// scrolls sideways; the cue goes when the window is wide enough for the whole table. The words
// are the page's own (the body's data-scroll-cue, in the page's language).
const words = document.body.dataset.scrollCue || "";

function mark() {
  for (const box of document.querySelectorAll(".jg-scroll")) {
    const before = box.previousElementSibling;
    const hasCue = before !== null && before.classList.contains("jg-scroll-cue");
    const overflows = box.scrollWidth > box.clientWidth + 1;
    box.classList.toggle("jg-scroll--overflows", overflows);
    if (overflows && !hasCue) {
      const cue = document.createElement("p");
      cue.className = "jg-scroll-cue";
      cue.textContent = words;
      box.before(cue);
    } else if (!overflows && hasCue) {
      before.remove();
    }
  }
}

let pending = 0;
window.addEventListener("resize", () => {
  cancelAnimationFrame(pending);
  pending = requestAnimationFrame(mark);
});
document.addEventListener("htmx:afterSettle", mark);
// The fonts and images arrive after the script runs, and a table may widen with them.
window.addEventListener("load", mark);
document.fonts.ready.then(mark);
mark();
