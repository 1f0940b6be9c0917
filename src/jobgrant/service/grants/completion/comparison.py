"""The comparison group of the net outcomes: who is in it, its questions at 3 and 12 months
(sent, reminded, lapsed by the worker's periodic jobs) and the employer's answers by link.

Who: the applications the grant did not fund although they asked for it, `comparison_applications`:
those whose approval was refused for lack of budget (the ledger's InsufficientBudget or NoBudget,
`core.budget_refusals`, recorded in the audit trail as every refusal is) and never approved since;
and, where an intake's applications are ranked, those below its cut-off and not funded
(`below_cut_off`). Their trainees are the ones the application named
(`request["trainees"]`): asked about at the training's planned end + 3 and + 12 months, the end
of a month kept (`schedule.due_on`, as the funded files' follow-ups).

How: the follow-ups' mechanism, their dated parameters for the reminder and the lapse, their
state machine (plus "declined"), the one mechanism of e-mailed links (`service.links`: only the
token's SHA-256 kept, single use, expiring when the questions lapse) and the outbox, in the
employer's language. The employer is asked for its consent on the page the link opens; a "no"
declines every question of the file, the 12-month one included, and nothing more is sent.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from jobgrant.service import links
from jobgrant.service.audit.chain import record
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.agreements.document import _parameter
from jobgrant.service.grants.completion.follow_ups import (
    LAPSE_DAYS,
    REMINDER_DAYS,
    UNREAD,
    _answers_into,
)
from jobgrant.service.grants.completion.input import Checker
from jobgrant.service.grants.completion.refusals import outcome_refused
from jobgrant.service.grants.completion.schedule import due_on
from jobgrant.service.grants.completion.workflow import comparison_target_of
from jobgrant.service.grants.models.applications import Application, IntakeState, State
from jobgrant.service.grants.models.comparison import (
    ComparisonFollowUp,
    ComparisonLink,
    ComparisonSource,
    ComparisonState,
)
from jobgrant.service.grants.models.ranking import OverrideDecision, OverrideState, RankOverride
from jobgrant.service.language import language_of, long_date
from jobgrant.service.notifications.outbox import enqueue

#: The refusals of an approval that mean "no money left" (`core.budget_refusals`): the budget
#: account's, or the intake's own budget (its earmark on the account).
LACK_OF_BUDGET = ("BUDGET_EXHAUSTED", "INTAKE_BUDGET_EXHAUSTED", "NO_BUDGET")
#: A file refused for lack of budget stays in the group unless it was funded after all.
NOT_FUNDED = (State.RECOMMENDED, State.DENIED, State.WITHDRAWN)
MILESTONES = (3, 12)
WAITING = (ComparisonState.SENT, ComparisonState.REMINDED)
OPEN = (ComparisonState.DUE, *WAITING)


# --- Who is in the group ----------------------------------------------------------------------


def comparison_applications(
    fiscal_year: str | None = None, *, not_enrolled: bool = False
) -> list[tuple[Application, str]]:
    """(application, source) for every file of the comparison group (of one fiscal year; only
    those without questions yet when `not_enrolled`)."""
    found = [
        *refused_for_lack_of_budget(fiscal_year, not_enrolled=not_enrolled),
        *below_cut_off(fiscal_year, not_enrolled=not_enrolled),
    ]
    seen: set[int] = set()
    kept = []
    for application, source in found:  # one source per file: the budget's refusal first
        if application.pk not in seen:
            seen.add(application.pk)
            kept.append((application, source))
    return kept


def refused_for_lack_of_budget(
    fiscal_year: str | None, *, not_enrolled: bool = False
) -> list[tuple[Application, str]]:
    """Files whose approval the budget refused, and that were not funded since."""
    refused = AuditEntry.objects.filter(
        action="refused.approve_application",
        object_type="application",
        summary__code__in=LACK_OF_BUDGET,
    ).values_list("object_id", flat=True)
    ids = {int(pk) for pk in refused if str(pk).isdigit()}
    found = Application.objects.filter(pk__in=ids, state__in=NOT_FUNDED, agreement__isnull=True)
    found = _scoped(found, fiscal_year, not_enrolled)
    return [(application, ComparisonSource.NO_BUDGET) for application in found.order_by("id")]


def below_cut_off(
    fiscal_year: str | None, *, not_enrolled: bool = False
) -> list[tuple[Application, str]]:
    """Files ranked below the cut-off of a ranked intake (`IntakeRank.within_budget` false) and
    not funded, in the states a file refused for lack of budget stays in: recommended (its
    approval is refused against the rank without a signed-off override), denied or withdrawn;
    with no agreement, and no request to approve it against the rank still open. A file the
    officer has not looked at yet (submitted) does not join until it is."""
    found = Application.objects.filter(
        intake_rank__within_budget=False,
        intake__state=IntakeState.RANKED,
        state__in=NOT_FUNDED,
        agreement__isnull=True,
    ).exclude(pk__in=_asked_to_approve())
    found = _scoped(found, fiscal_year, not_enrolled)
    return [(application, ComparisonSource.BELOW_CUT_OFF) for application in found.order_by("id")]


def _scoped(found: Any, fiscal_year: str | None, not_enrolled: bool) -> Any:
    """The files of one fiscal year, and without questions yet: the enrolment job, run every
    hour, then reads only the files it has to enrol, not every file of the group again."""
    if fiscal_year is not None:
        found = found.filter(fiscal_year=fiscal_year)
    if not_enrolled:
        found = found.exclude(pk__in=ComparisonFollowUp.objects.values("application_id"))
    return found


def _asked_to_approve() -> Any:
    """The files with a request to approve them against the rank still open."""
    return RankOverride.objects.filter(
        decision=OverrideDecision.APPROVE,
        state__in=(OverrideState.REQUESTED, OverrideState.SIGNED_OFF),
    ).values("application_id")


# --- Joining the group: a periodic job --------------------------------------------------------


def planned_end(application: Application) -> dt.date | None:
    training = application.request.get("training") or {}
    try:
        return dt.date.fromisoformat(str(training.get("end_date")))
    except ValueError:
        return None


def enrol_comparison_group(today: dt.date | None = None) -> int:
    """Make the questions of every comparison file that has none (idempotent: a file is enrolled
    once, in one transaction with its audit entry); how many files were enrolled."""
    enrolled = 0
    for application, source in comparison_applications(not_enrolled=True):
        end = planned_end(application)
        if end is None:
            continue
        enrolled += _enrol(application, source, end)
    return enrolled


def _enrol(application: Application, source: str, end: dt.date) -> int:
    trainees = application.request.get("trainees") or []
    employer = application.created_by
    with transaction.atomic():
        if ComparisonFollowUp.objects.select_for_update().filter(application=application).exists():
            return 0
        ComparisonFollowUp.objects.bulk_create(
            ComparisonFollowUp(
                application=application,
                position=position,
                source=source,
                milestone=months,
                due_on=due_on(end, months),
                email=employer.email or "",
                language=language_of(employer),
            )
            for position in range(len(trainees))
            for months in MILESTONES
        )
        summary = {"source": source, "trainees": len(trainees)}
        record("worker", "comparison.enrol", "application", application.pk, summary)
    return 1


# --- Asking, reminding, lapsing: periodic jobs --------------------------------------------------


def _days(row: ComparisonFollowUp, name: str) -> int:
    return int(_parameter(name, row.application, row.due_on)["value"])


def _groups(rows: Any) -> list[list[int]]:
    """The ids to act on together: a file's rows of one milestone (one message for them all)."""
    groups: dict[tuple[int, int], list[int]] = {}
    for pk, application, milestone in rows.order_by("id").values_list(
        "id", "application_id", "milestone"
    ):
        groups.setdefault((application, milestone), []).append(pk)
    return list(groups.values())


def _locked(ids: list[int], states: tuple[str, ...]) -> list[ComparisonFollowUp]:
    return list(
        ComparisonFollowUp.objects.select_for_update()
        .select_related("application")
        .defer(*UNREAD)
        .filter(pk__in=ids, state__in=states)
        .order_by("position")
    )


def send_due_comparison(today: dt.date | None = None) -> int:
    """Ask every comparison question whose day has come (due → sent), one message per file and
    milestone; how many questions were sent."""
    today = today or timezone.localdate()
    due = ComparisonFollowUp.objects.filter(state=ComparisonState.DUE, due_on__lte=today)
    return sum(
        _ask(ids, ComparisonState.DUE, "send", "comparison_questions") for ids in _groups(due)
    )


def remind_comparison(today: dt.date | None = None) -> int:
    """One reminder, the follow-ups' days after sending (a dated parameter): sent → reminded."""
    today = today or timezone.localdate()
    sent = (
        ComparisonFollowUp.objects.filter(state=ComparisonState.SENT)
        .select_related("application")
        .defer(*UNREAD)
    )
    late = [row.pk for row in sent if _day_reached(row, REMINDER_DAYS, today)]
    rows = ComparisonFollowUp.objects.filter(pk__in=late)
    return sum(
        _ask(ids, ComparisonState.SENT, "remind", "comparison_reminder") for ids in _groups(rows)
    )


def lapse_comparison(today: dt.date | None = None) -> int:
    """Close the questions unanswered the follow-ups' lapse days after sending; links revoked."""
    today = today or timezone.localdate()
    waiting = (
        ComparisonFollowUp.objects.filter(state__in=WAITING)
        .select_related("application")
        .defer(*UNREAD)
    )
    over = [row.pk for row in waiting if _day_reached(row, LAPSE_DAYS, today)]
    lapsed = 0
    for ids in _groups(ComparisonFollowUp.objects.filter(pk__in=over)):
        with transaction.atomic():
            rows = _locked(ids, WAITING)
            now = timezone.now()
            for row in rows:
                _move(row, "lapse", lapsed_at=now)
            if rows:
                _revoke_links(rows[0], now)
            lapsed += len(rows)
    return lapsed


def _day_reached(row: ComparisonFollowUp, name: str, today: dt.date) -> bool:
    sent = timezone.localtime(row.sent_at).date() if row.sent_at else today
    return sent + dt.timedelta(days=_days(row, name)) <= today


def _move(row: ComparisonFollowUp, action: str, actor: str = "worker", **stamps: Any) -> None:
    """One row along the state machine, stamped and saved, with its audit entry (never an
    answer's wage)."""
    row.state = comparison_target_of(action, row.state)
    for name, value in stamps.items():
        setattr(row, name, value)
    row.save(update_fields=["state", *stamps])
    summary = {
        "application": row.application_id,
        "trainee": row.position,
        "milestone": row.milestone,
        "state": row.state,
    }
    record(actor, f"comparison.{action}", "comparisonfollowup", row.pk, summary)


def _ask(ids: list[int], state: str, action: str, kind: str) -> int:
    with transaction.atomic():
        rows = _locked(ids, (state,))
        if not rows:
            return 0
        now = timezone.now()
        stamp = "sent_at" if action == "send" else "reminded_at"
        for row in rows:
            _move(row, action, "worker", **{stamp: now})
        _tell_employer(rows, kind, now)
    return len(rows)


def _revoke_links(first: ComparisonFollowUp, now: dt.datetime) -> None:
    ComparisonLink.objects.filter(
        application_id=first.application_id,
        milestone=first.milestone,
        used_at=None,
        revoked_at=None,
    ).update(revoked_at=now)


def _tell_employer(rows: list[ComparisonFollowUp], kind: str, now: dt.datetime) -> None:
    """A new link (the older ones revoked), valid until the questions lapse, in one message."""
    first = rows[0]
    _revoke_links(first, now)
    if "@" not in (first.email or ""):
        return
    sent = first.sent_at or now
    lapses = sent + dt.timedelta(days=_days(first, LAPSE_DAYS))
    token = links.new_token(as_hex=True)
    ComparisonLink.objects.create(
        application=first.application,
        milestone=first.milestone,
        digest=links.digest(token),
        expires_at=lapses,
    )
    training = first.application.request.get("training") or {}
    enqueue(
        kind,
        subject=first.application,
        milestone=f"comparison-{first.milestone}m",
        to=first.email,
        language=first.language,
        context={
            "reference": first.application_id,
            "milestone": first.milestone,
            "course": str(training.get("course") or ""),
            "trainees": len(rows),
            "link": links.page_link("web:comparison-follow-up", first.language, token=token),
            "closes_on": long_date(timezone.localtime(lapses).date(), first.language),
        },
    )


# --- The employer's answers, by link -------------------------------------------------------------


def open_comparison_link(token: str, *, now: dt.datetime | None = None) -> ComparisonLink:
    """The live link of a token, or the refusal that says why it is dead (reads only)."""
    if not isinstance(token, str) or not 16 <= len(token) <= 128:
        raise outcome_refused("FOLLOW_UP_LINK_NOT_FOUND", 404)
    found = links.by_token(ComparisonLink.objects.select_related("application"), token).first()
    if found is None:
        raise outcome_refused("FOLLOW_UP_LINK_NOT_FOUND", 404)
    _refuse_dead(found, now or timezone.now())
    return found


def _refuse_dead(link: ComparisonLink, now: dt.datetime) -> None:
    if link.used_at is not None:
        raise outcome_refused("FOLLOW_UP_LINK_USED", 410)
    if link.expires_at <= now or not waiting_rows(link):
        raise outcome_refused("FOLLOW_UP_LINK_EXPIRED", 410)
    if link.revoked_at is not None:
        raise outcome_refused("FOLLOW_UP_LINK_REPLACED", 410)


def waiting_rows(link: ComparisonLink) -> list[ComparisonFollowUp]:
    """The questions the link's page asks: its file's, at its milestone, still waiting."""
    return list(
        ComparisonFollowUp.objects.filter(
            application_id=link.application_id, milestone=link.milestone, state__in=WAITING
        ).order_by("position")
    )


def answer_comparison(
    token: str, consent: object, answers_by_trainee: Mapping[int, Mapping[str, Any]]
) -> list[ComparisonFollowUp]:
    """The employer's consent, then (with it) its answers about every trainee the link asks
    about: checked in full first (each bad field named, nothing written), then in one
    transaction; the link is used. Without consent, every open question of the file is
    declined and nothing more is sent."""
    link = open_comparison_link(token)
    check = Checker()
    agreed = check.yes_no(consent, "consent")
    checked: dict[int, dict[str, Any]] = {}
    if agreed:
        for row in waiting_rows(link):
            raw = answers_by_trainee.get(row.position)
            checked[row.position] = _answers_into(check, raw, f"trainees[{row.position}].")
    check.raise_if_any()
    with transaction.atomic():
        locked = links.by_token(ComparisonLink.objects.select_for_update(), token).get()
        now = timezone.now()
        _refuse_dead(locked, now)  # again, under the lock: two submissions, one wins
        rows = _respond(locked, checked, now) if agreed else _decline(locked, now)
        locked.used_at = now
        locked.save(update_fields=["used_at"])
    return rows


def _respond(
    link: ComparisonLink, checked: dict[int, dict[str, Any]], now: dt.datetime
) -> list[ComparisonFollowUp]:
    ids = [row.pk for row in waiting_rows(link)]
    rows = _locked(ids, WAITING)
    for row in rows:
        _move(row, "respond", "employer", responded_at=now, consent=True, **checked[row.position])
    ComparisonFollowUp.objects.filter(application_id=link.application_id, consent=None).update(
        consent=True
    )
    return rows


def _decline(link: ComparisonLink, now: dt.datetime) -> list[ComparisonFollowUp]:
    ids = list(
        ComparisonFollowUp.objects.filter(
            application_id=link.application_id, state__in=OPEN
        ).values_list("id", flat=True)
    )
    rows = _locked(ids, OPEN)
    for row in rows:
        _move(row, "decline", "employer", consent=False)
    return rows
