"""The comparison group of the net outcomes: applicants the grant did not fund (refused for lack
of budget, or below an intake's cut-off where intakes are ranked), asked about the trainees named
in their application at 3 and 12 months, with their consent.

One row per named trainee (by position in `Application.request["trainees"]`) and milestone, with
the answers on the row, as the treated files' `FollowUp` rows hold theirs. The respondent is the
employer (a refused application has no participants, so no trainee can be reached): one e-mailed
link per file and milestone (`ComparisonLink`, only the token's SHA-256 kept) opens a page that
first asks the employer's consent, then the same questions the treated files' follow-ups ask.
The rows are a table of their own, not `FollowUp`, so that the treated KPIs never read them and
a `FollowUp` keeps its participant.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import pgettext_lazy

__all__ = ["ComparisonFollowUp", "ComparisonLink", "ComparisonSource", "ComparisonState"]


class ComparisonSource(models.TextChoices):
    """Why the file is in the comparison group."""

    NO_BUDGET = "no-budget", pgettext_lazy("comparison source", "Refused for lack of budget")
    BELOW_CUT_OFF = "below-cut-off", pgettext_lazy("comparison source", "Below the cut-off")


class ComparisonState(models.TextChoices):
    """due → sent → reminded → responded | lapsed, as a follow-up (`completion.workflow`), and
    declined: the employer said no to being asked (every row of its file, both milestones)."""

    DUE = "due", pgettext_lazy("follow-up state", "Due")
    SENT = "sent", pgettext_lazy("follow-up state", "Sent")
    REMINDED = "reminded", pgettext_lazy("follow-up state", "Reminded")
    RESPONDED = "responded", pgettext_lazy("follow-up state", "Responded")
    LAPSED = "lapsed", pgettext_lazy("follow-up state", "Lapsed")
    DECLINED = "declined", pgettext_lazy("follow-up state", "Declined")


class ComparisonFollowUp(models.Model):
    """ "Is this person employed?" asked of the employer about one trainee its unfunded
    application named, at one milestone after the training's planned end."""

    application = models.ForeignKey(
        "grants.Application", on_delete=models.PROTECT, related_name="comparison_follow_ups"
    )
    position = models.PositiveIntegerField(
        help_text="The trainee's index in the application's request[\"trainees\"]."
    )
    source = models.CharField(max_length=16, choices=ComparisonSource.choices)
    milestone = models.PositiveSmallIntegerField(help_text="Months after the planned end: 3, 12.")
    state = models.CharField(
        max_length=10, choices=ComparisonState.choices, default=ComparisonState.DUE
    )
    due_on = models.DateField(help_text="The planned end of training + milestone months.")
    email = models.EmailField(max_length=254, blank=True)
    language = models.CharField(max_length=2, help_text="The employer's language: en or fr.")
    consent = models.BooleanField(
        null=True, blank=True, help_text="The employer's consent to be asked; None: not asked yet."
    )
    sent_at = models.DateTimeField(null=True, blank=True)
    reminded_at = models.DateTimeField(null=True, blank=True)
    responded_at = models.DateTimeField(null=True, blank=True)
    lapsed_at = models.DateTimeField(null=True, blank=True)
    employed = models.BooleanField(null=True, blank=True)
    same_employer = models.BooleanField(null=True, blank=True)
    weekly_hours = models.PositiveSmallIntegerField(null=True, blank=True)
    hourly_wage_cents = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ("due_on", "application_id", "position", "milestone")
        constraints = (
            models.UniqueConstraint(
                fields=["application", "position", "milestone"],
                name="one_comparison_follow_up_per_trainee_milestone",
            ),
            models.CheckConstraint(
                condition=Q(state__in=[state.value for state in ComparisonState]),
                name="comparison_state_known",
            ),
            models.CheckConstraint(
                condition=~Q(state="responded")
                | Q(responded_at__isnull=False, employed__isnull=False, consent=True),
                name="responded_comparison_has_its_answer_and_consent",
            ),
            models.CheckConstraint(
                condition=Q(hourly_wage_cents__isnull=True) | Q(hourly_wage_cents__gte=0),
                name="comparison_wage_not_negative",
            ),
        )
        indexes = (models.Index(fields=["state", "due_on"], name="comparison_due"),)


class ComparisonLink(models.Model):
    """The employer's single-use, expiring link to one file's comparison questions at one
    milestone. Only the token's SHA-256 is kept (`service.links`)."""

    application = models.ForeignKey(
        "grants.Application", on_delete=models.CASCADE, related_name="comparison_links"
    )
    milestone = models.PositiveSmallIntegerField()
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("id",)
