"""Every change to a trainee slot: invite, re-send, revoke, the trainee's answers, reminders.

One function, one transaction, its audit entry (no SIN, no name: the slot's position and state)
and its message in the outbox. The link's token is made here, put in the message, and kept only
as its SHA-256: it never reaches the database, an audit entry, a log or an answer of the API.
A link that is used, expired, revoked or unknown is refused (410 or 404) and writes nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from jobgrant.service import links
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import bad_input, problem
from jobgrant.service.grants.core import access
from jobgrant.service.grants.core.workflow import IllegalTransition
from jobgrant.service.grants.integrity.actions import raise_for_trainee
from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.grants.models.participants import (
    EmploymentStatus,
    Invitation,
    Participant,
    ParticipantState,
)
from jobgrant.service.grants.participants.access import government_cents, trainees
from jobgrant.service.grants.participants.form import check_answers
from jobgrant.service.grants.participants.refusals import (
    illegal_participant_transition,
    link_refused,
)
from jobgrant.service.grants.participants.workflow import LIVE, target_of
from jobgrant.service.language import local_day, long_date
from jobgrant.service.notifications.outbox import enqueue, quoted
from jobgrant.service.refusals import refused
from jobgrant.service.registry.identifiers import format_sin
from jobgrant.service.registry.models import Employer

LANGUAGES = ("en", "fr")
#: How long a link stays valid: settings.JOBGRANT_PARTICIPANT_LINK_DAYS, 14 days by default.
DEFAULT_LINK_DAYS = 14
#: The approved status a trainee's answer contradicts: (approved status, employment answers).
CONTRADICTIONS: dict[str, tuple[str, frozenset[str]]] = {
    "existing-employee": (
        "NOT_EMPLOYED_BEFORE_TRAINING",
        frozenset(EmploymentStatus) - {EmploymentStatus.FULL_TIME, EmploymentStatus.PART_TIME},
    ),
    "unemployed": (
        "EMPLOYED_BEFORE_TRAINING",
        frozenset({EmploymentStatus.FULL_TIME, EmploymentStatus.PART_TIME}),
    ),
}


def _written(day: object, language: str) -> str:
    """An ISO date of the request as a message writes it ("January 11, 2027"); "" for none."""
    try:
        return long_date(dt.date.fromisoformat(day), language) if isinstance(day, str) else ""
    except ValueError:
        return ""


def link_lifetime() -> dt.timedelta:
    return dt.timedelta(
        days=int(getattr(settings, "JOBGRANT_PARTICIPANT_LINK_DAYS", DEFAULT_LINK_DAYS))
    )


def _summary(participant: Participant, **also: Any) -> dict[str, Any]:
    """What the audit trail keeps of a slot: never the SIN, a name or an address."""
    return {
        "application": participant.application_id,
        "position": participant.position,
        "state": participant.state,
        "language": participant.language,
        **also,
    }


def audit_slot(actor: str, participant: Participant, action: str, **also: Any) -> None:
    record(
        actor, f"participant.{action}", "participant", participant.pk, _summary(participant, **also)
    )


def _move(participant: Participant, action: str) -> None:
    try:
        participant.state = target_of(action, participant.state)
    except IllegalTransition as error:
        label = ParticipantState(participant.state).label
        raise illegal_participant_transition(action, participant.state, label) from error


# --- The employer: invite, re-send, revoke -----------------------------------------------------


def _valid_invitation(application: Application, body: Any) -> tuple[int, str, str]:
    if not isinstance(body, Mapping):
        raise bad_input([problem("(body)", "must be a JSON object", "doit être un objet JSON")])
    problems = [
        problem(str(key), "is not a known field", "n'est pas un champ connu")
        for key in body
        if key not in ("trainee", "email", "language")
    ]
    count = len(trainees(application))
    position = body.get("trainee")
    if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position < count:
        problems.append(
            problem(
                "trainee",
                f"must be the index of one of the application's trainees (0 to {count - 1})",
                f"doit être l'indice d'un des participants de la demande (0 à {count - 1})",
            )
        )
    email = body.get("email")
    email = email.strip() if isinstance(email, str) else ""
    try:
        validate_email(email)
        if len(email) > 254:
            raise ValidationError("too long")
    except ValidationError:
        problems.append(
            problem(
                "email",
                "must be an email address, like name@example.com",
                "doit être une adresse courriel, par exemple nom@exemple.ca",
            )
        )
    language = body.get("language")
    if language not in LANGUAGES:
        problems.append(problem("language", "must be en or fr", "doit être en ou fr"))
    if problems:
        raise bad_input(problems)
    return int(position or 0), email, str(language)


def _locked_application(application: Application) -> Application:
    """The application row, locked: two invitations for one trainee are decided in turn."""
    locked = Application.objects.select_for_update().get(pk=application.pk)
    if locked.state != State.APPROVED:
        raise refused(
            409,
            "NOT_APPROVED",
            lambda: {"state": State(locked.state).label},
            extra={"state": locked.state},
        )
    return locked


@audited_refusals_of("application")
def invite_participant(user: User, application: Application, body: Any) -> Participant:
    """Open the slot of one trainee of an approved application and email them their link."""
    access.check_applicant(user, application)
    position, email, language = _valid_invitation(application, body)
    with transaction.atomic():
        application = _locked_application(application)
        live = application.participants.filter(position=position, state__in=LIVE).first()
        if live is not None:
            state = live.state
            raise refused(
                409,
                "ALREADY_INVITED",
                lambda: {"number": position + 1, "state": ParticipantState(state).label},
                extra={"state": state},
            )
        participant = Participant.objects.create(
            application=application,
            position=position,
            email=email,
            language=language,
            invited_by=user,
        )
        participant.application = application
        invitation = send_link(participant, "participant_invitation", "invitation")
        audit_slot(
            user.username, participant, "invite", expires_at=invitation.expires_at.isoformat()
        )
    return participant


def _lead_employer(application: Application) -> Employer | None:
    link = application.employers.select_related("employer").order_by("position").first()
    return link.employer if link else None


def send_link(participant: Participant, kind: str, milestone: str) -> Invitation:
    """A new link for the slot (the others revoked) and the message that carries it. The
    milestone keeps every link's message apart (one per invitation)."""
    now = timezone.now()
    participant.invitations.filter(used_at=None, revoked_at=None).update(revoked_at=now)
    token = links.new_token(as_hex=True)
    invitation = Invitation.objects.create(
        participant=participant, digest=links.digest(token), expires_at=now + link_lifetime()
    )
    application = participant.application
    employer = _lead_employer(application)
    training = application.request.get("training") or {}
    course = str(training.get("course") or "")
    enqueue(
        kind,
        subject=participant,
        milestone=f"{milestone}-{invitation.pk}",
        to=participant.email,
        language=participant.language,
        context={
            "link": links.page_link("web:participate", participant.language, token=token),
            "employer": quoted(employer.name, participant.language) if employer else "",
            "course": quoted(course, participant.language) if course else "",
            "start_date": _written(training.get("start_date"), participant.language),
            "expires_on": long_date(local_day(invitation.expires_at), participant.language),
            "reference": application.pk,
        },
    )
    return invitation


def _locked_slot(participant: Participant) -> Participant:
    locked = (
        Participant.objects.select_for_update().select_related("application").get(pk=participant.pk)
    )
    participant.state = locked.state
    return locked


@audited_refusals_of("participant")
def resend_invitation(user: User, participant: Participant) -> Participant:
    """A new link for a trainee who has not answered: the old link stops working."""
    access.check_applicant(user, participant.application)
    with transaction.atomic():
        participant = _locked_slot(participant)
        _move(participant, "resend")
        invitation = send_link(participant, "participant_invitation", "resend")
        audit_slot(
            user.username, participant, "resend", expires_at=invitation.expires_at.isoformat()
        )
    return participant


@audited_refusals_of("participant")
def revoke_participant(user: User, participant: Participant) -> Participant:
    """Withdraw the slot: its link stops working; the trainee may be invited again later."""
    access.check_applicant(user, participant.application)
    with transaction.atomic():
        participant = _locked_slot(participant)
        before = participant.state
        _move(participant, "revoke")
        participant.save(update_fields=["state"])
        participant.invitations.filter(used_at=None, revoked_at=None).update(
            revoked_at=timezone.now()
        )
        audit_slot(user.username, participant, "revoke", before=before)
    return participant


# --- The trainee: open the link, answer the form -----------------------------------------------


def open_invitation(token: str, *, now: dt.datetime | None = None) -> Invitation:
    """The live invitation of a link, or the refusal that says why it is dead (reads only)."""
    if not isinstance(token, str) or not 16 <= len(token) <= 128:
        raise link_refused("LINK_NOT_FOUND", 404)
    found = links.by_token(
        Invitation.objects.select_related("participant__application"), token
    ).first()
    if found is None:
        raise link_refused("LINK_NOT_FOUND", 404)
    _refuse_dead(found, now or timezone.now())
    return found


def _refuse_dead(invitation: Invitation, now: dt.datetime) -> None:
    participant = invitation.participant
    if invitation.used_at is not None:
        raise link_refused("LINK_USED")
    if participant.state == ParticipantState.WITHDRAWN:
        raise link_refused("LINK_REVOKED")
    if invitation.revoked_at is not None:
        raise link_refused("LINK_REPLACED")
    if participant.state != ParticipantState.INVITED:
        raise link_refused("LINK_USED")
    if participant.application.state != State.APPROVED:
        raise link_refused("LINK_CLOSED")
    if invitation.expires_at <= now:
        error = link_refused("LINK_EXPIRED")
        error.extra["expired"] = invitation.expires_at.isoformat()
        raise error


def submit_participant_form(
    token: str, answers: Mapping[str, Any], *, today: dt.date | None = None
) -> Participant:
    """The trainee's answers, through their link: checked in full, then the slot is confirmed,
    or found ineligible when the answers contradict the trainee's approved status. Once only."""
    open_invitation(token)  # a dead link is told as such, before any answer is checked
    fields = check_answers(answers, today=today or timezone.localdate())
    now = timezone.now()
    with transaction.atomic():
        invitation = links.by_token(
            Invitation.objects.select_for_update().select_related("participant__application"),
            token,
        ).get()
        participant = _locked_slot(invitation.participant)
        invitation.participant = participant
        _refuse_dead(invitation, now)  # again, under the locks: two submissions, one wins
        actor = f"participant:{participant.pk}"
        _move(participant, "submit")
        for name, value in fields.items():
            setattr(participant, name, value)
        participant.submitted_at = now
        participant.save()
        invitation.used_at = now
        invitation.save(update_fields=["used_at"])
        audit_slot(actor, participant, "submit")
        _decide(actor, participant)
    return participant


def _decide(actor: str, participant: Participant) -> None:
    """Confirm, or find ineligible; and flag money the same person got elsewhere this year."""
    position = participant.position
    approved = str((trainees(participant.application)[position] or {}).get("status", ""))
    code, contradicting = CONTRADICTIONS.get(approved, ("", frozenset()))
    if participant.employment_status in contradicting:
        _move(participant, "find_ineligible")
        participant.decided_reason = code
    else:
        _move(participant, "confirm")
    _flag_funded_elsewhere(participant)
    participant.save(
        update_fields=["state", "decided_reason", "funded_elsewhere", "funded_elsewhere_cents"]
    )
    raise_for_trainee(actor, participant, government_cents)  # funded across years
    action = "confirm" if participant.state == ParticipantState.CONFIRMED else "find_ineligible"
    audit_slot(
        actor,
        participant,
        action,
        approved_status=approved,
        reason=participant.decided_reason,
        funded_elsewhere_cents=participant.funded_elsewhere_cents,
    )


def _flag_funded_elsewhere(participant: Participant) -> None:
    """Other confirmed slots of the same person (same blind index) in approved applications of
    the same fiscal year, with the government money each got (the stored quote's trainee row)."""
    application = participant.application
    others = (
        Participant.objects.filter(
            sin_index=participant.sin_index,
            state=ParticipantState.CONFIRMED,
            application__state=State.APPROVED,
            application__fiscal_year=application.fiscal_year,
        )
        .exclude(pk=participant.pk)
        .select_related("application")
        .order_by("id")
    )
    found = [
        {
            "application": other.application_id,
            "participant": other.pk,
            "government_cents": government_cents(other.application, other.position),
        }
        for other in others
    ]
    participant.funded_elsewhere = found
    participant.funded_elsewhere_cents = sum(entry["government_cents"] for entry in found)


# --- Viewing a participant's SIN in full -------------------------------------------------------


@audited_refusals_of("participant")
def view_participant_sin(user: User, participant: Participant) -> str:
    """The SIN as NNN-NNN-NNN, for an officer who covers the file or an auditor, holding the
    view-SIN permission; each view is an audit entry (which never holds the SIN)."""
    allowed = user.is_active and user.may_view_sin and user.role in (Role.OFFICER, Role.AUDITOR)
    if not allowed or not access.can_see(user, participant.application):
        raise refused(403, "SIN_VIEW_NOT_ALLOWED")
    if not participant.sin_ciphertext:
        raise link_refused("PARTICIPANT_NOT_FOUND", 404)
    with transaction.atomic():
        audit_slot(user.username, participant, "view_sin")
        return format_sin(participant.sin())
