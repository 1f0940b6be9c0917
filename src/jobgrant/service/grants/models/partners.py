"""A consortium partner's consent to be named in an application.

Each partner (an ApplicationEmployer after the lead) has one PartnerConsent: pending until an
administrator of the partner accepts or declines. An application with a consent that is not
accepted cannot be submitted (grants.partner_actions). Naming a partner one administers is
consent given at once.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import pgettext_lazy

__all__ = ["ConsentState", "PartnerConsent"]


class ConsentState(models.TextChoices):
    PENDING = "pending", pgettext_lazy("partner consent", "Waiting for the partner")
    ACCEPTED = "accepted", pgettext_lazy("partner consent", "Accepted")
    DECLINED = "declined", pgettext_lazy("partner consent", "Declined")


class PartnerConsent(models.Model):
    link = models.OneToOneField(
        "grants.ApplicationEmployer", on_delete=models.CASCADE, related_name="consent"
    )
    state = models.CharField(max_length=8, choices=ConsentState.choices, default="pending")
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("id",)
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=["pending", "accepted", "declined"]),
                name="partner_consent_state_known",
            )
        ]
