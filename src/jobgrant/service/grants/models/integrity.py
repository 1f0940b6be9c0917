"""Integrity: the risk flags an officer sees on a file, and what they were worked out from.

A flag is a finding, never a decision: it names its kind, what it is about (`subject`, e.g. the
course price compared with the provider's or the course's usual price) and the figures it
compared, stored as data so that its sentence is written in the reader's language
(grants/integrity/sentences.py). An open flag keeps an application from being recommended until
an officer clears it with a reason; a flag whose finding no longer holds when it is worked out
again lapses. `SubmittedTraining` keeps, per submitted application, the provider and course it
names and its cost per trainee, so that usual prices and a provider's files are read by index
rather than from every application's stored request.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import pgettext_lazy


class FlagKind(models.TextChoices):
    RELATED_PROVIDER = (
        "related_provider",
        pgettext_lazy("risk flag", "Provider related to the employer"),
    )
    PRICE_ABOVE_USUAL = (
        "price_above_usual",
        pgettext_lazy("risk flag", "Price far above the usual price"),
    )
    PREPARED_BY_PROVIDER = (
        "prepared_by_provider",
        pgettext_lazy("risk flag", "Application prepared by the training provider"),
    )
    RECEIPT_REUSED = "receipt_reused", pgettext_lazy("risk flag", "Receipt used in another file")
    SHARED_BANK_ACCOUNT = (
        "shared_bank_account",
        pgettext_lazy("risk flag", "Bank account shared with another employer"),
    )
    TRAINEE_ACROSS_YEARS = (
        "trainee_across_years",
        pgettext_lazy("risk flag", "Trainee funded across several years"),
    )
    PROVIDER_RECEIVABLES = (
        "provider_receivables",
        pgettext_lazy("risk flag", "Provider whose files often had receivables"),
    )


class FlagState(models.TextChoices):
    OPEN = "open", pgettext_lazy("risk flag state", "Open")
    CLEARED = "cleared", pgettext_lazy("risk flag state", "Cleared")
    LAPSED = "lapsed", pgettext_lazy("risk flag state", "No longer found")


class RiskFlag(models.Model):
    application = models.ForeignKey(
        "grants.Application", on_delete=models.PROTECT, related_name="risk_flags"
    )
    claim = models.ForeignKey(
        "grants.Claim",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The claim whose receipt raised it (receipt flags only).",
    )
    kind = models.CharField(max_length=32, choices=FlagKind.choices)
    subject = models.CharField(
        max_length=100,
        help_text="What the flag is about within its kind (e.g. 'provider' or 'course' for a"
        " price, a receipt's SHA-256): one flag per application, kind and subject.",
    )
    provider_key = models.CharField(
        max_length=200, blank=True, help_text="The provider's name, compared as a key."
    )
    figures = models.JSONField(
        help_text="What was compared, as data (cents, counts, names): the sentence is written"
        " from them in the reader's language. Never a SIN or an account number."
    )
    state = models.CharField(max_length=8, choices=FlagState.choices, default=FlagState.OPEN)
    raised_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    cleared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    cleared_at = models.DateTimeField(null=True, blank=True)
    clear_reason = models.TextField(blank=True)

    class Meta:
        ordering = ("application_id", "id")
        constraints = (
            models.UniqueConstraint(
                fields=["application", "kind", "subject"], name="one_risk_flag_per_subject"
            ),
            models.CheckConstraint(
                condition=~Q(state="cleared")
                | (Q(cleared_by__isnull=False) & Q(cleared_at__isnull=False) & ~Q(clear_reason="")),
                name="cleared_flag_has_reason",
            ),
        )
        indexes = (
            models.Index(fields=["provider_key", "state"], name="risk_flag_by_provider"),
            models.Index(fields=["application", "state"], name="risk_flag_open"),
        )


class SubmittedTraining(models.Model):
    """The training a submitted application names, as the flags compare it."""

    application = models.OneToOneField(
        "grants.Application", on_delete=models.CASCADE, related_name="submitted_training"
    )
    provider_key = models.CharField(max_length=200, db_index=True)
    provider_name = models.CharField(max_length=200)
    course_key = models.CharField(max_length=200, blank=True, db_index=True)
    course_name = models.CharField(max_length=200, blank=True)
    trainees = models.PositiveIntegerField()
    cost_per_trainee_cents = models.BigIntegerField(
        help_text="The direct training costs of all trainees, divided by their number (cents,"
        " rounded down)."
    )
