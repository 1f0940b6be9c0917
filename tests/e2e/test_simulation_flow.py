"""The analyst's simulator in Chromium, with the real worker: ask for a run on the page, watch
its progress, and read the finished page (its tables, its plots loaded, axe-clean), in English
and in French."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import Web
from tests.e2e.test_wide_tables import MEASURE


def run_the_worker() -> int:
    """django-tasks' database worker, as `jobgrant worker` runs it, until no task is ready."""
    from jobgrant.service.notifications.worker import OutboxWorker

    ran = 0
    while (turn := OutboxWorker("e2e-worker", interval=0).turn()) > 0:
        ran += turn
    return ran


def test_an_analyst_runs_a_simulation_and_reads_its_figures(page: Any, site: str) -> None:
    web = Web(page, site)
    web.sign_in("demo-analyst")
    web.goto("/en/analyst/scenarios/")
    with page.expect_navigation():
        page.click("#simulations-link")
    web.settle()
    page.select_option("#id_first_year", "2017-18")
    page.select_option("#id_last_year", "2017-18")
    page.fill("#id_draws", "2")
    with page.expect_navigation():
        page.click("#simulation-run-button")
    web.settle()
    assert "Waiting for the worker: 0 of 2 draws done." in page.inner_text("#simulation-progress")
    web.assert_accessible("a simulation waiting for the worker")

    assert run_the_worker() >= 1
    # htmx asks for the progress every two seconds; once finished, the page loads again.
    page.locator("#jurisdictions-table").wait_for(timeout=20_000)
    web.settle()
    assert page.locator("#jurisdictions-table tbody tr").count() == 14
    page.wait_for_function(
        "() => document.querySelector('#simulation-plots-image').naturalWidth > 0",
        timeout=20_000,
    )
    web.assert_accessible("a finished simulation")

    web.goto(web.other_language_link())
    web.assert_lang("fr")
    assert "Par province et territoire, 2017-18" in page.inner_text("main")
    web.assert_accessible("a finished simulation, in French")

    # No table cut at 1280 or 390 px (a box that scrolls says so), the page never sideways.
    finished = page.url
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        web.goto(finished)
        found = page.evaluate(MEASURE)
        assert (found["cut"], found["sideways"]) == ([], False), (width, found)
