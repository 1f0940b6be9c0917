"""Messages write their dates as the pages do ("January 11, 2027", "11 janvier 2027"), in the
recipient's language and in Ottawa time, never as ISO dates or UTC days."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from tests.participants import approved_application
from tests.personas import APPLICANT, EMPLOYER

from jobgrant.service.grants.participants import actions as participant_actions
from jobgrant.service.notifications.models import Message
from jobgrant.service.people import organizations

pytestmark = pytest.mark.django_db
#: 10 p.m. in Ottawa on November 28: already November 29 in UTC.
EVENING = dt.datetime(2026, 11, 29, 3, 0, tzinfo=dt.UTC)


def test_a_trainee_invitation_writes_its_dates_in_french_in_words(demo: None) -> None:
    application = approved_application()
    body = {"trainee": 0, "email": "trainee0@example.com", "language": "fr"}
    participant_actions.invite_participant(EMPLOYER.get(), application, body)
    message = Message.objects.get(kind="participant_invitation")
    assert "à compter du 11 janvier 2027" in message.body
    assert "2027-01-11" not in message.body
    invitation = application.participants.get().invitations.get()
    expires = invitation.expires_at.astimezone(dt.timezone(dt.timedelta(hours=-5))).date()
    assert f"{expires.day} " in message.body
    assert expires.isoformat() not in message.body


def test_a_colleague_invitation_expires_on_the_ottawa_day_in_words(demo: None) -> None:
    with time_machine.travel(EVENING):
        organizations.invite_colleague(
            EMPLOYER.get(),
            APPLICANT.get(),
            {"email": "new.colleague@example.com", "role": "member", "language": "en"},
        )
    message = Message.objects.get(kind="organization_invitation")
    expires = (EVENING + dt.timedelta(days=organizations.INVITATION_DAYS)).astimezone(
        dt.timezone(dt.timedelta(hours=-5))
    )
    assert f"It expires on {expires:%B} {expires.day}, {expires.year}." in message.body
    assert "-12-" not in message.body and "-11-" not in message.body
