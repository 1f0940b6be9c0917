"""Assigning a file to an officer: who may take it, to whom it may go, its audit entry, and the
files that cannot be assigned."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tests.personas import (
    APPLICANT,
    EMPLOYER,
    FEDERAL_OFFICER,
    OFFICER,
    OTHER_JURISDICTION_OFFICER,
    SECOND_OFFICER,
)

from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.applications.assignment import assign_application, release_application
from jobgrant.service.grants.models.applications import Application

pytestmark = pytest.mark.django_db
Body = Callable[..., dict[str, Any]]


def made(make_body: Body) -> Application:
    """A draft of the applicant persona's (named here, whatever employer make_body defaults to)."""
    lead = [{"id": "acme", "business_number": APPLICANT.business_number}]
    return actions.create_application(EMPLOYER.get(), make_body(employers=lead))


def submitted(make_body: Body) -> Application:
    return actions.submit_application(EMPLOYER.get(), made(make_body))


def assigned_to(application: Application) -> str | None:
    found = Application.objects.select_related("assigned_to").get(pk=application.pk)
    return found.assigned_to.username if found.assigned_to else None


def refusal(work: Callable[[], object]) -> ServiceError:
    with pytest.raises(ServiceError) as raised:
        work()
    return raised.value


def test_an_officer_takes_a_file_and_the_audit_entry_names_them(make_body: Body) -> None:
    application = submitted(make_body)
    officer = OFFICER.get()
    assign_application(officer, application, officer)
    assert assigned_to(application) == OFFICER.username
    entry = AuditEntry.objects.get(action="application.assign")
    assert (entry.actor, entry.object_type, entry.object_id) == (
        OFFICER.username,
        "application",
        str(application.pk),
    )
    assert entry.summary == {"state": "submitted", "to": OFFICER.username}
    assert verify().ok


def test_a_file_can_go_to_a_colleague_and_the_entry_says_from_whom(make_body: Body) -> None:
    application = submitted(make_body)
    first, second = OFFICER.get(), SECOND_OFFICER.get()
    assign_application(first, application, first)
    assign_application(first, application, second)
    assert assigned_to(application) == SECOND_OFFICER.username
    last = AuditEntry.objects.filter(action="application.assign").order_by("id").last()
    assert last is not None
    assert last.summary == {
        "state": "submitted",
        "to": SECOND_OFFICER.username,
        "from": OFFICER.username,
    }


def test_the_officer_who_holds_a_file_releases_it(make_body: Body) -> None:
    application = submitted(make_body)
    officer = OFFICER.get()
    assign_application(officer, application, officer)
    release_application(officer, application)
    assert assigned_to(application) is None
    entry = AuditEntry.objects.get(action="application.release")
    assert entry.summary == {"state": "submitted", "from": OFFICER.username}


def test_only_the_officer_who_holds_a_file_may_release_it(make_body: Body) -> None:
    application = submitted(make_body)
    first = OFFICER.get()
    assign_application(first, application, first)
    error = refusal(lambda: release_application(SECOND_OFFICER.get(), application))
    assert (error.status, error.code) == (409, "NOT_ASSIGNED_TO_YOU")
    assert "Only the officer" in error.message_en and "Seul l'agent" in error.message_fr
    assert assigned_to(application) == OFFICER.username
    assert not AuditEntry.objects.filter(action="application.release").exists()


def test_an_officer_of_another_jurisdiction_cannot_take_the_file(make_body: Body) -> None:
    application = submitted(make_body)
    outsider = OTHER_JURISDICTION_OFFICER.get()
    error = refusal(lambda: assign_application(outsider, application, outsider))
    assert (error.status, error.code) == (403, "NOT_YOUR_FILE")
    assert assigned_to(application) is None
    refused = AuditEntry.objects.get(action="refused.assign_application")
    assert (
        refused.actor == OTHER_JURISDICTION_OFFICER.username
        and refused.summary["code"] == "NOT_YOUR_FILE"
    )


def test_a_file_cannot_go_to_an_officer_who_does_not_cover_it(make_body: Body) -> None:
    application = submitted(make_body)
    officer = OFFICER.get()
    for outsider in (FEDERAL_OFFICER.get(), EMPLOYER.get()):
        error = refusal(
            lambda outsider=outsider: assign_application(officer, application, outsider)
        )
        assert (error.status, error.code) == (403, "NOT_THEIR_FILE")
    assert assigned_to(application) is None
    assert not AuditEntry.objects.filter(action="application.assign").exists()


def test_a_conflict_of_interest_bars_taking_the_file_and_receiving_it(make_body: Body) -> None:
    application = submitted(make_body)
    tied = SECOND_OFFICER.get()
    tied.employers.add(APPLICANT.get())
    error = refusal(lambda: assign_application(tied, application, tied))
    assert error.code == "CONFLICT_OF_INTEREST"
    officer = OFFICER.get()
    error = refusal(lambda: assign_application(officer, application, tied))
    assert error.code == "NOT_THEIR_FILE"
    assert assigned_to(application) is None


def test_an_employer_cannot_assign(make_body: Body) -> None:
    application = submitted(make_body)
    error = refusal(lambda: assign_application(EMPLOYER.get(), application, OFFICER.get()))
    assert (error.status, error.code) == (403, "ROLE_NOT_ALLOWED")


@pytest.mark.parametrize("decision", ["denied", "withdrawn"])
def test_a_denied_or_withdrawn_file_cannot_be_assigned(make_body: Body, decision: str) -> None:
    application = submitted(make_body)
    first = OFFICER.get()
    if decision == "denied":
        actions.deny_application(first, application, "Out of scope.")
    else:
        actions.withdraw_application(EMPLOYER.get(), application)
    error = refusal(lambda: assign_application(first, application, first))
    assert (error.status, error.code) == (409, "NOT_ASSIGNABLE")
    assert error.extra == {"state": decision}
    assert "awaiting a decision" in error.message_en
    assert "en attente d'une décision" in error.message_fr
    assert assigned_to(application) is None


def test_an_approved_file_can_be_assigned_for_its_claims(make_body: Body) -> None:
    application = submitted(make_body)
    first, second = OFFICER.get(), SECOND_OFFICER.get()
    actions.approve_application(second, actions.recommend_application(first, application))
    assign_application(first, application, first)
    assert assigned_to(application) == first.username


def test_a_draft_cannot_be_assigned(make_body: Body) -> None:
    draft = made(make_body)
    officer = OFFICER.get()
    error = refusal(lambda: assign_application(officer, draft, officer))
    assert (error.status, error.code) == (409, "NOT_ASSIGNABLE")


def test_a_file_decided_while_assigned_can_still_be_released(make_body: Body) -> None:
    application = submitted(make_body)
    officer = OFFICER.get()
    assign_application(officer, application, officer)
    actions.deny_application(officer, application, "Out of scope.")
    release_application(officer, application)
    assert assigned_to(application) is None
