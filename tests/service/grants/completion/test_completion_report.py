"""The completion report: started after the training, saved as a draft with every field checked
(named in English and French; nothing written on bad input), submitted once every trainee has an
outcome; the slots, the follow-ups, the employer's message and the agreement's completion."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from tests import canonical
from tests.personas import EMPLOYER
from tests.service.grants.claim_helpers import during_training
from tests.service.grants.outcome_helpers import (
    TRAINING_END,
    after_training,
    all_ratings,
    ended_file,
    filled_report,
    outcome,
)
from tests.service.grants.payment_helpers import (
    certified_claim,
    confirm_all,
    finance,
    second_finance,
)
from tests.service.grants.payments.test_payments import build, paid_through

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.completion import report as completion_actions
from jobgrant.service.grants.models.agreements import Agreement, AgreementState
from jobgrant.service.grants.models.completion import (
    CompletionReport,
    FollowUp,
    ReportState,
    TraineeOutcome,
)
from jobgrant.service.grants.models.participants import ParticipantState
from jobgrant.service.grants.models.payments import Receivable
from jobgrant.service.grants.payments import batches as payment_batches
from jobgrant.service.grants.payments import confirmation as payment_confirmation
from jobgrant.service.grants.payments import export as payment_export
from jobgrant.service.notifications.models import Message

pytestmark = pytest.mark.django_db


def test_the_report_opens_a_week_before_the_training_ends_and_is_due_30_days_after(
    demo: None,
) -> None:
    application, _ = ended_file()
    with during_training(), pytest.raises(ServiceError) as refused:
        completion_actions.start_completion_report(application, by=EMPLOYER.get())
    assert refused.value.code == "TRAINING_NOT_ENDED"
    assert "2027-03-19" in refused.value.message_en and "2027-03-19" in refused.value.message_fr
    assert not CompletionReport.objects.exists()
    with after_training():
        report = completion_actions.start_completion_report(application, by=EMPLOYER.get())
        again = completion_actions.start_completion_report(application, by=EMPLOYER.get())
    assert again.pk == report.pk
    assert report.training_ended_on == TRAINING_END
    assert report.due_on == TRAINING_END + dt.timedelta(days=30)
    assert report.questions_version == "2013-03-21"
    assert AuditEntry.objects.filter(action="completion_report.start").count() == 1


def test_bad_answers_name_each_field_in_both_languages_and_write_nothing(demo: None) -> None:
    application, slots = ended_file()
    with after_training():
        report = completion_actions.start_completion_report(application, by=EMPLOYER.get())
        bad = [
            outcome(slots[0], completed=False, noc="99999", hourly_wage_after="-3"),
            outcome(slots[1], employment_type="weekends", hourly_wage_before="lots"),
        ]
        employer = application.employers.first().employer_id
        with pytest.raises(ServiceError) as refused:
            completion_actions.save_completion_report(
                report,
                trainees=bad,
                ratings={(employer, "relevant"): 7, (employer, "fun"): 3},
                feedback="x" * 5000,
                by=EMPLOYER.get(),
            )
    fields = {problem["field"]: problem for problem in refused.value.problems}
    assert set(fields) == {
        "trainees[0].not_completed_reason",
        "trainees[0].noc",
        "trainees[0].hourly_wage_after",
        "trainees[1].employment_type",
        "trainees[1].hourly_wage_before",
        f"ratings[{employer}][relevant]",
        f"ratings[{employer}][fun]",
        "feedback",
    }
    assert "NOC 2021" in fields["trainees[0].noc"]["message_en"]
    assert "CNP 2021" in fields["trainees[0].noc"]["message_fr"]
    assert not TraineeOutcome.objects.exists()
    assert not AuditEntry.objects.filter(action="completion_report.save").exists()


def test_a_draft_keeps_wages_in_cents_and_is_replaced_by_the_next_save(demo: None) -> None:
    application, slots = ended_file()
    with after_training():
        report = filled_report(application, slots, hourly_wage_after="27,25")
        first = TraineeOutcome.objects.get(participant=slots[0])
        assert (first.hourly_wage_before_cents, first.hourly_wage_after_cents) == (2450, 2725)
        completion_actions.save_completion_report(
            report,
            trainees=[outcome(slots[0], employed_at_end=False, with_this_employer=None)],
            ratings={},
            feedback="",
            by=EMPLOYER.get(),
        )
    kept = TraineeOutcome.objects.get()
    assert kept.employed_at_end is False and kept.noc == "" and kept.hourly_wage_after_cents is None
    assert report.ratings.count() == 0


def test_submitting_needs_every_trainee_and_rating_then_schedules_the_follow_ups(
    demo: None,
) -> None:
    application, slots = ended_file()
    with after_training():
        report = completion_actions.start_completion_report(application, by=EMPLOYER.get())
        completion_actions.save_completion_report(
            report,
            trainees=[outcome(slots[0])],
            ratings=all_ratings(application),
            feedback="",
            by=EMPLOYER.get(),
        )
        with pytest.raises(ServiceError) as refused:
            completion_actions.submit_completion_report(report, by=EMPLOYER.get())
        assert refused.value.code == "OUTCOMES_MISSING"
        assert "trainee-2" in refused.value.message_en and "trainee-2" in refused.value.message_fr
        assert refused.value.extra["missing"] == ["trainee-2"]
        assert not FollowUp.objects.exists()
        report = filled_report(application, slots)
        submitted = completion_actions.submit_completion_report(report, by=EMPLOYER.get())
        with pytest.raises(ServiceError) as again:
            completion_actions.submit_completion_report(report, by=EMPLOYER.get())
    assert again.value.code == "REPORT_SUBMITTED"
    assert submitted.state == ReportState.SUBMITTED
    for slot in slots:
        slot.refresh_from_db()
        assert slot.state == ParticipantState.OUTCOME_REPORTED
    due = sorted(FollowUp.objects.values_list("milestone", "respondent", "due_on"))
    assert len(due) == 8
    assert {day for _, _, day in due} == {dt.date(2027, 6, 26), dt.date(2028, 3, 26)}
    messages = Message.objects.filter(kind="completion_report_received")
    assert messages.count() == 1 and messages.get().recipient == EMPLOYER.get().email
    # Not paid yet: the agreement is not complete.
    application.agreement.refresh_from_db()
    assert application.agreement.state != AgreementState.COMPLETED


def test_someone_else_cannot_start_or_save_a_report(demo: None) -> None:
    from tests.personas import OFFICER

    application, _ = ended_file()
    with after_training(), pytest.raises(ServiceError) as refused:
        completion_actions.start_completion_report(application, by=OFFICER.get())
    assert refused.value.status == 403
    assert AuditEntry.objects.filter(action="refused.start_completion_report").exists()


def final_claim(application: Any) -> None:
    """The final claim, certified (payment_helpers writes it as its approval leaves it); the
    agreement active, as the claim's submission leaves it."""
    Agreement.objects.filter(application=application).update(state=AgreementState.ACTIVE)
    certified_claim(application, federal=300_000, is_final=True)


def agreement_state(application: Any) -> str:
    return Agreement.objects.get(application=application).state


def test_the_report_then_the_payment_completes_the_agreement_when_the_payment_is_confirmed(
    demo: None,
) -> None:
    application, slots = ended_file()
    final_claim(application)
    with after_training():
        report = filled_report(application, slots)
        completion_actions.submit_completion_report(report, by=EMPLOYER.get())
    assert agreement_state(application) == AgreementState.ACTIVE  # not paid yet
    batch = build()
    payment_batches.authorize_batch(second_finance(), batch)
    content = payment_export.export_batch(finance(), batch)
    assert agreement_state(application) == AgreementState.ACTIVE  # exported, not confirmed
    payment_confirmation.import_confirmations(finance(), batch, confirm_all(content))
    assert agreement_state(application) == AgreementState.COMPLETED
    entry = AuditEntry.objects.get(action="agreement.complete")
    assert entry.actor == finance().username and entry.summary["before"] == "active"


def test_the_payment_then_the_report_completes_the_agreement_when_the_report_is_submitted(
    demo: None,
) -> None:
    application = canonical.put("paid")  # its final claim paid
    slots = canonical.participants(application)
    assert agreement_state(application) == AgreementState.ACTIVE  # no report yet
    with after_training():
        report = filled_report(application, slots)
        completion_actions.submit_completion_report(report, by=EMPLOYER.get())
    assert agreement_state(application) == AgreementState.COMPLETED
    assert AuditEntry.objects.get(action="agreement.complete").actor == EMPLOYER.username


def test_an_interim_claim_paid_does_not_complete_the_agreement(demo: None) -> None:
    application, slots = ended_file()
    Agreement.objects.filter(application=application).update(state=AgreementState.ACTIVE)
    certified_claim(application, federal=200_000, is_final=False)
    paid_through(build())
    with after_training():
        report = filled_report(application, slots)
        completion_actions.submit_completion_report(report, by=EMPLOYER.get())
    assert agreement_state(application) == AgreementState.ACTIVE


def test_a_trainee_not_completed_is_offered_as_a_receivable_never_raised_by_itself(
    demo: None,
) -> None:
    application, slots = ended_file()
    with after_training():
        report = filled_report(
            application,
            slots,
            completed=False,
            not_completed_reason="left-employer",
            employed_at_end=False,
            with_this_employer=None,
            employment_type=None,
            noc=None,
            hourly_wage_after=None,
        )
        completion_actions.submit_completion_report(report, by=EMPLOYER.get())
    assert [o.participant_id for o in completion_actions.non_completers(report)] == [slots[0].pk]
    assert not Receivable.objects.exists()
