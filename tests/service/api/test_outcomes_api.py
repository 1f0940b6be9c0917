"""The completion report and follow-up operations of /api/v1: the employer saves (PUT), reads and
submits its report, lists and answers its follow-ups; problem+json naming each field; the
Idempotency-Key replays a write; another employer's file is 404 and the refusal audited; every
answer checked against the published OpenAPI document."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from tests.conftest import Api, api_contract
from tests.personas import EMPLOYER, OFFICER, OUTSIDER_EMPLOYER
from tests.service.grants.outcome_helpers import after_training, at, ended_file

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.completion import follow_ups as follow_up_actions
from jobgrant.service.grants.models.completion import FollowUp, FollowUpState, TraineeOutcome
from jobgrant.service.grants.models.participants import Participant

pytestmark = pytest.mark.django_db


def put(api: Api, path: str, body: Any, key: str | None = None) -> Any:
    headers = {**api.headers, **({"Idempotency-Key": key} if key else {})}
    answer = api.client.put(
        f"/api/v1{path}", data=json.dumps(body), content_type="application/json", headers=headers
    )
    api_contract().check("PUT", f"/api/v1{path}", answer)
    return answer


def body(application: Any, slots: list[Participant], **first: Any) -> dict[str, Any]:
    employer = application.employers.first().employer_id
    trainees = [
        {
            "participant": slot.pk,
            "completed": True,
            "employed_at_end": True,
            "with_this_employer": True,
            "employment_type": "part-time",
            "noc": "72410",
            "hourly_wage_before": "22.00",
            "hourly_wage_after": "25.50",
        }
        for slot in slots
    ]
    trainees[0] |= first
    ratings = [
        {"employer": employer, "item": item, "score": 5}
        for item in ("relevant", "good-investment", "easy-to-access", "timely", "met-needs")
    ]
    return {"trainees": trainees, "ratings": ratings, "feedback": "Merci."}


def test_the_employer_saves_reads_and_submits_its_report(
    as_user: Callable[[Any], Api],
) -> None:
    application, slots = ended_file()
    path = f"/applications/{application.pk}/completion-report"
    with after_training():  # tokens are taken on the day: they last hours, not months
        employer = as_user(EMPLOYER)
        assert employer.get(path).status_code == 404  # not started
        bad = put(employer, path, body(application, slots, noc="00000", completed="sometimes"))
        assert bad.status_code == 422 and bad["Content-Type"] == "application/problem+json"
        fields = {p["field"] for p in bad.json()["errors"]}
        assert {"trainees[0].noc", "trainees[0].completed"} <= fields
        assert not TraineeOutcome.objects.exists()
        saved = put(employer, path, body(application, slots), key="draft-1")
        again = put(employer, path, body(application, slots), key="draft-1")
        assert saved.status_code == again.status_code == 200
        assert again.json() == saved.json()
        draft = employer.get(path).json()
        assert draft["state"] == "draft" and draft["missing"] == []
        assert draft["trainees"][0]["hourly_wage_after"] == "25.50"
        submitted = employer.post(f"{path}/submit", key="submit-1")
        assert submitted.status_code == 200 and submitted.json()["state"] == "submitted"
        replay = employer.post(f"{path}/submit", key="submit-1")
        assert replay.status_code == 200
        twice = employer.post(f"{path}/submit", key="submit-2")
    assert twice.status_code == 409 and twice.json()["code"] == "REPORT_SUBMITTED"
    assert as_user(OFFICER).get(path).status_code == 200  # the back office reads it
    assert FollowUp.objects.count() == 8


def test_another_employer_gets_404_and_the_refusal_is_audited(
    as_user: Callable[[Any], Api],
) -> None:
    application, slots = ended_file()
    path = f"/applications/{application.pk}/completion-report"
    with after_training():
        outsider = as_user(OUTSIDER_EMPLOYER)
        assert put(outsider, path, body(application, slots)).status_code == 404
        assert outsider.get(path).status_code == 404
        assert outsider.get(f"/applications/{application.pk}/follow-ups").status_code == 404
    refused = AuditEntry.objects.filter(
        actor=OUTSIDER_EMPLOYER.username, action__startswith="refused"
    )
    assert refused.count() >= 3


def test_the_employer_lists_and_answers_its_follow_ups(as_user: Callable[[Any], Api]) -> None:
    application, slots = ended_file()
    with after_training():
        employer = as_user(EMPLOYER)
        put(employer, f"/applications/{application.pk}/completion-report", body(application, slots))
        employer.post(f"/applications/{application.pk}/completion-report/submit")
    listed = as_user(EMPLOYER).get(f"/applications/{application.pk}/follow-ups")
    assert listed.status_code == 200 and len(listed.json()["items"]) == 8
    path = f"/applications/{application.pk}/follow-ups/3"
    with at(FollowUp.objects.first().due_on):
        follow_up_actions.send_due_follow_ups()
        employer = as_user(EMPLOYER)
        bad = employer.post(path, {"answers": [{"participant": slots[0].pk, "employed": True}]})
        assert bad.status_code == 422
        assert {p["field"] for p in bad.json()["errors"]} == {
            f"{slots[0].pk}.same_employer",
            f"{slots[0].pk}.weekly_hours",
        }
        answers = {
            "answers": [
                {
                    "participant": slots[0].pk,
                    "employed": True,
                    "same_employer": True,
                    "weekly_hours": 40,
                    "hourly_wage": "26.00",
                },
                {"participant": slots[1].pk, "employed": False},
            ]
        }
        done = employer.post(path, answers, key="fu-3")
        replay = employer.post(path, answers, key="fu-3")
        again = employer.post(path, answers, key="fu-3b")
    assert done.status_code == replay.status_code == 200
    assert [item["state"] for item in done.json()["items"]] == ["responded", "responded"]
    assert again.status_code == 409 and again.json()["code"] == "NO_FOLLOW_UP"
    rows = FollowUp.objects.filter(respondent="employer", milestone=3)
    assert set(rows.values_list("state", flat=True)) == {FollowUpState.RESPONDED}
    assert (
        as_user(EMPLOYER).post(f"/applications/{application.pk}/follow-ups/6", answers).status_code
        == 404
    )
