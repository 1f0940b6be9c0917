"""Outcomes: the completion report, the trainees' outcomes, and the follow-ups at 3 and 12 months.

the grant's completion and follow-up practice. One completion report per file (application), filled
by the employer within the agreement's `completion_report_by`; one outcome row per participant slot;
the employer's ratings (Likert items) per employer of the file. Follow-ups are asked of the trainee
(single-use link, no account) and of the employer, at 3 and at 12 months after the training ended;
each is one row per participant, milestone and respondent, with the answers on the row.

The figures the KPIs need are columns (never JSON), so that they are computed by SQL over the
records. The questions' wording is versioned data (`grants/outcome_questions/`): a report records
the version it was asked under; `answers` keeps the answers to questions a later version adds.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy, pgettext_lazy

__all__ = [
    "LIKERT_ITEMS",
    "CompletionReport",
    "EmployerRating",
    "EmploymentType",
    "FollowUp",
    "FollowUpLink",
    "FollowUpState",
    "Milestone",
    "NotCompletedReason",
    "ReportState",
    "Respondent",
    "TraineeOutcome",
]


class ReportState(models.TextChoices):
    DRAFT = "draft", pgettext_lazy("completion report state", "Draft")
    SUBMITTED = "submitted", pgettext_lazy("completion report state", "Submitted")


class NotCompletedReason(models.TextChoices):
    LEFT_EMPLOYER = "left-employer", gettext_lazy("Left the employer before the training ended")
    ILLNESS_OR_FAMILY = "illness-or-family", gettext_lazy("Illness or family reasons")
    DROPPED_OUT = "dropped-out", gettext_lazy("Stopped attending the training")
    DID_NOT_PASS = "did-not-pass", gettext_lazy("Attended but did not pass")
    TRAINING_CANCELLED = "training-cancelled", gettext_lazy("The provider cancelled the training")
    OTHER = "other", pgettext_lazy("reason not completed", "Another reason")


class EmploymentType(models.TextChoices):
    FULL_TIME = "full-time", gettext_lazy("Full time (30 hours a week or more)")
    PART_TIME = "part-time", gettext_lazy("Part time (less than 30 hours a week)")


#: The employer's ratings in the completion report, by the code stored and the API uses.
#: Their wording lives in the versioned questions; the scale is 1 (strongly disagree) to 5.
LIKERT_ITEMS = ("relevant", "good-investment", "easy-to-access", "timely", "met-needs")


class CompletionReport(models.Model):
    """The employer's report at the end of the training: submitting it (with the final claim
    paid) completes the agreement."""

    application = models.OneToOneField(
        "grants.Application", on_delete=models.PROTECT, related_name="completion_report"
    )
    state = models.CharField(max_length=16, choices=ReportState.choices, default=ReportState.DRAFT)
    questions_version = models.CharField(
        max_length=10, help_text="The effective date (ISO) of the question set it was asked under."
    )
    due_on = models.DateField(help_text="The agreement's completion_report_by.")
    training_ended_on = models.DateField(
        help_text="The last day of training: the follow-ups count their months from it."
    )
    feedback = models.TextField(blank=True, help_text="The employer's free feedback.")
    counterfactual = models.CharField(
        max_length=16,
        blank=True,
        default="",
        db_default="",
        help_text="Would the training have happened without the grant (Counterfactual)?",
    )
    answers = models.JSONField(
        default=dict, help_text="Answers to questions a later version adds, by question id."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        constraints = (
            models.CheckConstraint(
                condition=Q(state__in=[state.value for state in ReportState]),
                name="completion_report_state_known",
            ),
            models.CheckConstraint(
                condition=Q(state="draft") | Q(submitted_at__isnull=False),
                name="submitted_report_has_its_time",
            ),
        )


class TraineeOutcome(models.Model):
    """One participant's outcome at the end of the training, as the employer reports it."""

    report = models.ForeignKey(CompletionReport, on_delete=models.CASCADE, related_name="trainees")
    participant = models.OneToOneField(
        "grants.Participant", on_delete=models.PROTECT, related_name="outcome"
    )
    completed = models.BooleanField()
    not_completed_reason = models.CharField(
        max_length=20, choices=NotCompletedReason.choices, blank=True
    )
    employed_at_end = models.BooleanField(help_text="Employed when the training ended.")
    with_this_employer = models.BooleanField(null=True, blank=True)
    employment_type = models.CharField(max_length=10, choices=EmploymentType.choices, blank=True)
    noc = models.CharField(max_length=5, blank=True, help_text="NOC 2021 unit group, validated.")
    hourly_wage_before_cents = models.BigIntegerField(null=True, blank=True)
    hourly_wage_after_cents = models.BigIntegerField(null=True, blank=True)
    answers = models.JSONField(default=dict, help_text="Answers to later versions' questions.")

    class Meta:
        ordering = ("report_id", "participant_id")
        # The KPIs read a report's outcomes from this index alone (outcomes.kpi_sql).
        indexes = (
            models.Index(
                fields=["report", "participant", "completed", "employed_at_end"],
                name="trainee_outcome_kpi",
            ),
        )
        constraints = (
            models.CheckConstraint(
                condition=Q(completed=True, not_completed_reason="")
                | Q(completed=False) & ~Q(not_completed_reason=""),
                name="reason_given_exactly_when_not_completed",
            ),
            models.CheckConstraint(
                condition=Q(employed_at_end=True)
                | Q(with_this_employer__isnull=True, employment_type="", noc=""),
                name="job_details_only_when_employed",
            ),
            models.CheckConstraint(
                condition=Q(hourly_wage_before_cents__isnull=True)
                | Q(hourly_wage_before_cents__gte=0),
                name="wage_before_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(hourly_wage_after_cents__isnull=True)
                | Q(hourly_wage_after_cents__gte=0),
                name="wage_after_not_negative",
            ),
        )


class EmployerRating(models.Model):
    """One employer's answer to one Likert item of the completion report (1 to 5)."""

    report = models.ForeignKey(CompletionReport, on_delete=models.CASCADE, related_name="ratings")
    employer = models.ForeignKey("registry.Employer", on_delete=models.PROTECT, related_name="+")
    item = models.CharField(max_length=32, choices=[(item, item) for item in LIKERT_ITEMS])
    score = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ("report_id", "employer_id", "item")
        constraints = (
            models.UniqueConstraint(
                fields=["report", "employer", "item"], name="one_rating_per_employer_and_item"
            ),
            models.CheckConstraint(
                condition=Q(score__gte=1, score__lte=5), name="likert_score_from_1_to_5"
            ),
        )


class Milestone(models.IntegerChoices):
    """Months after the training ended."""

    THREE_MONTHS = 3, gettext_lazy("3 months after the training")
    TWELVE_MONTHS = 12, gettext_lazy("12 months after the training")


class Respondent(models.TextChoices):
    TRAINEE = "trainee", pgettext_lazy("respondent", "Trainee")
    EMPLOYER = "employer", pgettext_lazy("respondent", "Employer")


class FollowUpState(models.TextChoices):
    """due → sent → reminded → responded | lapsed (sent → responded | lapsed too); the
    transitions are in `grants.follow_up_workflow`. A lapsed follow-up is never sent again."""

    DUE = "due", pgettext_lazy("follow-up state", "Due")
    SENT = "sent", pgettext_lazy("follow-up state", "Sent")
    REMINDED = "reminded", pgettext_lazy("follow-up state", "Reminded")
    RESPONDED = "responded", pgettext_lazy("follow-up state", "Responded")
    LAPSED = "lapsed", pgettext_lazy("follow-up state", "Lapsed")


class FollowUp(models.Model):
    """One question "are you (is this trainee) still employed?" to one respondent at one
    milestone. The employer's rows of a file and milestone are asked and answered together."""

    application = models.ForeignKey(
        "grants.Application", on_delete=models.PROTECT, related_name="follow_ups"
    )
    participant = models.ForeignKey(
        "grants.Participant", on_delete=models.PROTECT, related_name="follow_ups"
    )
    milestone = models.PositiveSmallIntegerField(choices=Milestone.choices)
    respondent = models.CharField(max_length=8, choices=Respondent.choices)
    state = models.CharField(
        max_length=10, choices=FollowUpState.choices, default=FollowUpState.DUE
    )
    due_on = models.DateField(help_text="training_ended_on + milestone months (end of month kept).")
    email = models.EmailField(max_length=254, blank=True)
    language = models.CharField(max_length=2, help_text="The respondent's language: en or fr.")
    sent_at = models.DateTimeField(null=True, blank=True)
    reminded_at = models.DateTimeField(null=True, blank=True)
    responded_at = models.DateTimeField(null=True, blank=True)
    lapsed_at = models.DateTimeField(null=True, blank=True)
    employed = models.BooleanField(null=True, blank=True)
    same_employer = models.BooleanField(null=True, blank=True)
    weekly_hours = models.PositiveSmallIntegerField(null=True, blank=True)
    hourly_wage_cents = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ("due_on", "id")
        constraints = (
            models.UniqueConstraint(
                fields=["participant", "milestone", "respondent"],
                name="one_follow_up_per_trainee_milestone_respondent",
            ),
            models.CheckConstraint(
                condition=Q(state__in=[state.value for state in FollowUpState]),
                name="follow_up_state_known",
            ),
            models.CheckConstraint(
                condition=~Q(state="responded")
                | Q(responded_at__isnull=False, employed__isnull=False),
                name="responded_follow_up_has_its_answer",
            ),
            models.CheckConstraint(
                condition=Q(hourly_wage_cents__isnull=True) | Q(hourly_wage_cents__gte=0),
                name="follow_up_wage_not_negative",
            ),
        )
        indexes = (
            models.Index(fields=["state", "due_on"], name="follow_up_due"),
            # The KPIs read a file's follow-ups from this index alone (outcomes.kpi_sql).
            models.Index(
                fields=[
                    "application",
                    "participant",
                    "milestone",
                    "respondent",
                    "state",
                    "employed",
                ],
                name="follow_up_kpi",
            ),
        )


class FollowUpLink(models.Model):
    """The trainee's single-use, expiring link to answer one follow-up (no account). Only the
    token's SHA-256 is kept (`service.links.digest`)."""

    follow_up = models.ForeignKey(FollowUp, on_delete=models.CASCADE, related_name="links")
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("id",)
