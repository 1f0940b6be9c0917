"""Trainees of an approved application: invite them, follow their slots, re-send or revoke a link.

The link's token is never answered: the invitation email is the only place it goes, so that a
client (or a log of the API's answers) never holds a way into a trainee's form. The SIN is shown
masked at most; the money a trainee got in other files is shown to the back office only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from ninja import Path, Router

from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.api.bodies import json_object
from jobgrant.service.api.idempotency import idempotent
from jobgrant.service.api.openapi import problems, read_by_hand
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import (
    MAX_DATABASE_ID,
    EmptyBody,
    InvitationBody,
    ParticipantList,
    ParticipantOut,
)
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.grants.participants import actions as participant_actions
from jobgrant.service.grants.participants.access import (
    get_visible_participant,
    participants_by,
    participants_of,
)

router = Router(tags=["participants"], auth=bearer)
ApplicationId = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]
ParticipantId = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]
BACK_OFFICE = (Role.OFFICER, Role.AUDITOR, Role.ADMIN, Role.FINANCE)


def participant_json(participant: Participant, user: User) -> dict[str, Any]:
    live = participant.invitations.filter(used_at=None, revoked_at=None).order_by("-id").first()
    data: dict[str, Any] = {
        "id": participant.pk,
        "application": participant.application_id,
        "trainee": participant.position,
        "state": participant.state,
        "email": participant.email,
        "language": participant.language,
        "invited_at": participant.invited_at.isoformat(),
        "submitted_at": participant.submitted_at.isoformat() if participant.submitted_at else None,
        "link_expires_at": live.expires_at.isoformat() if live else None,
        "link_expired": bool(live and live.expires_at <= timezone.now()),
        "ineligible_reason": participant.decided_reason or None,
        "masked_sin": participant.masked_sin or None,
        "funded_elsewhere": None,
    }
    if user.role in BACK_OFFICE:
        data["funded_elsewhere"] = format_amount(participant.funded_elsewhere_cents)
    return data


@router.post(
    "/applications/{application_id}/participants",
    response={201: ParticipantOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(InvitationBody),
)
def invite_participant(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Invite one trainee of an approved application: their link goes by email only (the answer
    never carries it)."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        application = access.get_visible_application(user, application_id, without=("explanation",))
        created = participant_actions.invite_participant(user, application, body)
        return json_response(participant_json(created, user), status=201)

    return idempotent(request, user, work)


@router.get(
    "/applications/{application_id}/participants",
    response={200: ParticipantList, **problems(401, 404, 422)},
)
def list_participants(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Every trainee slot of an application, with its state (the SIN masked at most)."""
    user = caller(request)
    application = access.get_visible_application(user, application_id, without=("explanation",))
    due = participants_by(application)
    return json_response(
        {
            "application": application.pk,
            "participants_by": due.isoformat() if due else None,
            "items": [participant_json(p, user) for p in participants_of(application)],
        }
    )


Change = Callable[[User, Participant], Participant]
CHANGE_ANSWERS = {200: ParticipantOut, **problems(400, 401, 403, 404, 409, 422)}


@router.post(
    "/participants/{participant_id}/resend",
    response=CHANGE_ANSWERS,
    openapi_extra=read_by_hand(EmptyBody, required=False),
)
def resend_participant(request: HttpRequest, participant_id: ParticipantId) -> HttpResponse:
    """Send a new link to a trainee who has not answered (the old link stops working)."""
    return _change(request, participant_id, participant_actions.resend_invitation)


@router.post(
    "/participants/{participant_id}/revoke",
    response=CHANGE_ANSWERS,
    openapi_extra=read_by_hand(EmptyBody, required=False),
)
def revoke_participant(request: HttpRequest, participant_id: ParticipantId) -> HttpResponse:
    """Withdraw the trainee's slot: its link stops working."""
    return _change(request, participant_id, participant_actions.revoke_participant)


def _change(request: HttpRequest, participant_id: int, change: Change) -> HttpResponse:
    """Change the trainee's slot once per Idempotency-Key; the answer is the slot."""
    user = caller(request)

    def work() -> HttpResponse:
        json_object(request)  # no field is read, but the body must be an object if sent
        changed = change(user, get_visible_participant(user, participant_id))
        return json_response(participant_json(changed, user))

    return idempotent(request, user, work)
