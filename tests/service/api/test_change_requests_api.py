"""The change-request operations: every answer checked against the published OpenAPI document
(the Api client of tests/conftest.py), refusals as problem+json, Idempotency-Key on every POST."""

from __future__ import annotations

import pytest
from django.db.models import F
from tests import canonical
from tests.personas import EMPLOYER, OFFICER, OUTSIDER_EMPLOYER, SECOND_OFFICER
from tests.service.grants.change_helpers import trainee

from jobgrant.service.grants.models.changes import ChangeRequest
from jobgrant.service.ledger.models import BudgetAccount

pytestmark = pytest.mark.django_db

PROVIDER = {"kind": "provider", "provider": {"name": "Niagara College", "third_party": True}}


def path(agreement) -> str:
    return f"/applications/{agreement.application_id}/change-requests"


def test_new_dates_are_approved_at_once_and_a_retry_replays_the_answer(as_user) -> None:
    agreement = canonical.put("accepted").agreement
    client = as_user(EMPLOYER)
    body = {"kind": "dates", "end_date": "2027-03-31", "note": "The exam moved."}
    first = client.post(path(agreement), body, key="dates-1")
    assert first.status_code == 201, first.content
    made = first.json()
    assert made["state"] == "approved" and made["self_service"] and made["decided_by"] is None
    assert made["diff"] == [
        {
            "field": "training.end_date",
            "before": "2027-03-26",
            "after": "2027-03-31",
            "change": None,
        }
    ]
    assert made["agreement_version"] == 2 and not made["needs_acceptance"]
    assert made["figures"]["before"] == made["figures"]["after"]
    again = client.post(path(agreement), body, key="dates-1")
    assert again.content == first.content and ChangeRequest.objects.count() == 1
    read = client.get(f"/change-requests/{made['id']}")
    assert read.status_code == 200 and read.json()["note"] == "The exam moved."


def test_an_officer_approves_a_provider_change_and_a_second_decision_is_409(as_user) -> None:
    agreement = canonical.put("accepted").agreement
    made = as_user(EMPLOYER).post(path(agreement), PROVIDER).json()
    assert made["state"] == "submitted"
    approved = as_user(OFFICER).post(
        f"/change-requests/{made['id']}/approve", {"reason": "Same course."}, key="ok-1"
    )
    assert approved.status_code == 200, approved.content
    assert approved.json()["state"] == "approved" and approved.json()["needs_acceptance"]
    assert approved.json()["decided_by"] == OFFICER.username
    late = as_user(SECOND_OFFICER).post(f"/change-requests/{made['id']}/deny", {"reason": "No."})
    assert late.status_code == 409 and late["Content-Type"] == "application/problem+json"
    assert late.json()["code"] == "ILLEGAL_TRANSITION" and late.json()["detail_fr"]


def test_a_denial_needs_a_reason(as_user) -> None:
    made = as_user(EMPLOYER).post(path(canonical.put("accepted").agreement), PROVIDER).json()
    refused = as_user(OFFICER).post(f"/change-requests/{made['id']}/deny", {})
    assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "reason"
    denied = as_user(OFFICER).post(f"/change-requests/{made['id']}/deny", {"reason": "Too late."})
    assert denied.status_code == 200 and denied.json()["reason"] == "Too late."


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "kind"),
        ({"kind": "dates", "start_date": "2027-13-01"}, "start_date"),
        ({"kind": "dates", "end_date": "2027-04-01"}, "end_date"),
        ({"kind": "trainees", "add": [{"employer_id": "acme"}]}, "add[0].status"),
        ({"kind": "cost_reallocation", "moves": "all of it"}, "moves"),
        ({"kind": "provider"}, "provider"),
    ],
)
def test_bad_bodies_are_named_in_both_languages(as_user, body, field) -> None:
    answer = as_user(EMPLOYER).post(path(canonical.put("accepted").agreement), body)
    assert answer.status_code == 422, answer.content
    errors = {e["field"]: e for e in answer.json()["errors"]}
    assert field in errors and errors[field]["message_fr"] != errors[field]["message_en"]
    assert ChangeRequest.objects.count() == 0


def test_a_body_that_is_not_json_is_400(as_user) -> None:
    answer = as_user(EMPLOYER).post(path(canonical.put("accepted").agreement), "{not json")
    assert answer.status_code == 400


def test_money_added_beyond_the_budget_is_409_and_nothing_moves(as_user) -> None:
    agreement = canonical.put("accepted").agreement
    body = {"kind": "trainees", "add": [trainee(tuition="3000.00")]}
    made = as_user(EMPLOYER).post(path(agreement), body).json()
    assert made["figures"]["after"]["federal"] == "6000.00"
    BudgetAccount.objects.filter(funder="provincial", jurisdiction="ON").update(
        allocated_cents=F("committed_cents")
    )
    refused = as_user(OFFICER).post(f"/change-requests/{made['id']}/approve")
    assert refused.status_code == 409 and refused.json()["code"] == "BUDGET_EXHAUSTED"
    assert refused.json()["funder"] == "provincial"
    assert as_user(EMPLOYER).get(f"/change-requests/{made['id']}").json()["state"] == "submitted"


def test_an_application_without_an_agreement_has_nothing_to_change(as_user, make_body) -> None:
    created = as_user(EMPLOYER).post("/applications", make_body()).json()
    answer = as_user(EMPLOYER).post(f"/applications/{created['id']}/change-requests", PROVIDER)
    assert answer.status_code == 409 and answer.json()["code"] == "NO_AGREEMENT"


def test_an_outsider_learns_nothing(as_user) -> None:
    agreement = canonical.put("accepted").agreement
    made = as_user(EMPLOYER).post(path(agreement), PROVIDER).json()
    assert as_user(OUTSIDER_EMPLOYER).get(f"/change-requests/{made['id']}").status_code == 404
    assert as_user(OUTSIDER_EMPLOYER).post(path(agreement), PROVIDER).status_code == 404
    assert as_user(EMPLOYER).post(f"/change-requests/{made['id']}/approve").status_code == 403
