"""Reminders to trainees who have not answered: a periodic job of `jobgrant worker`
(service/schedule.py), once per reminder date, each with a fresh link.

Every trainee answers by the participants-by date (training start − a dated parameter); those
still invited are reminded on the two reminder dates before it (dated parameters too), read at
the application date under the application's policy, as the rules kernel reads every parameter.
"""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.utils import timezone

from jobgrant.service.grants.models.applications import State
from jobgrant.service.grants.models.participants import Participant, ParticipantState
from jobgrant.service.grants.participants.access import participant_dates
from jobgrant.service.grants.participants.actions import audit_slot, send_link
from jobgrant.service.notifications.models import Message


def reminder_due(participant: Participant, today: dt.date) -> dt.date | None:
    """The latest reminder date reached, if the slot still waits and its invitation predates it
    (a trainee invited after a reminder date is not reminded for it)."""
    due, reminders = participant_dates(participant.application)
    if due is None or today > due:
        return None
    invited = timezone.localtime(participant.invited_at).date()
    reached = [day for day in reminders if invited < day <= today]
    return max(reached) if reached else None


def send_participant_reminders() -> int:
    """Remind every invited trainee who has not answered, once per reminder date; a fresh link
    comes with each reminder. Idempotent, and safe in two workers at once (the slot's row lock
    and the outbox's one message per milestone)."""
    today, sent = timezone.localdate(), 0
    waiting = Participant.objects.filter(
        state=ParticipantState.INVITED, application__state=State.APPROVED
    ).select_related("application")
    for participant in waiting.order_by("id"):
        milestone = reminder_due(participant, today)
        if milestone is not None:
            sent += _remind(participant.pk, milestone)
    return sent


def _remind(participant_id: int, milestone: dt.date) -> int:
    with transaction.atomic():
        participant = (
            Participant.objects.select_for_update()
            .select_related("application")
            .get(pk=participant_id)
        )
        if participant.state != ParticipantState.INVITED:
            return 0
        name = f"reminder-{milestone.isoformat()}"
        if _already_reminded(participant, name):
            return 0
        invitation = send_link(participant, "participant_reminder", name)
        audit_slot(
            "worker",
            participant,
            "remind",
            milestone=milestone.isoformat(),
            expires_at=invitation.expires_at.isoformat(),
        )
    return 1


def _already_reminded(participant: Participant, milestone: str) -> bool:
    return Message.objects.filter(
        kind="participant_reminder",
        subject_type=participant._meta.label_lower,
        subject_id=str(participant.pk),
        milestone__startswith=milestone,
    ).exists()
