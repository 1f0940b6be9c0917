"""A security finding: notes and denial reasons lay outside the hash chain, and could be edited in
the database without `jobgrant audit verify` noticing. Now each is bound to its chained entry (its
SHA-256, or the reason itself): an edit is named, by the command too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.personas import EMPLOYER, OFFICER, SECOND_OFFICER
from tests.service.audit.test_audit_command import database_url
from tests.service.grants.change_helpers import accepted

from jobgrant.service.audit.anchors import mismatches
from jobgrant.service.audit.chain import verify
from jobgrant.service.grants.agreements import actions as agreement_actions
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.changes import actions as change_actions
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.applications import Application, StateChange
from jobgrant.service.grants.models.changes import ChangeRequest

NOTE = "Checked the tuition against the college's published fees."


def decided(make_body) -> Application:
    employer = EMPLOYER.get()
    application = actions.create_application(employer, make_body())
    actions.submit_application(employer, application)
    actions.recommend_application(OFFICER.get(), application, NOTE)
    actions.approve_application(SECOND_OFFICER.get(), application, "Approved as recommended.")
    return application


def denied(make_body) -> Application:
    employer = EMPLOYER.get()
    application = actions.create_application(employer, make_body())
    actions.submit_application(employer, application)
    actions.deny_application(OFFICER.get(), application, "The training is not eligible.")
    return application


@pytest.mark.django_db
def test_an_untouched_history_matches_the_chain(make_body) -> None:
    decided(make_body)
    denied(make_body)
    assert verify().ok
    assert mismatches() == []


@pytest.mark.django_db
@pytest.mark.parametrize("edit", ["reworded", "erased", "added"])
def test_an_edited_note_is_named(make_body, edit: str) -> None:
    application = decided(make_body)
    changes = StateChange.objects.filter(application=application)
    recommended = changes.get(to_state="recommended")
    submitted = changes.get(to_state="submitted")
    if edit == "reworded":
        StateChange.objects.filter(pk=recommended.pk).update(note=NOTE + " Not really.")
    elif edit == "erased":
        StateChange.objects.filter(pk=recommended.pk).update(note="")
    else:
        StateChange.objects.filter(pk=submitted.pk).update(note="Approved in advance.")
    assert verify().ok  # the chain itself is whole: the edit is outside it
    assert mismatches() == [
        f"application {application.pk}: the notes of its history do not match the audit trail "
        "(edited, added or removed)"
    ]


@pytest.mark.django_db
def test_an_edited_denial_reason_is_named(make_body) -> None:
    application = denied(make_body)
    Application.objects.filter(pk=application.pk).update(decision_reason="Eligible after all.")
    assert f"application {application.pk}: its decision reason does not match" in (
        " ".join(mismatches())
    )


@pytest.mark.django_db
def test_an_edited_change_note_and_reason_are_named() -> None:
    agreement = accepted()
    change = change_actions.request_change(
        EMPLOYER.get(),
        agreement,
        "provider",
        {"provider": {"name": "Niagara College", "third_party": True}, "note": "Closer to us."},
    )
    change_actions.deny_change(OFFICER.get(), change, "Too late in the year.")
    assert mismatches() == []
    ChangeRequest.objects.filter(pk=change.pk).update(note="Cheaper.", reason="Approved.")
    assert mismatches() == [
        f"change request {change.pk}: its note does not match the audit trail",
        f"change request {change.pk}: its decision's reason does not match the audit trail",
    ]


@pytest.mark.django_db
def test_an_edited_end_reason_is_named(make_body) -> None:
    agreement = Agreement.objects.get(application=decided(make_body))
    agreement_actions.decline_agreement(EMPLOYER.get(), agreement, "We found other funding.")
    assert mismatches() == []
    Agreement.objects.filter(pk=agreement.pk).update(end_reason="The officer told us to.")
    assert mismatches() == [
        f"agreement {agreement.pk}: its end reason does not match the audit trail"
    ]


@pytest.mark.django_db(transaction=True)
def test_the_command_fails_on_an_edited_note(demo: None, make_body) -> None:
    application = decided(make_body)

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(Path(sys.executable).with_name("jobgrant")), "audit", "verify"],
            env={**os.environ, "JOBGRANT_DATABASE_URL": database_url()},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    intact = run()
    assert intact.returncode == 0, intact.stdout + intact.stderr
    assert "notes and reasons match" in intact.stdout
    StateChange.objects.filter(application=application, to_state="recommended").update(
        note="Nothing checked."
    )
    edited = run()
    assert edited.returncode == 1
    assert f"application {application.pk}: the notes of its history do not match" in edited.stdout
