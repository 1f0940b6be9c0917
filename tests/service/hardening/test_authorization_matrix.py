"""T8: every case of the authorization matrix (authorization_matrix.py), over the API and the
pages, checked against the table: at least 1,000 cases, 100% agreement; and every refusal a
signed-in persona meets writes exactly one audit entry.

The objects are made once, in the states the actions need; each case runs in a savepoint that is
rolled back, so an allowed action changes nothing the next case sees.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
import tests.service.hardening.authorization_matrix as matrix
from django.db import transaction
from django.test import Client
from tests.addresses import page_path
from tests.conftest import application_body, token_for
from tests.personas import (
    ANALYST,
    APPLICANT,
    AUDITOR,
    EMPLOYER,
    FEDERAL_OFFICER,
    FINANCE,
    OFFICER,
    OTHER_JURISDICTION_OFFICER,
    OUTSIDER_EMPLOYER,
    PARTNER,
    PARTNER_EMPLOYER,
    PROGRAM_MANAGER,
    SECOND_OFFICER,
    Persona,
)
from tests.service.grants.agreement_helpers import ALL_CONFIRMED

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.agreements import actions as agreement_actions
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.applications import assignment as assignment_actions
from jobgrant.service.grants.changes import actions as change_actions
from jobgrant.service.grants.intakes import actions as intake_actions
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.applications import (
    Application,
    Intake,
    IntakeState,
    Program,
    Selection,
    Stream,
)
from jobgrant.service.grants.ranking.actions import rank_intake, request_override
from jobgrant.service.registry.models import Employer, Verification

pytestmark = pytest.mark.django_db
ASSIGNED_OFFICER = Persona("assigned-officer-on", Role.OFFICER, jurisdiction="ON")
AFFILIATED_OFFICER = Persona(
    "affiliated-officer-on", Role.OFFICER, jurisdiction="ON", organizations=(APPLICANT,)
)
SIGNED_IN = (
    EMPLOYER,
    PARTNER_EMPLOYER,
    OUTSIDER_EMPLOYER,
    OFFICER,
    SECOND_OFFICER,
    ASSIGNED_OFFICER,
    AFFILIATED_OFFICER,
    OTHER_JURISDICTION_OFFICER,
    FEDERAL_OFFICER,
    FINANCE,
    ANALYST,
    AUDITOR,
    PROGRAM_MANAGER,
)
PERSONAS: tuple[Persona | None, ...] = (*SIGNED_IN, None)
LANGUAGES = ("en", "fr")


@dataclass(frozen=True)
class Fixture:
    application: int
    federal: bool = False
    recommended_by: str = ""
    assigned_to: str = ""
    change: int | None = None
    organization: int | None = None
    unverified: bool = False  # the applicant's organization made unverified for the case
    intake: int | None = None  # a scheduled intake of Ontario's ranked stream, or a ranked one's
    stream: int | None = None
    override: int | None = None


def relationship(persona: Persona | None, fixture: Fixture) -> str:
    """The persona's relationship to the object, in the table's words."""
    if persona is None:
        return matrix.ANONYMOUS
    by_role = {Role.FINANCE: matrix.FINANCE, Role.ANALYST: matrix.ANALYST}
    if persona.role in by_role:
        return by_role[persona.role]
    if persona.role == Role.AUDITOR:
        return matrix.AUDITOR
    if persona.role == Role.PROGRAM_MANAGER:
        return matrix.PROGRAM_MANAGER
    if persona.role == Role.EMPLOYER:
        names = {organization.name for organization in persona.organizations}
        if APPLICANT.name in names:
            return matrix.OWN
        return matrix.PARTNER if PARTNER.name in names else matrix.OTHER
    if persona.jurisdiction not in ("", "ON"):
        return matrix.OTHER_JURISDICTION
    if persona.federal != fixture.federal:
        return matrix.FEDERAL_ON_PROVINCIAL if persona.federal else matrix.PROVINCIAL_ON_FEDERAL
    if persona.organizations:
        return matrix.AFFILIATED
    if persona.username == fixture.recommended_by:
        return matrix.RECOMMENDER
    if persona.username == fixture.assigned_to:
        return matrix.ASSIGNED
    return matrix.IN_SCOPE


def _consortium() -> dict[str, Any]:
    body = application_body()
    body["employers"].append({"id": "harbour", "business_number": PARTNER.business_number})
    body["trainees"].append({**body["trainees"][0], "employer_id": "harbour"})
    return body


def make_fixtures() -> dict[str, Fixture]:
    """The objects, each in the state its actions need (provincial unless `federal`)."""
    employer, recommender = EMPLOYER.get(), SECOND_OFFICER.get()

    def new(*, federal: bool = False) -> Application:
        application = actions.create_application(employer, _consortium())
        if federal:
            Application.objects.filter(pk=application.pk).update(delivery="federal-direct")
            application.refresh_from_db()
        return application

    def submitted(*, federal: bool = False) -> Application:
        application = new(federal=federal)
        actions.submit_application(employer, application)
        return application

    def recommended() -> Application:
        application = submitted()
        actions.recommend_application(recommender, application)
        return application

    def approved() -> Application:
        application = recommended()
        actions.approve_application(OFFICER.get(), application)
        return application

    def accepted() -> Application:
        application = approved()
        agreement = Agreement.objects.get(application=application)
        agreement_actions.accept_agreement(employer, agreement, "Pat Birch", "Owner", ALL_CONFIRMED)
        return application

    open_submission = submitted()
    assigned = ASSIGNED_OFFICER.get()
    assignment_actions.assign_application(assigned, open_submission, assigned)
    with_change = accepted()
    change = change_actions.request_change(
        employer,
        Agreement.objects.get(application=with_change),
        "provider",
        {"provider": {"name": "Niagara College", "third_party": True}},
    )
    by = SECOND_OFFICER.username
    return {
        "draft": Fixture(new().pk),
        "submitted": Fixture(open_submission.pk, assigned_to=assigned.username),
        "recommended": Fixture(recommended().pk, recommended_by=by),
        "approved": Fixture(approved().pk, recommended_by=by),
        "accepted": Fixture(accepted().pk, recommended_by=by),
        "change": Fixture(with_change.pk, recommended_by=by, change=change.pk),
        "federal draft": Fixture(new(federal=True).pk, federal=True),
        "federal submitted": Fixture(submitted(federal=True).pk, federal=True),
        "unverified draft": Fixture(new().pk, unverified=True),
        "unverified organization": Fixture(
            new().pk, organization=APPLICANT.get().pk, unverified=True
        ),
        "intake": _intake_fixture(new().pk),
        **_ranked(submitted, by),
    }


def _ranked(submitted: Any, by: str) -> dict[str, Fixture]:
    """Two recommended files of a closed, ranked intake of their own (a second Ontario stream),
    both below its cut-off; the second with an override asked for by their recommender; and a
    later intake of that stream, closed and not ranked yet, with one submitted file."""
    program = Program.objects.get(jurisdiction="ON")
    stream = Stream.objects.create(
        program=program, name_en="Ranked", name_fr="Classé", selection="ranked", scoring="on-2017"
    )
    intake = Intake.objects.create(
        stream=stream,
        opens_on=dt.date(2026, 4, 1),
        closes_on=dt.date(2026, 11, 1),
        state=IntakeState.CLOSED,
        federal_budget_cents=1,
        provincial_budget_cents=1,
    )
    files = [submitted(), submitted()]
    recommender = User.objects.get(username=by)
    for application in files:
        Application.objects.filter(pk=application.pk).update(intake=intake, stream=stream)
        application.refresh_from_db()
        actions.recommend_application(recommender, application)
    rank_intake(intake)
    override = request_override(recommender, files[1], "approve", "The plant closes in March.")
    # A later intake of the stream, closed with one file, that the worker has not ranked yet.
    waiting = Intake.objects.create(
        stream=stream,
        opens_on=dt.date(2026, 11, 2),
        closes_on=dt.date(2026, 11, 20),
        state=IntakeState.CLOSED,
    )
    waiting_file = submitted()
    Application.objects.filter(pk=waiting_file.pk).update(intake=waiting, stream=stream)
    return {
        "ranked": Fixture(files[0].pk, recommended_by=by, intake=intake.pk),
        "override": Fixture(files[1].pk, recommended_by=by, intake=intake.pk, override=override.pk),
        "waiting intake": Fixture(waiting_file.pk, intake=waiting.pk, stream=stream.pk),
    }


def _intake_fixture(application: int) -> Fixture:
    """A scheduled intake of Ontario's ranked stream, made by its program manager."""
    stream = Stream.objects.get(program__jurisdiction="ON", selection=Selection.RANKED)
    body = {**matrix.INTAKE_BODY, "opens_on": "2027-01-04", "closes_on": "2027-01-29"}
    intake = intake_actions.create_intake(PROGRAM_MANAGER.get(), stream, body)
    return Fixture(application, intake=intake.pk, stream=stream.pk)


@dataclass(frozen=True)
class Case:
    persona: Persona | None
    action: matrix.Action
    object_name: str
    language: str = "en"

    def __str__(self) -> str:
        who = self.persona.username if self.persona else "anonymous"
        where = f" ({self.language})" if self.action.channel == "page" else ""
        return f"{who} · {self.action.name}{where} · {self.object_name}"


def cases() -> list[Case]:
    made = []
    for action in matrix.ACTIONS:
        languages = LANGUAGES if action.channel == "page" else ("en",)
        for object_name in action.objects:
            for language in languages:
                made += [Case(p, action, object_name, language) for p in PERSONAS]
    return made


class Callers:
    """One API token and one signed-in browser per persona, made before any case runs."""

    def __init__(self) -> None:
        self.tokens = {p.username: token_for(p) for p in SIGNED_IN}
        self.browsers: dict[str, Client] = {}
        for persona in SIGNED_IN:
            browser = Client(raise_request_exception=False)
            browser.force_login(persona.get())
            self.browsers[persona.username] = browser

    def ask(self, case: Case, fixture: Fixture) -> tuple[int, Any]:
        action, persona = case.action, case.persona
        path = action.path.format(
            application=fixture.application,
            change=fixture.change,
            organization=fixture.organization,
            intake=fixture.intake,
            stream=fixture.stream,
            override=fixture.override,
        )
        if fixture.unverified:  # inside the case's savepoint: rolled back after it
            Employer.objects.filter(pk=APPLICANT.get().pk).update(
                verification=Verification.UNVERIFIED
            )
        if action.channel == "page":
            browser = self.browsers[persona.username] if persona else Client()
            answer = getattr(browser, action.method)(page_path(case.language, path))
            return answer.status_code, answer
        headers = {"Authorization": f"Bearer {self.tokens[persona.username]}"} if persona else {}
        client = Client(raise_request_exception=False)
        url = "/api/v1" + path + ("?limit=100" if action.listing else "")
        if action.method in ("post", "put"):
            answer = getattr(client, action.method)(
                url, json.dumps(action.body or {}), content_type="application/json", headers=headers
            )
        else:
            answer = client.get(url, headers=headers)
        return answer.status_code, answer


def outcome(case: Case, fixture: Fixture, status: int, answer: Any) -> str | int:
    """What the service did, in the table's terms."""
    if case.action.listing and status == 200:
        listed = {item["id"] for item in answer.json()["items"]}
        return matrix.ALLOWED if fixture.application in listed else 404
    return matrix.ALLOWED if 200 <= status < 300 else status


def refusals() -> int:
    return AuditEntry.objects.filter(action__startswith="refused.").count()


def test_the_matrix_has_at_least_a_thousand_cases_over_api_and_pages() -> None:
    made = cases()
    channels = Counter(case.action.channel for case in made)
    assert len(made) >= 1000, len(made)
    assert channels["api"] and channels["page"]
    relationships = {
        relationship(c.persona, Fixture(0, federal=c.object_name.startswith("f"))) for c in made
    }
    assert set(matrix.RELATIONSHIPS) - {matrix.RECOMMENDER, matrix.ASSIGNED} <= relationships


def test_every_case_agrees_with_the_table(demo: None, record_property: Any) -> None:
    from tests.personas import _create

    for persona in (ASSIGNED_OFFICER, AFFILIATED_OFFICER):
        if not User.objects.filter(username=persona.username).exists():
            _create(persona)
    fixtures = make_fixtures()
    callers = Callers()
    disagreements, unaudited, checked = [], [], 0
    seen_relationships: Counter[str] = Counter()
    for case in cases():
        fixture = fixtures[case.object_name]
        related = relationship(case.persona, fixture)
        seen_relationships[related] += 1
        expected = case.action.expected(related)
        with transaction.atomic():
            before = refusals()
            status, answer = callers.ask(case, fixture)
            got = outcome(case, fixture, status, answer)
            written = refusals() - before
            transaction.set_rollback(True)
        checked += 1
        if got != expected:
            disagreements.append(f"{case} [{related}]: expected {expected}, got {got}")
        elif expected in (403, 404) and case.persona and not case.action.listing and written != 1:
            unaudited.append(f"{case} [{related}]: {expected} with {written} audit entries")
    record_property("t8_cases", checked)
    record_property("t8_relationships", dict(seen_relationships))
    assert checked >= 1000
    assert disagreements == [], f"{len(disagreements)} of {checked}:\n" + "\n".join(disagreements)
    assert unaudited == [], "\n".join(unaudited)
