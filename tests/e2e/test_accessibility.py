"""T16: axe-core on every page, in English and French, empty and in an error state.

The pages are listed in CATALOGUE, one group per kind of user; every named web route must be in
it or in EXCLUDED with a reason (test_every_named_web_route_is_covered), so a new page fails the
suite until it is checked. Each group runs as one test per language: sign in once, visit every
page of the group, put each form in its error state, and fail with the violations of all of them.

In an error state the error summary must be visible and have the focus (T16: focus moves to the
summary on a failed submit).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.urls import get_resolver, reverse
from django.urls.resolvers import URLPattern, URLResolver
from django.utils import translation

LANGUAGES = ("en", "fr")

Setup = Callable[[], dict[str, Any]]
ErrorState = Callable[[Any], None]


@dataclass(frozen=True)
class Visit:
    """One page: its route, the URL arguments (from the group's set-up), its error state."""

    route: str
    kwargs: Callable[[dict[str, Any]], dict[str, Any]] = lambda _: {}
    error: ErrorState | None = None
    note: str = ""


@dataclass(frozen=True)
class Group:
    name: str
    user: str | None
    visits: tuple[Visit, ...]
    setup: Setup = dict


def submit(selector: str = "main form button[type=submit]") -> ErrorState:
    """The error state of a form: submit it as it is (the page's fields left empty)."""

    def act(web: Any) -> None:
        with web.page.expect_navigation():
            web.page.locator(selector).first.click()

    return act


def sign_in_with_a_wrong_password(web: Any) -> None:
    web.page.fill("#id_username", "demo-employer")
    web.page.fill("#id_password", "not-the-password")
    with web.page.expect_navigation():
        web.page.click("main form button[type=submit]")


CATALOGUE: tuple[Group, ...] = (
    Group(
        "public",
        None,
        (
            Visit("web:landing"),
            Visit("web:sign-in", error=sign_in_with_a_wrong_password),
        ),
    ),
    Group("finance", "demo-finance", (Visit("web:home"),)),
)

#: Named web routes that are not pages, with the reason they are left out of the axe crawl.
EXCLUDED: dict[str, str] = {
    "web:sign-out": "POST only, answers with a redirect; its button is in the header of every "
    "signed-in page, and the flows use it",
}


def web_routes() -> set[str]:
    """Every named route of the web app, as `web:name`."""

    def walk(patterns: list[Any], namespace: str) -> set[str]:
        names: set[str] = set()
        for entry in patterns:
            if isinstance(entry, URLResolver):
                inner = f"{namespace}:{entry.namespace}" if entry.namespace else namespace
                names |= walk(entry.url_patterns, inner)
            elif isinstance(entry, URLPattern) and entry.name and namespace.endswith("web"):
                names.add(f"web:{entry.name}")
        return names

    return walk(get_resolver().url_patterns, "")


def test_every_named_web_route_is_covered() -> None:
    covered = {visit.route for group in CATALOGUE for visit in group.visits}
    routes = web_routes()
    assert "web:landing" in routes, "the route walk found no web pages"
    forgotten = sorted(routes - covered - EXCLUDED.keys())
    assert not forgotten, (
        f"web routes neither checked by axe nor excluded with a reason: {forgotten}; add them "
        "to CATALOGUE (or to EXCLUDED, saying why) in tests/e2e/test_accessibility.py"
    )
    stale = sorted((covered | EXCLUDED.keys()) - routes)
    assert not stale, f"CATALOGUE or EXCLUDED name routes that no longer exist: {stale}"
    both = sorted(covered & EXCLUDED.keys())
    assert not both, f"routes both covered and excluded: {both}"


@dataclass
class Result:
    page: str
    state: str
    violations: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        ids = sorted({v["id"] for v in self.violations})
        outcome = "0 violations" if not ids else f"{len(self.violations)} violation(s) {ids}"
        extra = f"; {'; '.join(self.problems)}" if self.problems else ""
        return f"{self.page} [{self.state}]: {outcome}{extra}"


def check_error_state(web: Any) -> list[str]:
    """The error summary is shown and has the focus."""
    problems = []
    summary = web.page.locator("gcds-error-summary")
    if summary.count() == 0:
        return ["no error summary after a failed submit"]
    box = summary.first.bounding_box()
    visible_list = web.page.locator("gcds-error-summary >> li:visible").count()
    if not box or box["height"] < 10 or visible_list == 0:
        problems.append("the error summary is not visible (no visible list of errors)")
    focused = web.focused()
    if "gcds-error-summary" not in (focused.get("host", "") + focused.get("tag", "")):
        problems.append(f"the focus is not on the error summary but on {focused}")
    return problems


def report(results: list[Result], group: str, language: str) -> None:
    """Keep the results where JOBGRANT_E2E_REPORT says (a directory), for the closing note."""
    directory = os.environ.get("JOBGRANT_E2E_REPORT")
    if not directory:
        return
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    rows = [
        {"page": r.page, "state": r.state, "violations": [v["id"] for v in r.violations],
         "problems": r.problems}
        for r in results
    ]  # fmt: skip
    (path / f"axe-{group}-{language}.json").write_text(json.dumps(rows, indent=1))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("group", CATALOGUE, ids=lambda group: group.name)
def test_every_page_passes_axe_empty_and_in_error(web: Any, group: Group, language: str) -> None:
    context = group.setup()
    if group.user:
        web.sign_in(group.user, language)
    results: list[Result] = []
    for visit in group.visits:
        with translation.override(language):
            path = reverse(visit.route, kwargs=visit.kwargs(context))
        web.goto(path)
        empty = Result(f"{visit.route} {path}", "empty")
        if web.lang() != language:
            empty.problems.append(f"lang={web.lang()!r}")
        empty.violations = web.axe()
        results.append(empty)
        if visit.error is not None:
            visit.error(web)
            web.settle()
            failed = Result(f"{visit.route} {path}", "error")
            failed.problems += check_error_state(web)
            if web.lang() != language:
                failed.problems.append(f"lang={web.lang()!r}")
            failed.violations = web.axe()
            results.append(failed)
    report(results, group.name, language)
    bad = [r for r in results if r.violations or r.problems]
    assert not bad, "\n\n".join(
        [f"{group.name} pages in {language}:", *(r.line() for r in results)]
        + [web.report(f"{r.page} [{r.state}]", r.violations) for r in bad if r.violations]
    )
