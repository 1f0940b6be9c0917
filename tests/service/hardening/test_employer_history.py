"""A security finding: the API showed employers the officers' usernames and the internal notes they
keep with their decisions. Reproduced first; now an employer reads a role and the notes written for
them (the denial's reason), and staff read everything as before."""

from __future__ import annotations

import json

import pytest
from tests.personas import EMPLOYER, OFFICER, SECOND_OFFICER
from tests.service.grants.change_helpers import accepted

from jobgrant.service.grants.applications import actions

pytestmark = pytest.mark.django_db
INTERNAL = "Internal: checked the tuition against the college's list."
STAFF = (OFFICER.username, SECOND_OFFICER.username)


def test_an_employer_reads_roles_not_the_officers_and_no_internal_note(as_user, make_body) -> None:
    employer = EMPLOYER.get()
    application = actions.create_application(employer, make_body())
    actions.submit_application(employer, application)
    actions.recommend_application(OFFICER.get(), application, INTERNAL)
    actions.approve_application(SECOND_OFFICER.get(), application, INTERNAL + " Approved.")

    for reader in (EMPLOYER,):
        answer = as_user(reader).get(f"/applications/{application.pk}")
        assert answer.status_code == 200
        text = answer.content.decode()
        assert not any(name in text for name in STAFF), reader.username
        assert "Internal:" not in text
        history = answer.json()["history"]
        assert [entry["by"] for entry in history] == ["employer", "employer", "officer", "officer"]

    staff = as_user(OFFICER).get(f"/applications/{application.pk}").json()["history"]
    assert [entry["by"] for entry in staff][2:] == list(STAFF)
    assert staff[2]["note"] == INTERNAL


def test_an_employer_reads_the_reason_for_a_denial(as_user, make_body) -> None:
    employer = EMPLOYER.get()
    application = actions.create_application(employer, make_body())
    actions.submit_application(employer, application)
    actions.deny_application(OFFICER.get(), application, "The training is not eligible.")
    history = as_user(EMPLOYER).get(f"/applications/{application.pk}").json()["history"]
    assert history[-1] == {**history[-1], "by": "officer", "note": "The training is not eligible."}


def test_a_change_request_names_no_officer_to_the_employer(as_user) -> None:
    agreement = accepted()
    provider = {"kind": "provider", "provider": {"name": "Niagara College", "third_party": True}}
    made = as_user(EMPLOYER).post(
        f"/applications/{agreement.application_id}/change-requests", provider, key="p"
    )
    assert made.status_code == 201, made.content
    change = made.json()["id"]
    as_user(OFFICER).post(f"/change-requests/{change}/deny", {"reason": "Too late."}, key="d")
    seen = as_user(EMPLOYER).get(f"/change-requests/{change}").json()
    assert (seen["requested_by"], seen["decided_by"], seen["reason"]) == (
        EMPLOYER.username,
        "officer",
        "Too late.",
    )
    assert OFFICER.username not in json.dumps(seen)
    assert as_user(OFFICER).get(f"/change-requests/{change}").json()["decided_by"] == (
        OFFICER.username
    )
