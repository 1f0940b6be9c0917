"""A ranked intake's results, and the decisions taken against them (overrides)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import pgettext_lazy

from jobgrant.service.grants.models.applications import Application, Intake


class IntakeRank(models.Model):
    """One ranked application: its place, its score and each point's reason, and whether it is
    above the cut-off where the intake's budget runs out."""

    intake = models.ForeignKey(Intake, on_delete=models.PROTECT, related_name="ranks")
    application = models.OneToOneField(
        Application, on_delete=models.PROTECT, related_name="intake_rank"
    )
    rank = models.PositiveIntegerField()
    score = models.IntegerField()
    # criterion -> {points, formula, inputs, parameters}: the rules kernel's trace of the score.
    points = models.JSONField()
    within_budget = models.BooleanField()
    # The government shares of this file and of those ranked above it, per funder: why the file
    # is above or below the cut-off.
    federal_running_cents = models.BigIntegerField(default=0)
    provincial_running_cents = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["intake", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["intake", "rank"], name="one_file_per_rank"),
        ]


class OverrideDecision(models.TextChoices):
    APPROVE = "approve", pgettext_lazy("override decision", "Approve below the cut-off")
    DENY = "deny", pgettext_lazy("override decision", "Deny above the cut-off")


class OverrideState(models.TextChoices):
    REQUESTED = "requested", pgettext_lazy("override state", "Awaiting sign-off")
    SIGNED_OFF = "signed_off", pgettext_lazy("override state", "Signed off")
    REFUSED = "refused", pgettext_lazy("override state", "Refused")
    APPLIED = "applied", pgettext_lazy("override state", "Decision taken")


class RankOverride(models.Model):
    """A decision against an application's rank: asked for by an officer with a written reason,
    signed off by a second person of a higher role, then taken."""

    application = models.ForeignKey(
        Application, on_delete=models.PROTECT, related_name="rank_overrides"
    )
    decision = models.CharField(max_length=8, choices=OverrideDecision.choices)
    reason = models.TextField()
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    requested_at = models.DateTimeField()
    signed_off_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    signed_off_at = models.DateTimeField(null=True, blank=True)
    sign_off_note = models.TextField(blank=True)
    state = models.CharField(
        max_length=12, choices=OverrideState.choices, default=OverrideState.REQUESTED
    )
    applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            # One open request per file: a second is refused until the first is settled.
            models.UniqueConstraint(
                fields=["application"],
                condition=Q(state__in=["requested", "signed_off"]),
                name="one_open_override_per_application",
            ),
            # The second signatory is never the first.
            models.CheckConstraint(
                condition=Q(signed_off_by__isnull=True)
                | ~Q(signed_off_by=models.F("requested_by")),
                name="override_signed_off_by_another",
            ),
        ]
