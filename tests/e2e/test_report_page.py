"""T16 for the annual report with figures in it: axe-core on the page of a provincial and of the
national report, in English and in French, with its tables and inline SVG plots (each plot a
role=img with its title and description, its figures in a table beside it).

The report's figures come from the hand-made KpiReports of tests/service/outcomes (the live
server runs in this process, so the patched source answers it), whose every figure is known;
the catalogue of test_accessibility.py checks the page with whatever the server computes.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.addresses import page_path
from tests.service.outcomes.report_fixtures import national, ontario

from jobgrant.service.outcomes.report import source
from jobgrant.service.outcomes.tables import KpiReport


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(jurisdiction: str | None, fiscal_year: str) -> KpiReport:
        return national() if jurisdiction is None else ontario()

    monkeypatch.setattr(source, "annual_report", fake)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_report_page_with_its_tables_and_plots_passes_axe(
    web: Any, figures: None, language: str
) -> None:
    web.sign_in_through_django("demo-analyst", language)
    problems = []
    for place in ("ON", "CA"):
        web.goto(page_path(language, f"/reports/annual/?jurisdiction={place}&fiscal_year=2015-16"))
        assert web.lang() == language
        plots = web.page.locator("figure svg[role=img]")
        assert plots.count() == (3 if place == "CA" else 2)
        for i in range(plots.count()):
            labelled = plots.nth(i).get_attribute("aria-labelledby") or ""
            title_id, desc_id = labelled.split()
            assert web.page.locator(f"[id='{title_id}']").count() == 1
            assert web.page.locator(f"[id='{desc_id}']").count() == 1
        assert web.page.locator("td.jg-suppressed").count() > 0
        violations = web.axe()
        if violations:
            problems.append(web.report(f"{place} {language}", violations))
    assert problems == [], "\n".join(problems)
