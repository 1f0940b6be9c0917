"""Wide tables at 1280 and 390 px: the KPI page with every KPI column and the widest figures, and
suppressed cells. No screen-reader text of a suppressed cell shows on the screen; no table is cut:
a table either fits the box it is in, or that box scrolls and says so with a visible cue; and the
page itself never scrolls sideways. The same holds for the annual report's page.

The figures come from the hand-made KpiReports of tests/service/outcomes (the live server runs in
this process, so the patched readers answer it)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from tests.addresses import page_path
from tests.service.outcomes.report_fixtures import national, ontario, widest

from jobgrant.service.outcomes.report import source
from jobgrant.service.outcomes.suppression import suppress
from jobgrant.service.outcomes.tables import KpiReport
from jobgrant.service.web.views import analyst_kpis

#: What a page's layout says of its tables, measured in the browser: every text that speaks of
#: suppression and is drawn bigger than a visually hidden one (1 px), every table wider than its
#: box whose box shows no cue that it scrolls, and whether the page scrolls sideways.
MEASURE = """() => {
  const drawn = [];
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = walker.currentNode.textContent;
    if (!/suppressed|supprimé/i.test(text)) continue;
    const box = walker.currentNode.parentElement.getBoundingClientRect();
    if (walker.currentNode.parentElement.closest('table') && box.width > 1 && box.height > 1)
      drawn.push(text.trim().slice(0, 60));
  }
  const cut = [];
  for (const table of document.querySelectorAll('main table')) {
    const box = table.closest('.jg-scroll') || table.parentElement;
    if (table.getBoundingClientRect().width <= box.clientWidth + 1) continue;
    const scrolls = getComputedStyle(box).overflowX === 'auto';
    const cue = box.previousElementSibling;
    const shown = cue && cue.classList.contains('jg-scroll-cue')
      && cue.getBoundingClientRect().height > 1 && getComputedStyle(cue).visibility === 'visible';
    if (!scrolls || !shown) cut.push(table.id || table.querySelector('caption').textContent);
  }
  const sideways = document.documentElement.scrollWidth > window.innerWidth + 1;
  const wide = sideways ? [...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1
      && !e.closest('.jg-scroll'))
    .map((e) => e.localName + '#' + e.id + '.' + e.className).slice(0, 8) : [];
  return {drawn, cut, sideways, wide};
}"""


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> None:
    """The KPI page reads Canada's widest figures beside Ontario's suppressed firm sizes."""

    def kpis(user: Any, jurisdiction: str | None, fiscal_year: str) -> KpiReport:
        wide = widest(None)
        return suppress(dataclasses.replace(wide, tables=(*wide.tables, *ontario().tables[1:])))

    def report(jurisdiction: str | None, fiscal_year: str) -> KpiReport:
        return national() if jurisdiction is None else ontario()

    monkeypatch.setattr(analyst_kpis, "read_kpis", kpis)
    monkeypatch.setattr(source, "annual_report", report)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_no_hidden_text_shows_and_no_table_is_cut_at_1280_and_390_px(
    web: Any, figures: None, language: str
) -> None:
    web.sign_in_through_django("demo-analyst", language)
    pages = (
        page_path(language, "/analyst/kpis/?fiscal_year=2026-27&jurisdiction="),
        page_path(language, "/reports/annual/?jurisdiction=CA&fiscal_year=2015-16"),
    )
    found = {}
    for width in (1280, 390):
        web.page.set_viewport_size({"width": width, "height": 900})
        for path in pages:
            web.goto(path)
            assert web.page.locator("main table").count() > 2, path
            found[width, path] = web.page.evaluate(MEASURE)
    kpi = pages[0]
    assert {key: f for key, f in found.items() if f["drawn"] or f["cut"] or f["sideways"]} == {}
    # at 1280 px the KPI tables fit whole: nothing to scroll
    web.page.set_viewport_size({"width": 1280, "height": 900})
    web.goto(kpi)
    assert web.page.locator("main td[data-suppressed]").count() > 0
    assert web.page.locator(".jg-scroll-cue").count() == 0
    web.page.set_viewport_size({"width": 390, "height": 900})
    web.goto(kpi)
    assert web.page.locator(".jg-scroll-cue").count() > 0
