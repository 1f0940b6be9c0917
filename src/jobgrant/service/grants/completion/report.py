"""The employer's completion report: start it, save a draft, submit it.

Each action is one transaction with its audit entry. Submitting the report moves every reported
slot to outcome_reported, schedules the follow-ups at 3 and 12 months (trainee and employer),
tells the employer through the outbox, and completes the agreement when the final claim is paid
already; when the final claim's payment is confirmed later, the payment import completes it
(`complete_paid_files`, called from `payments.confirmation`). A trainee reported as not completed is
offered to the officer as a receivable (cause "not completed"), never raised by itself.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.grants.agreements.actions import current_version
from jobgrant.service.grants.agreements.workflow import agreement_target_of
from jobgrant.service.grants.completion.input import Checker
from jobgrant.service.grants.completion.question_sets import version_for
from jobgrant.service.grants.completion.refusals import outcome_refused
from jobgrant.service.grants.completion.schedule import due_on, schedule_follow_ups
from jobgrant.service.grants.completion.workflow import IllegalReportTransition, report_target_of
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.agreements import Agreement, AgreementState
from jobgrant.service.grants.models.applications import Application, Counterfactual
from jobgrant.service.grants.models.claims import Claim, ClaimState
from jobgrant.service.grants.models.completion import (
    LIKERT_ITEMS,
    CompletionReport,
    EmployerRating,
    EmploymentType,
    NotCompletedReason,
    ReportState,
    TraineeOutcome,
)
from jobgrant.service.grants.models.participants import Participant, ParticipantState
from jobgrant.service.grants.models.payments import (
    OPEN_REQUEST_STATES,
    PaymentRequest,
    RequestState,
)
from jobgrant.service.grants.participants.workflow import target_of as slot_target_of
from jobgrant.service.language import language_of, long_date
from jobgrant.service.links import page_link
from jobgrant.service.notifications.outbox import enqueue

#: The report opens this many days before the training's last day, so that an employer can
#: prepare it during the last week (ours: no program guide says when it may start).
OPENS_DAYS_BEFORE_END = 7
IN_FORCE = (AgreementState.ACCEPTED, AgreementState.ACTIVE)
TRAINEE_FIELDS = (
    "participant",
    "completed",
    "not_completed_reason",
    "employed_at_end",
    "with_this_employer",
    "employment_type",
    "noc",
    "hourly_wage_before",
    "hourly_wage_after",
)


def training_end(agreement: Agreement) -> dt.date:
    schedule = current_version(agreement).schedule or {}
    return dt.date.fromisoformat(str(schedule.get("end_date")))


def _summary(report: CompletionReport, **also: Any) -> dict[str, Any]:
    """What the audit trail keeps: counts and codes, never a name or a wage."""
    return {
        "application": report.application_id,
        "state": report.state,
        "questions_version": report.questions_version,
        "due_on": report.due_on.isoformat(),
        **also,
    }


# --- Start -------------------------------------------------------------------------------------


@audited_refusals_of("application")
def start_completion_report(application: Application, *, by: User) -> CompletionReport:
    """The file's completion report (a draft), made once: due by the agreement version's
    completion_report_by, counting its follow-ups from the training's last day, asked under the
    questions in force on the day the file was approved (its agreement's issue)."""
    access.check_applicant(by, application)
    with transaction.atomic():
        locked = Application.objects.select_for_update().get(pk=application.pk)
        found = CompletionReport.objects.filter(application=locked).first()
        if found is not None:
            return found
        agreement = Agreement.objects.filter(application=locked).first()
        if agreement is None or agreement.state not in IN_FORCE:
            state = agreement.state if agreement else ""
            label = AgreementState(state).label if state else "—"
            raise outcome_refused("NO_AGREEMENT_IN_FORCE", extra={"state": state}, state=label)
        ended = training_end(agreement)
        _refuse_before_end(ended)
        report = CompletionReport.objects.create(
            application=locked,
            questions_version=version_for(timezone.localtime(agreement.issued_at).date()),
            due_on=current_version(agreement).completion_report_by,
            training_ended_on=ended,
        )
        record(
            by.username, "completion_report.start", "completionreport", report.pk, _summary(report)
        )
    return report


def opens_on(agreement: Agreement) -> dt.date:
    """The first day the completion report may be started: a week before the training ends."""
    return training_end(agreement) - dt.timedelta(days=OPENS_DAYS_BEFORE_END)


def _refuse_before_end(ended: dt.date) -> None:
    opens = ended - dt.timedelta(days=OPENS_DAYS_BEFORE_END)
    if timezone.localdate() < opens:
        raise outcome_refused(
            "TRAINING_NOT_ENDED",
            extra={"opens_on": opens.isoformat(), "training_ended_on": ended.isoformat()},
            days=OPENS_DAYS_BEFORE_END,
            opens=opens.isoformat(),
            end=ended.isoformat(),
        )


# --- Save a draft ------------------------------------------------------------------------------


def reportable_slots(application: Application) -> dict[int, Participant]:
    """The slots the report is about: every confirmed trainee (and those already reported)."""
    slots = Participant.objects.filter(
        application=application,
        state__in=(ParticipantState.CONFIRMED, ParticipantState.OUTCOME_REPORTED),
    )
    return {slot.pk: slot for slot in slots.order_by("position")}


def employer_ids(application: Application) -> list[int]:
    return list(application.employers.order_by("position").values_list("employer_id", flat=True))


def _checked_trainee(
    check: Checker, raw: object, path: str, slots: Iterable[int]
) -> dict[str, Any]:
    answers = check.mapping(raw, path)
    check.unknown(answers, TRAINEE_FIELDS, f"{path}.")
    participant = answers.get("participant")
    if isinstance(participant, bool) or participant not in set(slots):
        check.add(
            f"{path}.participant",
            "must be the id of a confirmed trainee of this file",
            "doit être l'identifiant d'une personne confirmée de ce dossier",
        )
    completed = check.yes_no(answers.get("completed"), f"{path}.completed")
    reason = ""
    if completed is False:
        reason = check.choice(
            answers.get("not_completed_reason"),
            NotCompletedReason,
            f"{path}.not_completed_reason",
        )
    employed = check.yes_no(answers.get("employed_at_end"), f"{path}.employed_at_end")
    fields: dict[str, Any] = {
        "participant_id": participant,
        "completed": completed,
        "not_completed_reason": reason,
        "employed_at_end": employed,
        "with_this_employer": None,
        "employment_type": "",
        "noc": "",
        "hourly_wage_before_cents": check.wage(
            answers.get("hourly_wage_before"), f"{path}.hourly_wage_before"
        ),
        "hourly_wage_after_cents": None,
    }
    if employed:
        fields["with_this_employer"] = check.yes_no(
            answers.get("with_this_employer"), f"{path}.with_this_employer"
        )
        fields["employment_type"] = check.choice(
            answers.get("employment_type"), EmploymentType, f"{path}.employment_type"
        )
        fields["noc"] = check.noc(answers.get("noc"), f"{path}.noc")
        fields["hourly_wage_after_cents"] = check.wage(
            answers.get("hourly_wage_after"), f"{path}.hourly_wage_after"
        )
    return fields


def _checked_ratings(
    check: Checker, ratings: object, employers: list[int]
) -> dict[tuple[int, str], int]:
    if not isinstance(ratings, Mapping):
        check.add(
            "ratings",
            "must map (employer, item) to a score",
            "doit associer (employeur, élément) à une note",
        )
        return {}
    good: dict[tuple[int, str], int] = {}
    for key, score in ratings.items():
        employer, item = key if isinstance(key, tuple) and len(key) == 2 else (None, None)
        path = f"ratings[{employer}][{item}]"
        if employer not in employers or item not in LIKERT_ITEMS:
            check.add(
                path,
                "must name an employer of this file and one of: " + ", ".join(LIKERT_ITEMS),
                "doit nommer un employeur du dossier et l'un des éléments : "
                + ", ".join(LIKERT_ITEMS),
            )
            continue
        if isinstance(score, bool) or str(score).strip() not in ("1", "2", "3", "4", "5"):
            check.add(path, "must be a score from 1 to 5", "doit être une note de 1 à 5")
            continue
        good[(int(employer), str(item))] = int(str(score).strip())
    return good


def _checked_report(
    application: Application,
    trainees: object,
    ratings: object,
    feedback: object,
    counterfactual: object = "",
) -> tuple[list[dict[str, Any]], dict[tuple[int, str], int], str]:
    check = Checker()
    if counterfactual not in ("", None):
        check.choice(counterfactual, Counterfactual, "counterfactual")
    slots = reportable_slots(application)
    rows: list[dict[str, Any]] = []
    if not isinstance(trainees, list):
        check.add(
            "trainees",
            "must be a list of trainees' outcomes",
            "doit être une liste des résultats des participants",
        )
        trainees = []
    for index, raw in enumerate(trainees):
        rows.append(_checked_trainee(check, raw, f"trainees[{index}]", slots))
    seen = [row["participant_id"] for row in rows]
    for index, participant in enumerate(seen):
        if participant in seen[:index]:
            check.add(
                f"trainees[{index}].participant",
                "is given twice",
                "est donnée deux fois",
            )
    good_ratings = _checked_ratings(check, ratings, employer_ids(application))
    text = check.text(feedback, "feedback")
    check.raise_if_any()
    return rows, good_ratings, text


def _lock_report(report: CompletionReport, action: str) -> CompletionReport:
    locked = (
        CompletionReport.objects.select_for_update().select_related("application").get(pk=report.pk)
    )
    try:
        report_target_of(action, locked.state)
    except IllegalReportTransition:
        raise outcome_refused("REPORT_SUBMITTED", extra={"state": locked.state}) from None
    return locked


@audited_refusals_of("completionreport")
def save_completion_report(
    report: CompletionReport,
    *,
    trainees: list[dict[str, Any]],
    ratings: Mapping[tuple[int, str], Any],
    feedback: str,
    by: User,
    counterfactual: str = "",
) -> CompletionReport:
    """Replace the draft's answers with these (every field checked first; nothing is written
    when one is bad). A draft may leave trainees and ratings out; submitting asks for all. The
    counterfactual answer (would the training have happened without the grant) is optional."""
    access.check_applicant(by, report.application)
    rows, good_ratings, text = _checked_report(
        report.application, trainees, ratings, feedback, counterfactual
    )
    with transaction.atomic():
        locked = _lock_report(report, "save")
        locked.trainees.all().delete()
        TraineeOutcome.objects.bulk_create(TraineeOutcome(report=locked, **row) for row in rows)
        locked.ratings.all().delete()
        EmployerRating.objects.bulk_create(
            EmployerRating(report=locked, employer_id=employer, item=item, score=score)
            for (employer, item), score in sorted(good_ratings.items())
        )
        locked.feedback, locked.counterfactual = text, counterfactual or ""
        locked.save(update_fields=["feedback", "counterfactual", "updated_at"])
        record(
            by.username,
            "completion_report.save",
            "completionreport",
            locked.pk,
            _summary(locked, trainees=len(rows), ratings=len(good_ratings)),
        )
    return locked


# --- Submit ------------------------------------------------------------------------------------


def missing_answers(report: CompletionReport) -> list[str]:
    """What submitting still needs, as codes (the same in both languages): `trainee-2` for a
    trainee without an outcome (its number), `rating-3-timely` for an (employer id, item)
    unrated."""
    reported = set(report.trainees.values_list("participant_id", flat=True))
    missing = [
        f"trainee-{slot.position + 1}"
        for pk, slot in reportable_slots(report.application).items()
        if pk not in reported
    ]
    rated = set(report.ratings.values_list("employer_id", "item"))
    for employer in employer_ids(report.application):
        missing += [
            f"rating-{employer}-{item}" for item in LIKERT_ITEMS if (employer, item) not in rated
        ]
    return missing


@audited_refusals_of("completionreport")
def submit_completion_report(report: CompletionReport, *, by: User) -> CompletionReport:
    """Submit the draft: every confirmed trainee has an outcome and every item is rated. The
    slots become outcome_reported, the follow-ups are scheduled, the employer is told, and the
    agreement completes if the final claim is paid."""
    access.check_applicant(by, report.application)
    with transaction.atomic():
        locked = _lock_report(report, "submit")
        missing = missing_answers(locked)
        if missing:
            raise outcome_refused(
                "OUTCOMES_MISSING", extra={"missing": missing}, missing=", ".join(missing)
            )
        now = timezone.now()
        locked.state = report_target_of("submit", locked.state)
        locked.submitted_at, locked.submitted_by = now, by
        locked.save(update_fields=["state", "submitted_at", "submitted_by", "updated_at"])
        outcomes = list(locked.trainees.select_related("participant"))
        _report_slots([outcome.participant for outcome in outcomes])
        follow_ups = schedule_follow_ups(locked, [outcome.participant for outcome in outcomes])
        record(
            by.username,
            "completion_report.submit",
            "completionreport",
            locked.pk,
            _summary(
                locked,
                trainees=len(outcomes),
                not_completed=sum(1 for outcome in outcomes if not outcome.completed),
                follow_ups=follow_ups,
            ),
        )
        _tell_submitted(locked)
        complete_if_paid(locked.application_id, actor=by.username)
    return locked


def _report_slots(slots: list[Participant]) -> None:
    for slot in slots:
        slot.state = slot_target_of("report_outcome", slot.state)
    Participant.objects.bulk_update(slots, ["state"])


def _tell_submitted(report: CompletionReport) -> None:
    application = report.application
    person = application.created_by
    if "@" not in (person.email or ""):
        return
    language = language_of(application.created_by)
    link = page_link("web:employer-application", language, application_id=application.pk)
    enqueue(
        "completion_report_received",
        subject=report,
        to=person.email,
        language=language,
        context={
            "reference": application.pk,
            "link": link,
            "three_months": long_date(_first_due(report, 3), language),
            "twelve_months": long_date(_first_due(report, 12), language),
        },
    )


def _first_due(report: CompletionReport, milestone: int) -> dt.date:
    return due_on(report.training_ended_on, milestone)


# --- Completing the agreement ------------------------------------------------------------------


def final_claim_paid(application_id: int) -> bool:
    """The final claim is approved and paid: some payment on it reached the paying system, and
    no payment of the file is still on its way (in a batch, authorized, exported, held)."""
    final = Claim.objects.filter(
        application_id=application_id, is_final=True, state=ClaimState.APPROVED
    ).first()
    if final is None:
        return False
    payments = PaymentRequest.objects.filter(application_id=application_id)
    paid = payments.filter(claim__number=final.number, state=RequestState.PAID).exists()
    on_the_way = (*OPEN_REQUEST_STATES, RequestState.HELD)
    return paid and not payments.filter(state__in=on_the_way).exists()


def complete_if_paid(application_id: int, *, actor: str) -> bool:
    """Complete the agreement of a file whose report is submitted and final claim paid (inside
    the caller's transaction). Called on submitting the report and on confirming a payment."""
    submitted = CompletionReport.objects.filter(
        application_id=application_id, state=ReportState.SUBMITTED
    ).exists()
    if not submitted or not final_claim_paid(application_id):
        return False
    agreement = Agreement.objects.select_for_update().filter(application_id=application_id).first()
    if agreement is None or agreement.state != AgreementState.ACTIVE:
        return False
    before = agreement.state
    agreement.state = agreement_target_of("complete", agreement.state)
    agreement.save(update_fields=["state", "updated_at"])
    record(
        actor,
        "agreement.complete",
        "agreement",
        agreement.pk,
        {"application": application_id, "before": before, "state": agreement.state},
    )
    return True


def complete_paid_files(application_ids: Iterable[int], *, actor: str) -> int:
    """The payment import's hook: the files just paid whose report is in are completed."""
    ids = sorted(set(application_ids))
    waiting = CompletionReport.objects.filter(
        Q(application_id__in=ids), state=ReportState.SUBMITTED
    ).values_list("application_id", flat=True)
    return sum(complete_if_paid(application_id, actor=actor) for application_id in sorted(waiting))


def non_completers(report: CompletionReport) -> list[TraineeOutcome]:
    """The trainees reported as not completed: the officer may raise a receivable for each
    (cause "not completed", the recovery mechanism), never automatically."""
    return list(report.trainees.filter(completed=False).select_related("participant"))
