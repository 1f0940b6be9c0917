"""Reflow (WCAG 1.4.10) past the employer's wizard: the pages a file goes through after its
approval, each person's, at 390 px wide, in English and in French. No page scrolls sideways
(a wide table scrolls inside its own box) and axe finds nothing on any of them.

One test per language; each person has one browser page and signs in once: the employer (their
dashboard, a file's page, its agreement offered and accepted, a draft claim, a completion
report, the demonstration's mailbox), the trainee (the participant form, by its link), an
officer (a file's review, the indicators) and the analyst (the indicators, the simulator and a
finished simulation). The same pages at 1280 px are in test_accessibility.py's catalogue.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone, translation
from tests.e2e.conftest import Web, format_violations, watched_page
from tests.e2e.test_accessibility import NARROW, Result, reflow_problems

LANGUAGES = ("en", "fr")


def files_after_approval(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """The demonstration's files ready to claim (accepted, trainees confirmed, assigned to
    demo-officer-on-1): a draft claim on the first, a draft completion report on the second
    (written after its training, the clock moved for that only); an offered file with two
    trainees, the first invited (the participant form's link); a finished simulation."""
    import time_machine
    from tests.e2e.test_accessibility import simulation_runs, with_a_trainee_invited

    from jobgrant.service.accounts.models import User
    from jobgrant.service.demo import seed_ready_to_claim
    from jobgrant.service.grants.claims import actions as claim_actions
    from jobgrant.service.grants.completion import report as completion_actions
    from jobgrant.service.grants.models.applications import Application
    from jobgrant.service.grants.models.participants import Participant

    employer = User.objects.get(username="demo-employer")
    claimed, reported, *_ = seed_ready_to_claim()
    claim = claim_actions.start_claim(employer, Application.objects.get(pk=claimed), {})
    reporting = Application.objects.get(pk=reported)
    end = dt.date.fromisoformat(reporting.request["training"]["end_date"])
    after = dt.datetime.combine(end + dt.timedelta(days=3), dt.time(15), tzinfo=dt.UTC)
    with time_machine.travel(after, tick=True):
        report = completion_actions.start_completion_report(reporting, by=employer)
        slot = Participant.objects.filter(application=reporting).order_by("pk").first()
        assert slot is not None
        completion_actions.save_completion_report(
            report,
            trainees=[{"participant": slot.pk, "completed": True, "employed_at_end": False}],
            ratings={},
            feedback="",
            by=employer,
        )
    assert timezone.now() < after  # the report's page is read today, as a draft
    return {
        "ready": claimed,
        "claim": claim.pk,
        "reported": reported,
        **with_a_trainee_invited(make_body),
        **simulation_runs(make_body),
    }


@contextmanager
def person(browser: Any, site: str) -> Iterator[Web]:
    """One person's browser page at 390 px; it fails the test on a script error or a failed
    request, as the `page` fixture does."""
    with watched_page(browser, site, NARROW) as tab:
        yield Web(tab, site)


#: Each person's pages: (who signs in, None for the trainee's link), [(route, its arguments)].
Arguments = Callable[[dict[str, Any]], dict[str, Any]]
PAGES: tuple[tuple[str | None, tuple[tuple[str, Arguments], ...]], ...] = (
    (
        "demo-employer",
        (
            ("web:employer-dashboard", lambda made: {}),
            ("web:employer-application", lambda made: {"application_id": made["ready"]}),
            ("web:employer-agreement", lambda made: {"application_id": made["ready"]}),
            ("web:employer-agreement", lambda made: {"application_id": made["approved"]}),
            ("web:employer-claim", lambda made: {"claim_id": made["claim"]}),
            ("web:employer-completion-report", lambda made: {"application_id": made["reported"]}),
            ("web:demo-mail", lambda made: {}),
        ),
    ),
    (None, (("web:participate", lambda made: {"token": made["token"]}),)),
    (
        "demo-officer-on-1",
        (
            ("web:officer-review", lambda made: {"application_id": made["ready"]}),
            ("web:officer-agreement", lambda made: {"application_id": made["ready"]}),
            ("web:analyst-kpis", lambda made: {}),
        ),
    ),
    (
        "demo-analyst",
        (
            ("web:analyst-kpis", lambda made: {}),
            ("web:analyst-simulations", lambda made: {}),
            ("web:analyst-simulation", lambda made: {"pk": made["finished"]}),
        ),
    ),
)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_pages_after_approval_reflow_at_390_px(
    browser: Any, site: str, settings: Any, make_body: Callable[..., dict[str, Any]], language: str
) -> None:
    settings.JOBGRANT_DEMO_MAIL = True  # the demonstration's mailbox is one of the pages
    made = files_after_approval(make_body)
    results: list[Result] = []
    for user, pages in PAGES:
        with person(browser, site) as web:
            if user is not None:
                web.sign_in(user, language)
            for route, arguments in pages:
                with translation.override(language):
                    path = reverse(route, kwargs=arguments(made))
                web.goto(path)
                web.settle()
                name = f"{user or 'trainee'}: {route} {path}"
                problems = reflow_problems(web)
                if web.lang() != language:
                    problems.append(f"lang={web.lang()!r}")
                results.append(Result(name, "390 px", web.axe(), problems))
    assert len(results) == sum(len(pages) for _, pages in PAGES)
    bad = [r for r in results if r.violations or r.problems]
    assert not bad, "\n".join(
        [f"pages at 390 px in {language}:", *(r.line() for r in results), ""]
        + [format_violations(f"{r.page} [{r.state}]", r.violations) for r in bad if r.violations]
    )
