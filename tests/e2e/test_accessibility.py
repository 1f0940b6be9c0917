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
from tests.addresses import page_path
from tests.e2e.change_catalogue import CHANGE_EXCLUDED, change_groups
from tests.e2e.claim_catalogue import CLAIM_EXCLUDED, claim_groups
from tests.e2e.flag_catalogue import FLAG_EXCLUDED, flag_groups
from tests.e2e.org_catalogue import ORG_EXCLUDED, org_groups
from tests.e2e.outcome_catalogue import OUTCOME_EXCLUDED, outcome_groups
from tests.e2e.payment_catalogue import PAYMENT_EXCLUDED, payment_groups
from tests.e2e.ranking_catalogue import RANKING_EXCLUDED, ranking_groups

LANGUAGES = ("en", "fr")

Setup = Callable[[Callable[..., dict[str, Any]]], dict[str, Any]]
Action = Callable[[Any], None]


@dataclass(frozen=True)
class Visit:
    """One page of the catalogue.

    prepare: what the browser does first (e.g. the earlier steps of the application);
    kwargs: the URL's arguments, from what the group's set-up made;
    error: puts the page in its error state (a failed submit: the error summary must show and
    take the focus); states: other states worth checking (name, action), e.g. the live quote.
    """

    route: str
    kwargs: Callable[[dict[str, Any]], dict[str, Any]] = lambda _: {}
    prepare: Action | None = None
    error: Action | None = None
    states: tuple[tuple[str, Action], ...] = ()
    status: int = 200
    label: str = ""


@dataclass(frozen=True)
class Group:
    name: str
    user: str | None
    visits: tuple[Visit, ...]
    setup: Setup = lambda _make_body: {}


def click(selector: str) -> Action:
    """Press a button that submits its form, and wait for the page that answers."""

    def act(web: Any) -> None:
        with web.page.expect_navigation():
            web.page.click(selector)

    return act


def fill_and_click(values: dict[str, str], selector: str) -> Action:
    def act(web: Any) -> None:
        for field_selector, value in values.items():
            web.page.fill(field_selector, value)
        click(selector)(web)

    return act


def query(params: str) -> Action:
    """A GET form's error state: the page asked for with values it refuses."""

    def act(web: Any) -> None:
        web.goto(f"{web.page.url.split('?')[0]}?{params}", status=None)

    return act


def sign_in_with_a_wrong_password(web: Any) -> None:
    web.page.fill("#id_username", "demo-employer")
    web.page.fill("#id_password", "not-the-password")
    click("main form button[type=submit]")(web)


def language_of(web: Any) -> str:
    return "fr" if "/fr/" in web.page.url else "en"


def organizations_done(web: Any) -> None:
    web.apply(language_of(web)).organizations()


def training_done(web: Any) -> None:
    web.apply(language_of(web)).training()


def trainees_done(web: Any) -> None:
    web.apply(language_of(web)).trainees()


def declarations_done(web: Any) -> None:
    web.apply(language_of(web)).declarations()


def live_quote(web: Any) -> None:
    """Costs typed in: htmx brings the grant's split and the partners' shares."""
    apply = web.apply(language_of(web))
    apply.trainee(0)
    apply.wait_for_quote()


def approval_confirmation(web: Any) -> None:
    """Approving asks first: the confirmation page with the figures."""
    click("#approve-button")(web)
    web.page.locator("#confirm-form").wait_for()


def verify_chain(web: Any) -> None:
    click("#verify-button")(web)
    web.page.locator("#verification-result.jg-notice--success").wait_for()


def employer_applications(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.applications import actions

    employer = User.objects.get(username="demo-employer")
    submitted = actions.create_application(employer, make_body())
    actions.submit_application(employer, submitted)
    draft = actions.save_form_draft(employer, None, "organizations", {"lead": "", "partners": []})
    return {"submitted": submitted.pk, "draft": draft.pk}


def officer_applications(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.applications.assignment import assign_application

    employer = User.objects.get(username="demo-employer")
    officer = User.objects.get(username="demo-officer-on-1")
    colleague = User.objects.get(username="demo-officer-on-2")
    made = []
    for _ in range(3):
        application = actions.create_application(employer, make_body())
        actions.submit_application(employer, application)
        made.append(application)
    actions.recommend_application(officer, made[1], "Meets the rules.")
    actions.recommend_application(colleague, made[2], "Meets the rules.")
    # held by this officer: its review shows "Release", the other's "Assign to me"
    assign_application(officer, made[1], officer)
    return {"submitted": made[0].pk, "recommended": made[1].pk, "to_approve": made[2].pk}


def an_administrator(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """An administrator: their start page is the staff accounts. Staff
    pass a second factor: their app holds the demonstration secret, and one API token is out."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from jobgrant.service.accounts.demo_credentials import DEMO_TOTP_KEY_HEX
    from jobgrant.service.accounts.models import ApiToken, Role, User
    from jobgrant.service.demo import DEMO_PASSWORD

    admin = User.objects.create_user(username="e2e-admin", password=DEMO_PASSWORD, role=Role.ADMIN)
    TOTPDevice.objects.create(user=admin, key=DEMO_TOTP_KEY_HEX, confirmed=True)
    ApiToken.issue(User.objects.get(username="demo-employer"), "payroll-sync")
    return {}


def intakes_to_manage(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """Ontario's ranked stream with a scheduled intake (its form) beside the demonstration's
    closed ranked intake, and the first-come intake open now (its page, and closing it)."""
    import datetime as dt

    from django.utils import timezone

    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.core.quoting import open_intake
    from jobgrant.service.grants.intakes import actions as intake_actions
    from jobgrant.service.grants.models.applications import Program, Selection

    program = Program.objects.filter(jurisdiction="ON").order_by("-fiscal_year")[0]
    stream = program.streams.get(selection=Selection.RANKED)
    today = timezone.localdate()
    body = {
        "name_en": "Winter intake",
        "name_fr": "Appel d'hiver",
        "opens_on": (today + dt.timedelta(days=7)).isoformat(),
        "closes_on": (today + dt.timedelta(days=30)).isoformat(),
        "federal_budget": "1000.00",
    }
    manager = User.objects.get(username="demo-program-manager-on")
    scheduled = intake_actions.create_intake(manager, stream, body)
    current = open_intake(program, today)
    assert current is not None
    return {"stream": stream.pk, "scheduled": scheduled.pk, "open": current.pk}


def a_token(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """The demonstration employer's API token for one client (its row on the account page)."""
    from jobgrant.service.accounts.models import ApiToken, User

    employer = User.objects.get(username="demo-employer")
    ApiToken.issue(employer, "payroll-sync")
    return {"token": ApiToken.objects.get(user=employer, name="payroll-sync").pk}


def reauthenticated(web: Any) -> None:
    """The password typed again (the employer has no second factor): the account's changes open
    for 5 minutes."""
    from jobgrant.service.demo import DEMO_PASSWORD

    web.goto(page_path(language_of(web), "/account/confirm/"))
    web.page.fill("#id_password", DEMO_PASSWORD)
    click("main form button[type=submit]")(web)


PASSKEY_USER = "e2e-passkeys"


def a_passkey(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """An auditor with an authenticator app (the demonstration secret) and one passkey (its
    row only: these pages show it, nothing signs with it)."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from jobgrant.service.accounts.demo_credentials import DEMO_TOTP_KEY_HEX
    from jobgrant.service.accounts.models import Role, User
    from jobgrant.service.accounts.passkey_models import Passkey
    from jobgrant.service.demo import DEMO_PASSWORD

    auditor = User.objects.create_user(PASSKEY_USER, password=DEMO_PASSWORD, role=Role.AUDITOR)
    TOTPDevice.objects.create(user=auditor, key=DEMO_TOTP_KEY_HEX, confirmed=True)
    passkey = Passkey.objects.create(
        user=auditor, name="security key", confirmed=True, credential_id=b"e2e", public_key=b"-"
    )
    return {"passkey": passkey.pk}


def staff_reauthenticated(web: Any) -> None:
    """The password and a code of the app typed again: the account's changes open for 5
    minutes."""
    from tests.personas import totp_code

    from jobgrant.service.demo import DEMO_PASSWORD

    web.goto(page_path(language_of(web), "/account/confirm/"))
    web.page.fill("#id_password", DEMO_PASSWORD)
    web.page.fill("#id_code", totp_code(PASSKEY_USER))
    click("main form button[type=submit]")(web)


def with_a_trainee_invited(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """An approved application with two trainees, the first invited (its link from the outbox),
    and one trainee funded in another file (for the officer's flags)."""
    from tests.e2e.test_participants_flow import approved, link_in_outbox

    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.participants import actions as participant_actions

    employer = User.objects.get(username="demo-employer")
    application = approved(make_body)
    slot = participant_actions.invite_participant(
        employer, application, {"trainee": 0, "email": "a@example.com", "language": "en"}
    )
    token = link_in_outbox().rstrip("/").rsplit("/", 1)[-1]
    return {"approved": application.pk, "participant": slot.pk, "token": token}


def simulation_runs(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """Two runs of one fiscal year and two draws: one the real worker has finished, one still
    waiting for it."""
    from tests.e2e.test_simulation_flow import run_the_worker

    from jobgrant.service.accounts.models import User
    from jobgrant.service.analysis.actions import RunRequest, request_run

    analyst = User.objects.get(username="demo-analyst")
    asked = RunRequest("budget-2013", "2017-18", "2017-18", 2, 2013)
    finished = request_run(analyst, asked)
    run_the_worker()
    return {"finished": finished.pk, "waiting": request_run(analyst, asked).pk}


def replay_the_closed_intake(web: Any) -> None:
    """The replay page asked (a GET) for the demonstration's closed, ranked intake of
    Ontario replayed under cjg-2014: its figures, its plot and its table of changes."""
    from jobgrant.service.grants.models.applications import Intake, IntakeState, Selection

    intake = Intake.objects.get(
        stream__program__jurisdiction="ON",
        stream__selection=Selection.RANKED,
        state__in=[IntakeState.CLOSED, IntakeState.RANKED],
    )
    web.goto(f"{web.page.url.split('?')[0]}?intake={intake.pk}&policy=cjg-2014")


def an_agreement_offered(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """An approved application of the demonstration employer: its agreement is offered."""
    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.applications import actions

    employer = User.objects.get(username="demo-employer")
    application = actions.create_application(employer, make_body())
    actions.submit_application(employer, application)
    actions.recommend_application(User.objects.get(username="demo-officer-on-1"), application)
    actions.approve_application(User.objects.get(username="demo-officer-on-2"), application)
    return {"approved": application.pk}


def acceptance_confirmation(web: Any) -> None:
    """The acceptance form filled in: the confirmation step, before anything is recorded."""
    web.page.fill("#id_signatory", "Ada Tremblay")
    web.page.fill("#id_title", "Owner")
    for name in ("agreement", "cost_schedule", "general_terms"):
        web.page.check(f"#id_{name}")
    click("#accept-continue")(web)
    web.page.locator("#accept-confirm-form").wait_for()


def files_with_clocks(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """Two files received on June 1, 2026, one denied two days later and one left waiting:
    the service standards' results page has a met and a missed file in its tables."""
    import datetime as dt

    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.models.applications import StateChange

    employer = User.objects.get(username="demo-employer")
    files = []
    for _ in range(2):
        made = actions.create_application(employer, make_body())
        files.append(actions.submit_application(employer, made))
    actions.deny_application(User.objects.get(username="demo-officer-on-1"), files[0], "Not now.")
    june = dt.datetime(2026, 6, 1, 15, tzinfo=dt.UTC)
    StateChange.objects.filter(application__in=files).update(at=june)
    return {}


ID = "application_id"  # the URL argument of an application's pages
CATALOGUE: tuple[Group, ...] = (
    Group(
        "public",
        None,
        (
            Visit("web:landing"),
            Visit("web:sign-in", error=sign_in_with_a_wrong_password),
            Visit(
                "web:sign-in", error=click("main form button[type=submit]"), label="nothing typed"
            ),
            Visit("web:password-reset", error=click("main form button[type=submit]")),
            Visit("web:password-reset-sent"),
            Visit("web:password-reset-done"),
            Visit(
                "web:password-reset-confirm",
                kwargs=lambda _: {"token": "no-such-token"},
                label="a link that does not work",
            ),
        ),
    ),
    Group(
        "public service standards",
        None,
        (Visit("web:service-standards", label="with results"),),
        setup=files_with_clocks,
    ),
    Group(
        "administrator",
        "e2e-admin",
        (Visit("web:home"), Visit("web:account-all-tokens")),
        setup=an_administrator,
    ),
    Group(
        "program manager",
        "demo-program-manager-on",
        (
            Visit("web:program-list"),
            Visit("web:program-stream", kwargs=lambda made: {"stream_id": made["stream"]}),
            Visit("web:program-stream-rules", kwargs=lambda made: {"stream_id": made["stream"]}),
            Visit(
                "web:program-intake-new",
                kwargs=lambda made: {"stream_id": made["stream"]},
                error=click("#save-intake"),
            ),
            Visit("web:program-intake", kwargs=lambda made: {"intake_id": made["scheduled"]}),
            Visit(
                "web:program-intake",
                kwargs=lambda made: {"intake_id": made["open"]},
                label="open: its figures",
            ),
            Visit(
                "web:program-intake-close",
                kwargs=lambda made: {"intake_id": made["open"]},
                error=click("#confirm-close"),
            ),
        ),
        setup=intakes_to_manage,
    ),
    Group(
        "employer's account",
        "demo-employer",
        (
            Visit("web:account"),
            Visit("web:account-confirm", error=click("main form button[type=submit]")),
            Visit(
                "web:account-password",
                prepare=reauthenticated,
                error=fill_and_click({"#id_new_password": "dragon"}, "main form button"),
            ),
            Visit("web:account-email", prepare=reauthenticated, error=click("main form button")),
            Visit("web:account-recovery-codes", prepare=reauthenticated),
            Visit("web:account-second-factor-off", prepare=reauthenticated),
            Visit("web:second-factor-setup", prepare=reauthenticated),
            Visit("web:account-token-revoke", kwargs=lambda made: {"token_id": made["token"]}),
            Visit("web:account-passkey-add", prepare=reauthenticated, label="app needed first"),
        ),
        setup=a_token,
    ),
    Group(
        "staff member's passkeys",
        PASSKEY_USER,
        (
            Visit("web:account"),
            Visit(
                "web:account-passkey-add",
                prepare=staff_reauthenticated,
                error=click("main form button[type=submit]"),
            ),
            Visit(
                "web:account-passkey-remove", kwargs=lambda made: {"passkey_id": made["passkey"]}
            ),
        ),
        setup=a_passkey,
    ),
    Group(
        "employer",
        "demo-employer",
        (
            Visit("web:employer-dashboard"),
            Visit("web:employer-apply-organizations", error=click("#continue")),
            Visit(
                "web:employer-apply-training", prepare=organizations_done, error=click("#continue")
            ),
            Visit(
                "web:employer-apply-trainees",
                prepare=training_done,
                error=fill_and_click({"#trainee-0-tuition": "12,34,5.6.7"}, "#continue"),
                states=(("live quote", live_quote),),
            ),
            Visit(
                "web:employer-apply-declarations",
                prepare=trainees_done,
                error=click("#continue"),
            ),
            Visit(
                "web:employer-apply-review",
                prepare=declarations_done,
                error=click("#submit-application"),
            ),
            Visit("web:employer-apply-cancel", prepare=organizations_done),
            Visit("web:employer-draft-delete", kwargs=lambda made: {"draft_id": made["draft"]}),
            Visit("web:employer-application", kwargs=lambda made: {ID: made["submitted"]}),
            Visit(
                "web:employer-application",
                kwargs=lambda _made: {ID: 999_999},
                status=404,
                label="an application that does not exist",
            ),
            Visit(
                "web:employer-application-withdraw",
                kwargs=lambda made: {ID: made["submitted"]},
                error=fill_and_click({"#note": "x" * 2001}, "#withdraw"),
            ),
            Visit("web:officer-queue", status=403, label="a page of another role"),
        ),
        setup=employer_applications,
    ),
    Group(
        "employer's trainees",
        "demo-employer",
        (
            Visit(
                "web:employer-trainees",
                kwargs=lambda made: {ID: made["approved"]},
                error=click("#send-invitation"),
            ),
            Visit(
                "web:employer-participant-revoke",
                kwargs=lambda made: {"participant_id": made["participant"]},
            ),
        ),
        setup=with_a_trainee_invited,
    ),
    Group(
        "trainee",
        None,
        (
            Visit(
                "web:participate",
                kwargs=lambda made: {"token": made["token"]},
                error=click("#send-answers"),
            ),
            Visit(
                "web:participate",
                kwargs=lambda _made: {"token": "f" * 64},
                status=404,
                label="a link that does not exist",
            ),
        ),
        setup=with_a_trainee_invited,
    ),
    Group(
        "officer",
        "demo-officer-on-1",
        (
            Visit("web:officer-queue", error=query("age=5&state=nonsense")),
            Visit(
                "web:officer-review",
                kwargs=lambda made: {ID: made["submitted"]},
                error=click("#deny-button"),
            ),
            Visit(
                "web:officer-review",
                kwargs=lambda made: {ID: made["recommended"]},
                label="recommended by this officer (no Approve: a second officer approves)",
            ),
            Visit(
                "web:officer-review",
                kwargs=lambda made: {ID: made["to_approve"]},
                states=(("confirmation of an approval", approval_confirmation),),
                label="recommended by a colleague",
            ),
        ),
        setup=officer_applications,
    ),
    Group(
        "agreement-employer",
        "demo-employer",
        (
            Visit("web:employer-application", kwargs=lambda made: {ID: made["approved"]}),
            Visit("web:employer-agreement", kwargs=lambda made: {ID: made["approved"]}),
            Visit(
                "web:employer-agreement-accept",
                kwargs=lambda made: {ID: made["approved"]},
                error=click("#accept-continue"),
                states=(("confirmation step", acceptance_confirmation),),
            ),
            Visit(
                "web:employer-agreement-decline",
                kwargs=lambda made: {ID: made["approved"]},
                error=click("#decline"),
            ),
        ),
        setup=an_agreement_offered,
    ),
    Group(
        "agreement-officer",
        "demo-officer-on-1",
        (
            Visit("web:officer-agreements"),
            Visit("web:officer-agreement", kwargs=lambda made: {ID: made["approved"]}),
            Visit(
                "web:officer-agreement-withdraw",
                kwargs=lambda made: {ID: made["approved"]},
                error=click("#withdraw"),
            ),
        ),
        setup=an_agreement_offered,
    ),
    Group(
        "finance",
        "demo-finance",
        (Visit("web:finance-budgets", error=query("fiscal_year=1999-00&funder=nobody")),),
    ),
    Group(
        "officer's flags and KPIs",
        "demo-officer-on-1",
        (Visit("web:officer-participant-flags"), Visit("web:analyst-kpis")),
    ),
    Group(
        "analyst",
        "demo-analyst",
        (
            Visit("web:analyst-scenarios", error=query("policy=nonsense&fiscal_year=1900-01")),
            Visit("web:analyst-kpis", error=query("fiscal_year=1900-01")),
            Visit("web:analyst-burden", error=query("fiscal_year=1900-01")),
            Visit(
                "web:analyst-simulations",
                error=fill_and_click({"#id_draws": "0"}, "#simulation-run-button"),
            ),
            Visit(
                "web:analyst-simulation",
                kwargs=lambda made: {"pk": made["finished"]},
                label="a finished simulation",
            ),
            Visit(
                "web:analyst-simulation",
                kwargs=lambda made: {"pk": made["waiting"]},
                label="a simulation waiting for the worker",
            ),
            Visit(
                "web:analyst-replay",
                error=query("intake=0&policy=nonsense"),
                states=(("the closed intake replayed under cjg-2014", replay_the_closed_intake),),
            ),
        ),
        setup=simulation_runs,
    ),
    Group(
        "annual report",
        "demo-analyst",
        (
            Visit(
                "web:reports-annual",
                error=query("jurisdiction=ZZ&fiscal_year=2015-2016"),
                label="the figures are checked with a report in test_report_page.py",
            ),
        ),
    ),
    Group(
        "auditor",
        "demo-auditor",
        (
            Visit(
                "web:auditor-trail",
                error=query("since=yesterday&sequence=first"),
                states=(("after verifying the chain", verify_chain),),
            ),
        ),
    ),
)

#: Named web routes that are not pages, with the reason they are left out of the axe crawl.
EXCLUDED: dict[str, str] = {
    "web:second-factor": "needs a session past the password only: checked with axe, in both "
    "languages and in error, by tests/e2e/test_sign_in_security.py",
    "web:second-factor-passkey": "POST only (the code step's passkey form), answers with a "
    "redirect or the code step; checked in Chromium with a virtual authenticator, with axe in "
    "both languages, by tests/e2e/test_passkeys.py",
    "web:second-factor-recovery-codes": "shown once, right after an app is set up: checked with "
    "axe by tests/e2e/test_sign_in_security.py",
    "web:demo-mail": "exists only with JOBGRANT_DEMO_MAIL on: checked with axe, in both languages "
    "and with messages on it, by tests/e2e/test_demo_mail.py",
    "web:sign-out": "POST only, answers with a redirect; its button is in the header of every "
    "signed-in page, and the flows use it",
    "web:employer-apply": "redirects to the first step still to complete",
    "web:employer-apply-quote": "htmx fragment (POST): the live quote, checked inside the "
    "trainees page once it has updated (state 'live quote')",
    "web:employer-draft-resume": "POST only (the dashboard's Continue button), redirects to "
    "the wizard",
    "web:employer-application-submit": "POST only (drafts saved through the API), redirects to "
    "the application's page",
    "web:officer-decide": "POST only; it renders the confirmation of an approval, checked as "
    "officer-review [confirmation of an approval], and on a refusal or bad input the review "
    "page, checked as officer-review [error] and [refusal]",
    "web:officer-assign": "POST only (Assign to me, Release), redirects to the review, checked "
    "as officer-review with the file assigned",
    "web:finance-budgets-csv": "a CSV download, not a page",
    "web:service-standards-csv": "a CSV download, not a page",
    "web:employer-agreement-pdf": "a PDF download, not a page (its text is tested with pypdf)",
    "web:officer-agreement-pdf": "a PDF download, not a page (its text is tested with pypdf)",
    "web:auditor-trail-csv": "a CSV download, not a page",
    "web:analyst-chart": "an SVG image shown in the scenarios page (its text alternative is "
    "checked there)",
    "web:analyst-simulation-plot": "an SVG image shown in a finished simulation's page (its "
    "text alternative is checked there)",
    "web:analyst-simulation-csv": "a CSV download, not a page",
    "web:analyst-replay-csv": "a download, not a page",
    "web:analyst-simulation-progress": "htmx fragment: the progress block of a simulation's "
    "page, checked inside it (analyst-simulation [a simulation waiting for the worker])",
    "web:reports-annual-pdf": "a PDF download, not a page (its text is tested with pypdf)",
    "web:reports-annual-csv": "a CSV download, not a page",
    "web:auditor-verify": "POST only, redirects to the trail (checked as auditor-trail after "
    "verifying the chain)",
    "web:officer-participant-sin": "POST only (Show the SIN), renders the flags page with one "
    "SIN, checked as officer-participant-flags",
    "web:employer-participant-resend": "POST only (Send a new link), redirects to the trainees "
    "page, checked as employer-trainees",
    "web:analyst-kpis-refresh": "POST only (Refresh now), redirects to the KPIs page, checked as "
    "analyst-kpis (its button and the figures' time are on that page)",
}
# The change requests' pages (tests/e2e/change_catalogue.py).
CATALOGUE += change_groups(Group, Visit, click, fill_and_click)
EXCLUDED.update(CHANGE_EXCLUDED)
# The claims' pages (tests/e2e/claim_catalogue.py).
CATALOGUE += claim_groups(Group, Visit, click, fill_and_click)
EXCLUDED.update(CLAIM_EXCLUDED)
# The finance officer's payments and receivables (tests/e2e/payment_catalogue.py).
CATALOGUE += payment_groups(Group, Visit, click, fill_and_click)
EXCLUDED.update(PAYMENT_EXCLUDED)
# Registration, organizations, partner requests, staff accounts (tests/e2e/org_catalogue.py).
CATALOGUE += org_groups(Group, Visit, click, fill_and_click)
EXCLUDED.update(ORG_EXCLUDED)
# The completion report, the follow-ups and the officer's outcomes (tests/e2e/outcome_catalogue.py).
CATALOGUE += outcome_groups(Group, Visit, click, fill_and_click)
EXCLUDED.update(OUTCOME_EXCLUDED)
# A ranked intake: the officer's review, the overrides' sign-off, the report (ranking_catalogue).
CATALOGUE += ranking_groups(Group, Visit, click, fill_and_click)
EXCLUDED.update(RANKING_EXCLUDED)
# The risk flags and an organization's direct-deposit account (tests/e2e/flag_catalogue.py).
CATALOGUE += flag_groups(Group, Visit, click, fill_and_click)
EXCLUDED.update(FLAG_EXCLUDED)


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


def test_a_settled_page_is_checked_whole_not_mid_fade(web: Any) -> None:
    """The design system fades the body in (50 ms): `settle` waits for it, so that axe never
    reads colours blended with the white behind a half-transparent page (a danger button's
    contrast once failed at 4.4 that way, on a quick machine)."""
    for path in ("/en/", "/fr/", "/en/sign-in/", "/fr/connexion/"):
        web.goto(path, status=None)
        assert web.page.evaluate("getComputedStyle(document.body).opacity") == "1", path
        running = web.page.evaluate(
            "document.getAnimations().filter((a) => a.playState === 'running').length"
        )
        assert running == 0, path


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
    """The error summary is shown and has the focus (after a failed submit)."""
    problems = []
    summary = web.page.locator("gcds-error-summary")
    if summary.count() == 0:
        return ["no error summary after a failed submit"]
    box = summary.first.bounding_box()
    visible_list = web.page.locator("gcds-error-summary >> li:visible").count()
    if not box or box["height"] < 10 or visible_list == 0:
        problems.append("the error summary is not visible (no visible list of errors)")
    if not web.wait_for_focus_on("gcds-error-summary"):
        problems.append(f"the focus is not on the error summary but on {web.focused()}")
    return problems


def report(results: list[Result], group: str, language: str) -> None:
    """Keep the results where JOBGRANT_E2E_REPORT says (a directory), for the closing note."""
    directory = os.environ.get("JOBGRANT_E2E_REPORT")
    if not directory:
        return
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    rows = [
        {
            "page": r.page,
            "state": r.state,
            "violations": [v["id"] for v in r.violations],
            "problems": r.problems,
        }
        for r in results
    ]
    (path / f"axe-{group}-{language}.json").write_text(json.dumps(rows, indent=1))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("group", CATALOGUE, ids=lambda group: group.name)
def test_every_page_passes_axe_empty_and_in_error(
    web: Any, make_body: Callable[..., dict[str, Any]], group: Group, language: str
) -> None:
    made = group.setup(make_body)
    if group.user:
        web.sign_in_through_django(group.user, language)
    results: list[Result] = []

    def check(result: Result) -> None:  # on a settled page (web.goto and web.settle wait)
        if web.lang() != language:
            result.problems.append(f"lang={web.lang()!r}")
        result.violations = web.axe()
        results.append(result)

    for visit in group.visits:
        if visit.prepare is not None:
            if f"/{language}/" not in web.page.url:  # the prepare steps read the language there
                web.goto(f"/{language}/")
            visit.prepare(web)
        with translation.override(language):
            path = reverse(visit.route, kwargs=visit.kwargs(made))
        web.goto(path, status=visit.status)
        name = f"{visit.route} {path}" + (f" ({visit.label})" if visit.label else "")
        check(Result(name, "empty" if visit.status == 200 else f"HTTP {visit.status}"))
        if visit.error is not None:
            visit.error(web)
            web.settle()
            failed = Result(name, "error", problems=check_error_state(web))
            check(failed)
        for state, action in visit.states:
            web.goto(path, status=visit.status)
            action(web)
            web.settle()
            check(Result(name, state))
    report(results, group.name, language)
    bad = [r for r in results if r.violations or r.problems]
    assert not bad, "\n".join(
        [f"{group.name} pages in {language}:", *(r.line() for r in results), ""]
        + [web.report(f"{r.page} [{r.state}]", r.violations) for r in bad if r.violations]
    )


# --- Reflow (WCAG 1.4.10): the employer's pages at 390 px wide -----------------------------------

NARROW = {"width": 390, "height": 844}
#: What is wider than the window, for the failure message: the widest elements that stick out.
WIDEST = """() => [...document.querySelectorAll("main *")]
  .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
  .map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className}: ${Math.round(
    e.getBoundingClientRect().right)}px`).slice(0, 5)"""


def reflow_problems(web: Any) -> list[str]:
    width = web.page.evaluate("document.documentElement.scrollWidth")
    if width <= NARROW["width"]:
        return []
    return [f"the page scrolls sideways ({width} px wide): {web.page.evaluate(WIDEST)}"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_employer_pages_reflow_at_390_px(
    web: Any, make_body: Callable[..., dict[str, Any]], language: str
) -> None:
    """The dashboard (with a draft and applications), the trainees step with its live quote,
    the review and an application: no sideways scrolling, and axe finds nothing."""
    made = employer_applications(make_body)
    web.page.set_viewport_size(NARROW)
    web.sign_in_through_django("demo-employer", language)
    results: list[Result] = []

    def check(name: str) -> None:
        web.settle()
        results.append(Result(name, "390 px", web.axe(), reflow_problems(web)))

    apply = web.apply(language)
    apply.organizations()
    apply.training()
    apply.trainees(go_on=False)
    apply.wait_for_quote()
    check("trainees step, with the live quote")
    apply.next()
    check("declarations")
    apply.declarations()
    check("review")
    web.goto(page_path(language, "/employer/"))
    check("dashboard")
    web.goto(page_path(language, f"/employer/applications/{made['submitted']}/"))
    check("application")
    bad = [r for r in results if r.violations or r.problems]
    assert not bad, "\n".join(
        [f"employer pages at 390 px in {language}:", *(r.line() for r in results), ""]
        + [web.report(f"{r.page} [{r.state}]", r.violations) for r in bad if r.violations]
    )
