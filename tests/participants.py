"""What the participant tests share: an approved application with trainees, a trainee's answers,
and the link a trainee received, read from the outbox as the worker would send it."""

from __future__ import annotations

import re
from typing import Any

from tests.conftest import application_body
from tests.personas import EMPLOYER, OFFICER, SECOND_OFFICER

from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.notifications.models import Message

#: Valid SINs (Luhn), as a trainee types them; tests look for their digits everywhere.
SIN = "130 692 544"
OTHER_SIN = "193 456 787"
LINK = re.compile(r"https?://\S+/(en|fr)/(?:participate|participer)/([0-9a-f]{64})/")


def two_trainees() -> list[dict[str, Any]]:
    trainee = application_body()["trainees"][0]
    return [
        {**trainee, "status": "existing-employee"},
        {**trainee, "status": "unemployed"},
    ]


def approved_application(**changes: Any) -> Application:
    """An application of EMPLOYER's organization, approved by two officers of Ontario."""
    body = application_body(trainees=two_trainees(), **changes)
    application = actions.create_application(EMPLOYER.get(), body)
    actions.submit_application(EMPLOYER.get(), application)
    actions.recommend_application(OFFICER.get(), application)
    actions.approve_application(SECOND_OFFICER.get(), application)
    application.refresh_from_db()
    return application


def answers(**changes: str) -> dict[str, str]:
    """A trainee's answers as the form posts them: an employee before the training."""
    typed = {
        "given_name": "Amélie",
        "family_name": "Tremblay",
        "date_of_birth": "1990-04-12",
        "sin": SIN,
        "contact_email": "amelie@example.com",
        "phone": "905 555 0134",
        "street_address": "12 King Street East",
        "city": "Hamilton",
        "province": "ON",
        "postal_code": "L8N 1A1",
        "indigenous": "prefer-not-to-say",
        "disability": "no",
        "visible_minority": "prefer-not-to-say",
        "immigration": "no",
        "gender": "woman",
        "education": "college",
        "first_language": "french",
        "employment_status": "employed-full-time",
        "noc": "72100",
        "hourly_wage": "28.50",
        "weekly_hours": "40",
        "receiving_ei": "no",
        "consent_name": "amélie  TREMBLAY",
        "consent": "yes",
    }
    typed.update(changes)
    return typed


def latest_link(participant: Participant) -> tuple[str, str]:
    """(language, token) of the newest message that carries a link to the slot."""
    message = (
        Message.objects.filter(subject_type="grants.participant", subject_id=str(participant.pk))
        .order_by("-id")
        .first()
    )
    assert message is not None, "no message was queued for the slot"
    found = LINK.search(message.body)
    assert found is not None, message.body
    return found[1], found[2]


def digits(sin: str) -> str:
    return re.sub(r"\D", "", sin)
