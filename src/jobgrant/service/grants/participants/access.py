"""Who may see which trainee slots: the application's readers (grants.access) see its slots; the
officers see the participant flags of the files they cover."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from jobgrant.rules.evaluate import default_library
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.grants.participants.refusals import link_refused
from jobgrant.service.grants.participants.workflow import LIVE


@dataclass(frozen=True)
class TraineeSlot:
    """A trainee of the approved request, its government money and its live slot (if any)."""

    position: int
    employer_id: str
    status: str  # the approved status: existing-employee, new-hire, unemployed
    government_cents: int
    participant: Participant | None  # the live slot, else the latest withdrawn one

    @property
    def may_invite(self) -> bool:
        return self.participant is None or self.participant.state not in LIVE


def trainees(application: Application) -> list[dict[str, Any]]:
    request = application.request if isinstance(application.request, dict) else {}
    found = request.get("trainees")
    return [t if isinstance(t, dict) else {} for t in found] if isinstance(found, list) else []


def government_shares(application: Application, position: int) -> dict[str, int]:
    """The federal and the provincial money of one trainee, from the application's stored
    quote (cents, per funder)."""
    rows = application.quote.get("trainees", []) if isinstance(application.quote, dict) else []
    row = next((r for r in rows if r.get("index") == position), None)
    return {
        funder: _cents(str(row.get(funder, "0"))) if row is not None else 0
        for funder in ("federal", "provincial")
    }


def government_cents(application: Application, position: int) -> int:
    """Federal + provincial money of one trainee, from the application's stored quote."""
    return sum(government_shares(application, position).values())


def _cents(amount: str) -> int:
    dollars, _, cents = amount.partition(".")
    return int(dollars or 0) * 100 + int((cents + "00")[:2])


def trainee_slots(application: Application) -> list[TraineeSlot]:
    # Each trainee's live slot, else its latest (withdrawn) one.
    live: dict[int, Participant] = {}
    for slot in application.participants.order_by("id"):
        kept = live.get(slot.position)
        if kept is None or kept.state not in LIVE:
            live[slot.position] = slot
    return [
        TraineeSlot(
            position=i,
            employer_id=str(t.get("employer_id", "")),
            status=str(t.get("status", "")),
            government_cents=government_cents(application, i),
            participant=live.get(i),
        )
        for i, t in enumerate(trainees(application))
    ]


def participants_of(application: Application) -> QuerySet[Participant]:
    """Every slot of an application the caller may already see, oldest first."""
    return application.participants.order_by("position", "id")


@audited_refusals_of("participant", action="get_participant")  # the trail's name
def get_visible_participant(user: User, participant_id: int) -> Participant:
    """The slot, if the user may see its application (else 404, recorded)."""
    found = Participant.objects.select_related("application").filter(pk=participant_id).first()
    if found is None or not access.can_see(user, found.application):
        raise link_refused("PARTICIPANT_NOT_FOUND", 404)
    return found


def flagged_participants(user: User) -> QuerySet[Participant]:
    """Trainees found funded in another file of the same fiscal year, in the officer's files."""
    if user.role != Role.OFFICER:
        return Participant.objects.none()
    visible = access.visible_applications(user)
    return (
        Participant.objects.filter(application__in=visible)
        .exclude(funded_elsewhere=[])
        .select_related("application")
        .order_by("-submitted_at", "-id")
    )


# --- Dates: participants-by and the reminders (dated parameters) ---------------------------

REPORT_DAYS = "cjg.agreement.participant_report_days_before_start"
REMINDER_DAYS = (
    "cjg.agreement.participant_first_reminder_days",
    "cjg.agreement.participant_second_reminder_days",
)


def participants_by(application: Application) -> dt.date | None:
    """The date by which every trainee confirms: training start − the dated parameter."""
    return participant_dates(application)[0]


def participant_dates(application: Application) -> tuple[dt.date | None, list[dt.date]]:
    """The participants-by date and the reminder dates before it (None, [] without a start)."""
    training = application.request.get("training") if isinstance(application.request, dict) else {}
    try:
        start = dt.date.fromisoformat(str((training or {}).get("start_date")))
    except ValueError:
        return None, []
    library = default_library()
    policy = library.policies.get(application.policy)
    if policy is None:
        return None, []
    region = application.request.get("region")
    values = library.resolve(
        policy,
        application.jurisdiction,
        region if isinstance(region, str) else None,
        application.received_on,
    )
    due = start - dt.timedelta(days=int(values[REPORT_DAYS].value or 0))
    reminders = [due - dt.timedelta(days=int(values[name].value or 0)) for name in REMINDER_DAYS]
    return due, reminders
