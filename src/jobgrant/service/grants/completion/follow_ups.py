"""The follow-ups at 3 and 12 months: sending, one reminder, lapsing (periodic jobs of `jobgrant
worker`, service/schedule.py), and the answers (the trainee's by link, the employer's per file).

Every change is one transaction with its audit entry and moves a follow-up along
`follow_up_workflow` (an illegal move is refused). Every message goes through the outbox in the
respondent's language. The trainee gets a single-use link that expires when the follow-up lapses
(only its SHA-256 kept, as the participant's invitation); a reminder brings a new link and
revokes the old one. The employer gets one message per file and milestone, whatever the number
of trainees. A lapsed follow-up is never sent again: no transition leaves `lapsed`.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from jobgrant.service import links
from jobgrant.service.accounts.models import User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.agreements.document import _parameter
from jobgrant.service.grants.completion.input import Checker
from jobgrant.service.grants.completion.refusals import outcome_refused
from jobgrant.service.grants.completion.workflow import (
    WAITING,
    IllegalFollowUpTransition,
    follow_up_target_of,
)
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.completion import (
    FollowUp,
    FollowUpLink,
    FollowUpState,
    Milestone,
    Respondent,
)
from jobgrant.service.language import long_date
from jobgrant.service.notifications.outbox import enqueue

REMINDER_DAYS = "cjg.outcomes.follow_up_reminder_days"
LAPSE_DAYS = "cjg.outcomes.follow_up_lapse_days"
ANSWER_FIELDS = ("employed", "same_employer", "weekly_hours", "hourly_wage")
#: The file's quote and its explanation (tens of kilobytes of JSON), which asking, reminding and
#: lapsing never read: left unloaded where their rows are read with their file, every hour.
UNREAD = ("application__quote", "application__explanation")


def days_after_sending(follow_up: FollowUp, name: str) -> int:
    """A dated parameter (reminder, lapse) as the file's policy sets it on the due date."""
    return int(_parameter(name, follow_up.application, follow_up.due_on)["value"])


def _move(follow_up: FollowUp, action: str) -> None:
    follow_up.state = follow_up_target_of(action, follow_up.state)


def _audit(actor: str, follow_up: FollowUp, action: str, **also: Any) -> None:
    """What the audit trail keeps: the row's file, milestone, respondent and state, never an
    answer's wage or an address."""
    record(
        actor,
        f"follow_up.{action}",
        "followup",
        follow_up.pk,
        {
            "application": follow_up.application_id,
            "participant": follow_up.participant_id,
            "milestone": follow_up.milestone,
            "respondent": follow_up.respondent,
            "state": follow_up.state,
            **also,
        },
    )


# --- Sending and reminding ---------------------------------------------------------------------


def _new_link(follow_up: FollowUp, now: dt.datetime) -> str:
    """A fresh single-use link (the older ones revoked), valid until the follow-up lapses."""
    follow_up.links.filter(used_at=None, revoked_at=None).update(revoked_at=now)
    token = links.new_token(as_hex=True)
    sent = follow_up.sent_at or now
    lapses = sent + dt.timedelta(days=days_after_sending(follow_up, LAPSE_DAYS))
    FollowUpLink.objects.create(follow_up=follow_up, digest=links.digest(token), expires_at=lapses)
    return token


def _context(follow_up: FollowUp, link: str, closes: dt.date) -> dict[str, str | int]:
    application = follow_up.application
    training = application.request.get("training") or {}
    employer = application.employers.select_related("employer").order_by("position").first()
    return {
        "reference": application.pk,
        "milestone": follow_up.milestone,
        "course": str(training.get("course") or ""),
        "employer": employer.employer.name if employer else "",
        "link": link,
        "closes_on": long_date(closes, follow_up.language),
    }


def _closes_on(follow_up: FollowUp) -> dt.date:
    sent = timezone.localtime(follow_up.sent_at or timezone.now()).date()
    return sent + dt.timedelta(days=days_after_sending(follow_up, LAPSE_DAYS))


def _tell_trainee(follow_up: FollowUp, kind: str, now: dt.datetime) -> None:
    token = _new_link(follow_up, now)
    link = links.page_link("web:trainee-follow-up", follow_up.language, token=token)
    enqueue(
        kind,
        subject=follow_up,
        milestone=f"{follow_up.milestone}m",
        to=follow_up.email,
        language=follow_up.language,
        context=_context(follow_up, link, _closes_on(follow_up)),
    )


def _tell_employer(rows: list[FollowUp], kind: str) -> None:
    first = rows[0]
    if "@" not in (first.email or ""):
        return
    link = links.page_link(
        "web:employer-follow-up",
        first.language,
        application_id=first.application_id,
        milestone=first.milestone,
    )
    context = _context(first, link, _closes_on(first))
    context["trainees"] = len(rows)
    enqueue(
        kind,
        subject=first.application,
        milestone=f"follow-up-{first.milestone}m",
        to=first.email,
        language=first.language,
        context=context,
    )


def _groups(query: Any) -> list[list[int]]:
    """The ids to act on, in groups decided together: a trainee's row alone, an employer's rows
    of one file and milestone together (one message for them all)."""
    groups: dict[tuple[Any, ...], list[int]] = defaultdict(list)
    for pk, application, milestone, respondent in query.order_by("id").values_list(
        "id", "application_id", "milestone", "respondent"
    ):
        key = (application, milestone) if respondent == Respondent.EMPLOYER else (pk,)
        groups[(respondent, *key)].append(pk)
    return list(groups.values())


def _locked(ids: list[int], states: frozenset[str] | tuple[str, ...]) -> list[FollowUp]:
    return list(
        FollowUp.objects.select_for_update()
        .select_related("application")
        .defer(*UNREAD)
        .filter(pk__in=ids, state__in=states)
        .order_by("id")
    )


def send_due_follow_ups(today: dt.date | None = None) -> int:
    """Send every follow-up whose day has come (due → sent). Idempotent, and safe in two
    workers at once: the rows are locked and moved in one transaction per group, and the
    outbox queues one message per recipient, follow-up (or file) and milestone."""
    today = today or timezone.localdate()
    due = FollowUp.objects.filter(state=FollowUpState.DUE, due_on__lte=today)
    return sum(_send(ids) for ids in _groups(due))


def _send(ids: list[int]) -> int:
    return _ask(ids, FollowUpState.DUE, "send", "sent_at", "follow_up_trainee")


def _ask(ids: list[int], state: str, action: str, stamped: str, trainee_kind: str) -> int:
    """Send (or remind) one group under its rows' locks: each row moved, stamped and audited,
    then one message: the trainee's (with a new link) or the employer's for the whole file."""
    with transaction.atomic():
        rows = _locked(ids, (state,))
        if not rows:
            return 0
        now = timezone.now()
        for row in rows:
            _move(row, action)
            setattr(row, stamped, now)
            row.save(update_fields=["state", stamped])
            _audit("worker", row, action)
        if rows[0].respondent == Respondent.TRAINEE:
            _tell_trainee(rows[0], trainee_kind, now)
        else:
            _tell_employer(rows, trainee_kind.replace("trainee", "employer"))
    return len(rows)


def _day_reached(row: FollowUp, name: str, today: dt.date) -> bool:
    """Whether `today` is at least the parameter's days after the day the row was sent."""
    sent = timezone.localtime(row.sent_at).date() if row.sent_at else today
    return sent + dt.timedelta(days=days_after_sending(row, name)) <= today


def remind_follow_ups(today: dt.date | None = None) -> int:
    """One reminder to whoever has not answered some days after sending (a dated parameter):
    sent → reminded. A reminded follow-up is never reminded again."""
    today = today or timezone.localdate()
    sent = (
        FollowUp.objects.filter(state=FollowUpState.SENT)
        .select_related("application")
        .defer(*UNREAD)
    )
    late = [row.pk for row in sent if _day_reached(row, REMINDER_DAYS, today)]
    return sum(_remind(ids) for ids in _groups(FollowUp.objects.filter(pk__in=late)))


def _remind(ids: list[int]) -> int:
    return _ask(ids, FollowUpState.SENT, "remind", "reminded_at", "follow_up_trainee_reminder")


def lapse_follow_ups(today: dt.date | None = None) -> int:
    """Close every follow-up unanswered some days after sending (a dated parameter): sent or
    reminded → lapsed, its links revoked. It is never sent again."""
    today = today or timezone.localdate()
    waiting = (
        FollowUp.objects.filter(state__in=WAITING).select_related("application").defer(*UNREAD)
    )
    over = [row.pk for row in waiting if _day_reached(row, LAPSE_DAYS, today)]
    lapsed = 0
    for pk in over:
        with transaction.atomic():
            for row in _locked([pk], WAITING):
                _move(row, "lapse")
                row.lapsed_at = timezone.now()
                row.save(update_fields=["state", "lapsed_at"])
                row.links.filter(used_at=None, revoked_at=None).update(revoked_at=row.lapsed_at)
                _audit("worker", row, "lapse")
                lapsed += 1
    return lapsed


# --- Answers -----------------------------------------------------------------------------------


def checked_answers(raw: object, path: str = "") -> dict[str, Any]:
    """Employed (yes/no); when employed: same employer (yes/no), weekly hours (1–168) and the
    hourly wage (dollars, may be left empty). Raises bad_input naming every bad field."""
    check = Checker()
    fields = _answers_into(check, raw, path)
    check.raise_if_any()
    return fields


def _answers_into(check: Checker, raw: object, path: str) -> dict[str, Any]:
    answers = check.mapping(raw, path or "(body)")
    check.unknown(answers, ANSWER_FIELDS, path)
    employed = check.yes_no(answers.get("employed"), f"{path}employed")
    fields: dict[str, Any] = {
        "employed": employed,
        "same_employer": None,
        "weekly_hours": None,
        "hourly_wage_cents": None,
    }
    if employed:
        fields["same_employer"] = check.yes_no(answers.get("same_employer"), f"{path}same_employer")
        fields["weekly_hours"] = check.hours(answers.get("weekly_hours"), f"{path}weekly_hours")
        fields["hourly_wage_cents"] = check.wage(answers.get("hourly_wage"), f"{path}hourly_wage")
    return fields


def _respond(row: FollowUp, fields: dict[str, Any], now: dt.datetime) -> None:
    _move(row, "respond")
    for name, value in fields.items():
        setattr(row, name, value)
    row.responded_at = now
    row.save(update_fields=["state", "responded_at", *fields])


def open_follow_up_link(token: str, *, now: dt.datetime | None = None) -> FollowUpLink:
    """The live link of a token, or the refusal that says why it is dead (reads only)."""
    if not isinstance(token, str) or not 16 <= len(token) <= 128:
        raise outcome_refused("FOLLOW_UP_LINK_NOT_FOUND", 404)
    found = links.by_token(
        FollowUpLink.objects.select_related("follow_up__application"), token
    ).first()
    if found is None:
        raise outcome_refused("FOLLOW_UP_LINK_NOT_FOUND", 404)
    _refuse_dead(found, now or timezone.now())
    return found


def _refuse_dead(link: FollowUpLink, now: dt.datetime) -> None:
    state = link.follow_up.state
    if link.used_at is not None or state == FollowUpState.RESPONDED:
        raise outcome_refused("FOLLOW_UP_LINK_USED", 410)
    if state == FollowUpState.LAPSED or link.expires_at <= now:
        raise outcome_refused("FOLLOW_UP_LINK_EXPIRED", 410)
    if link.revoked_at is not None:
        raise outcome_refused("FOLLOW_UP_LINK_REPLACED", 410)


def answer_follow_up(link_token: str, answers: Mapping[str, Any]) -> FollowUp:
    """The trainee's answers through their link, once: checked in full, then the follow-up is
    responded and the link used. Nothing is shown back; the link cannot change them."""
    open_follow_up_link(link_token)  # a dead link is told as such before any answer is checked
    fields = checked_answers(answers)
    with transaction.atomic():
        link = links.by_token(FollowUpLink.objects.select_for_update(), link_token).get()
        row = (
            FollowUp.objects.select_for_update()
            .select_related("application")
            .get(pk=link.follow_up_id)
        )
        link.follow_up = row
        now = timezone.now()
        _refuse_dead(link, now)  # again, under the locks: two submissions, one wins
        _respond(row, fields, now)
        link.used_at = now
        link.save(update_fields=["used_at"])
        _audit(f"participant:{row.participant_id}", row, "respond")
    return row


def waiting_employer_rows(application: Application, milestone: int) -> list[FollowUp]:
    return list(
        FollowUp.objects.filter(
            application=application,
            milestone=milestone,
            respondent=Respondent.EMPLOYER,
            state__in=WAITING,
        )
        .select_related("participant")
        .order_by("participant__position")
    )


@audited_refusals_of("application")
def answer_employer_follow_ups(
    application: Application,
    milestone: int,
    answers_by_participant: Mapping[int, Mapping[str, Any]],
    *,
    by: User,
) -> list[FollowUp]:
    """The employer's answers for its trainees at one milestone (every answer checked first;
    nothing is written when one is bad). Trainees left out stay waiting."""
    access.check_applicant(by, application)
    if milestone not in Milestone.values:
        raise outcome_refused(
            "NO_FOLLOW_UP", 404, extra={"milestone": milestone}, milestone=milestone
        )
    waiting = {row.participant_id: row for row in waiting_employer_rows(application, milestone)}
    if not waiting:
        raise outcome_refused("NO_FOLLOW_UP", extra={"milestone": milestone}, milestone=milestone)
    check = Checker()
    if not isinstance(answers_by_participant, Mapping) or not answers_by_participant:
        check.add(
            "(body)",
            "must give the answers of at least one trainee",
            "doit donner les réponses d'au moins une personne",
        )
        answers_by_participant = {}
    checked: dict[int, dict[str, Any]] = {}
    for key, raw in answers_by_participant.items():
        participant = int(key) if str(key).isdigit() else None
        if participant not in waiting:
            check.add(
                f"{key}",
                "is not a trainee whose follow-up waits",
                "n'est pas une personne dont le suivi est en attente",
            )
            continue
        checked[participant] = _answers_into(check, raw, f"{key}.")
    check.raise_if_any()
    return _write_employer_answers(by, application, milestone, checked)


def _write_employer_answers(
    by: User, application: Application, milestone: int, checked: dict[int, dict[str, Any]]
) -> list[FollowUp]:
    with transaction.atomic():
        rows = _locked(
            [
                row.pk
                for row in waiting_employer_rows(application, milestone)
                if row.participant_id in checked
            ],
            WAITING,
        )
        if len(rows) != len(checked):  # one was answered or lapsed meanwhile
            raise outcome_refused(
                "NO_FOLLOW_UP", extra={"milestone": milestone}, milestone=milestone
            )
        now = timezone.now()
        for row in rows:
            try:
                _respond(row, checked[row.participant_id], now)
            except IllegalFollowUpTransition as error:  # pragma: no cover - locked above
                raise ServiceError(409, "ILLEGAL_TRANSITION", str(error), str(error)) from error
            _audit(by.username, row, "respond")
    return rows
