"""The participants through the API: invite, list, re-send, revoke; every answer checked against
the OpenAPI document; the token never answered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tests.participants import answers, approved_application, latest_link
from tests.personas import AUDITOR, EMPLOYER, OFFICER, OUTSIDER_EMPLOYER

from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.grants.participants import actions as participant_actions
from jobgrant.service.notifications.models import Message

pytestmark = pytest.mark.django_db
Client = Callable[[Any], Any]
INVITE = {"trainee": 1, "email": "lea@example.com", "language": "fr"}


def test_an_employer_invites_a_trainee_and_the_answer_never_carries_the_link(
    as_user: Client,
) -> None:
    application = approved_application()
    answer = as_user(EMPLOYER).post(f"/applications/{application.pk}/participants", INVITE)
    assert answer.status_code == 201, answer.content
    created = answer.json()
    assert (created["trainee"], created["state"], created["language"]) == (1, "invited", "fr")
    assert created["masked_sin"] is None and created["funded_elsewhere"] is None
    _, token = latest_link(Participant.objects.get(pk=created["id"]))
    assert token not in answer.content.decode()
    listed = as_user(EMPLOYER).get(f"/applications/{application.pk}/participants")
    assert listed.status_code == 200
    assert listed.json()["participants_by"] == "2027-01-06"
    assert [p["state"] for p in listed.json()["items"]] == ["invited"]
    assert token not in listed.content.decode()


def test_an_invitation_with_an_idempotency_key_is_made_once(as_user: Client) -> None:
    application = approved_application()
    client = as_user(EMPLOYER)
    path = f"/applications/{application.pk}/participants"
    first = client.post(path, INVITE, key="invite-lea")
    again = client.post(path, INVITE, key="invite-lea")
    assert first.status_code == again.status_code == 201
    assert first.content == again.content
    assert Participant.objects.count() == 1
    assert Message.objects.filter(kind="participant_invitation").count() == 1


def test_bad_invitations_are_problems_naming_the_field(as_user: Client) -> None:
    application = approved_application()
    path = f"/applications/{application.pk}/participants"
    bad = as_user(EMPLOYER).post(path, {"trainee": "first", "email": "x", "language": "en"})
    assert bad.status_code == 422
    assert bad["Content-Type"] == "application/problem+json"
    assert {e["field"] for e in bad.json()["errors"]} == {"trainee", "email"}
    assert as_user(EMPLOYER).post(path, "[1]").status_code == 422
    assert as_user(EMPLOYER).post(path, "{").status_code == 400
    assert Participant.objects.count() == 0


def test_only_the_applicant_invites_and_outsiders_learn_nothing(as_user: Client) -> None:
    application = approved_application()
    path = f"/applications/{application.pk}/participants"
    assert as_user(OFFICER).post(path, INVITE).status_code == 403
    assert as_user(OUTSIDER_EMPLOYER).post(path, INVITE).status_code == 404
    assert as_user(OUTSIDER_EMPLOYER).get(path).status_code == 404
    assert as_user(EMPLOYER).post("/applications/999999/participants", INVITE).status_code == 404


def test_resend_and_revoke_change_the_slot_and_kill_the_old_link(as_user: Client) -> None:
    application = approved_application()
    created = as_user(EMPLOYER).post(f"/applications/{application.pk}/participants", INVITE)
    slot = Participant.objects.get(pk=created.json()["id"])
    _, old = latest_link(slot)
    resent = as_user(EMPLOYER).post(f"/participants/{slot.pk}/resend")
    assert resent.status_code == 200 and resent.json()["state"] == "invited"
    _, new = latest_link(slot)
    assert new != old
    assert as_user(OUTSIDER_EMPLOYER).post(f"/participants/{slot.pk}/revoke").status_code == 404
    revoked = as_user(EMPLOYER).post(f"/participants/{slot.pk}/revoke")
    assert revoked.status_code == 200 and revoked.json()["state"] == "withdrawn"
    again = as_user(EMPLOYER).post(f"/participants/{slot.pk}/resend")
    assert again.status_code == 409 and again.json()["state"] == "withdrawn"


def test_the_back_office_sees_the_money_got_elsewhere_and_the_employer_does_not(
    as_user: Client,
) -> None:
    for _ in range(2):
        application = approved_application()
        slot = participant_actions.invite_participant(
            EMPLOYER.get(), application, {"trainee": 0, "email": "a@example.com", "language": "en"}
        )
        participant_actions.submit_participant_form(latest_link(slot)[1], answers())
    path = f"/applications/{application.pk}/participants"
    officer = as_user(OFFICER).get(path).json()["items"][0]
    assert officer["funded_elsewhere"] == "10000.00"
    assert officer["masked_sin"] == "***-***-544"
    assert as_user(AUDITOR).get(path).json()["items"][0]["funded_elsewhere"] == "10000.00"
    employer = as_user(EMPLOYER).get(path).json()["items"][0]
    assert employer["funded_elsewhere"] is None and employer["state"] == "confirmed"
