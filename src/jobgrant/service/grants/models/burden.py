"""The burden meter's records: how long an employer's step took, from the first time its page was
shown to the step's submission, and each field error a form showed (which form, which field,
which kind of error: never what was typed).

A step is timed on the server, from the pages' own requests: no script runs in the browser and
no keystroke is seen. A wizard step is timed on the application being written (its FormDraft)
and moves to the file when the application is created; the other steps belong to their file
from the start. ADR 0046.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from jobgrant.service.grants.models.applications import Application, FormDraft

__all__ = ["BurdenStep", "FieldErrorShown", "StepTiming"]


class BurdenStep(models.TextChoices):
    """The steps an employer (or a trainee, for the participant form) goes through on pages."""

    APPLY_ORGANIZATIONS = "apply.organizations", _("Application: organizations")
    APPLY_TRAINING = "apply.training", _("Application: training and provider")
    APPLY_TRAINEES = "apply.trainees", _("Application: trainees and costs")
    APPLY_DECLARATIONS = "apply.declarations", _("Application: declarations")
    APPLY_REVIEW = "apply.review", _("Application: review and submit")
    APPLICATION = "application", _("The whole application")
    PARTICIPANT_FORM = "participant-form", _("A trainee's participant form")
    CHANGE = "change", _("A change request")
    CLAIM = "claim", _("A claim")
    COMPLETION = "completion", _("The completion report")


#: The wizard's steps, by the name the wizard gives them.
WIZARD_STEPS = {
    "organizations": BurdenStep.APPLY_ORGANIZATIONS,
    "training": BurdenStep.APPLY_TRAINING,
    "trainees": BurdenStep.APPLY_TRAINEES,
    "declarations": BurdenStep.APPLY_DECLARATIONS,
    "review": BurdenStep.APPLY_REVIEW,
}


class StepTiming(models.Model):
    """One step of one file (or of the application being written): when its page was first
    shown, when it was first submitted, and how many times it was sent back."""

    step = models.CharField(max_length=24, choices=BurdenStep.choices)
    application = models.ForeignKey(
        Application, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    draft = models.ForeignKey(
        FormDraft,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        help_text="The application being written, until it becomes a file.",
    )
    #: What the step is about within its file: a claim's, a change request's or a participant's
    #: id; 0 for a step a file goes through once (the wizard's, the completion report).
    subject = models.PositiveBigIntegerField(default=0)
    first_viewed_at = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    #: submitted_at - first_viewed_at, whole seconds: what the figures read.
    seconds = models.PositiveBigIntegerField(null=True, blank=True)
    sent_back = models.PositiveIntegerField(
        default=0,
        help_text="Times it was sent back: a claim returned, a change refused as incomplete.",
    )
    employees = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="The lead employer's employees when it applied (ApplicationEmployer.employees).",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["application", "step", "subject"],
                condition=models.Q(application__isnull=False),
                name="step_timing_per_file",
            ),
            models.UniqueConstraint(
                fields=["draft", "step"],
                condition=models.Q(draft__isnull=False),
                name="step_timing_per_draft",
            ),
        ]


class FieldErrorShown(models.Model):
    """A field error shown to an employer or a trainee: the form's name, the field's and the
    error's code. Never the value typed, nor who typed it."""

    form = models.CharField(max_length=64)
    field = models.CharField(max_length=64)
    code = models.CharField(max_length=64)
    shown_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["shown_at"], name="field_error_by_time")]
