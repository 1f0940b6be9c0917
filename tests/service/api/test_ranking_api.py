"""The ranking through the API: the ranks with their reasons, an override asked for, refused
without a sign-off (403, audited), signed off, and the report of decisions out of rank; every
answer checked against the OpenAPI document."""

from __future__ import annotations

import pytest
from tests.personas import ANALYST, AUDITOR, EMPLOYER, OFFICER, PROGRAM_MANAGER, SECOND_OFFICER
from tests.service.grants.ranking_helpers import (
    ORDER,
    SCORES,
    closed,
    ranked_stream,
    submitted_files,
)

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.ranking.actions import rank_intake

pytestmark = pytest.mark.django_db
REASON = "The employer's plant closes in March: the training must start now."


@pytest.fixture
def files(demo: None):
    intake = ranked_stream()
    submitted = submitted_files()
    rank_intake(closed(intake))
    for application in submitted.values():
        actions.recommend_application(OFFICER.get(), application)
    return submitted


def test_the_ranking_lists_the_files_in_order_with_their_scores(as_user, files) -> None:
    intake = files["A"].intake_id
    answer = as_user(AUDITOR).get(f"/intakes/{intake}/ranking")
    assert answer.status_code == 200
    ranks = answer.json()["ranks"]
    assert [r["application"] for r in ranks] == [files[n].pk for n in ORDER]
    assert [r["score"] for r in ranks] == [SCORES[n] for n in ORDER]
    assert ranks[-1]["within_budget"] is False and ranks[-1]["federal_running"] == "15000.00"
    assert as_user(EMPLOYER).get(f"/intakes/{intake}/ranking").status_code == 404
    assert as_user(ANALYST).get(f"/intakes/{intake}/ranking").status_code == 404


def test_an_override_through_the_api_from_request_to_report(as_user, files) -> None:
    pk = files["D"].pk
    refused = as_user(SECOND_OFFICER).post(f"/applications/{pk}/approve", key="a1")
    assert refused.status_code == 403
    assert refused.json()["code"] == "OUT_OF_RANK_NOT_SIGNED_OFF"
    assert AuditEntry.objects.filter(action="refused.approve_application").exists()
    asked = as_user(OFFICER).post(f"/applications/{pk}/override", {"reason": REASON}, key="o1")
    assert asked.status_code == 201 and asked.json()["decision"] == "approve"
    override = asked.json()["id"]
    by_officer = as_user(SECOND_OFFICER).post(f"/overrides/{override}/sign-off", key="s0")
    assert by_officer.status_code == 403
    signed = as_user(PROGRAM_MANAGER).post(f"/overrides/{override}/sign-off", key="s1")
    assert signed.status_code == 200 and signed.json()["state"] == "signed_off"
    approved = as_user(SECOND_OFFICER).post(f"/applications/{pk}/approve", key="a2")
    assert approved.status_code == 200, approved.content
    report = as_user(AUDITOR).get(f"/intakes/{files['D'].intake_id}/out-of-rank").json()
    assert [
        (r["application"], r["reason"], r["requested_by"], r["signed_off_by"]) for r in report
    ] == [(pk, REASON, OFFICER.username, PROGRAM_MANAGER.username)]


def test_an_override_without_a_reason_is_a_422_naming_the_field(as_user, files) -> None:
    answer = as_user(OFFICER).post(f"/applications/{files['D'].pk}/override", {}, key="o2")
    assert answer.status_code == 422
    assert answer.json()["errors"][0]["field"] == "reason"
