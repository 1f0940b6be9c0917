"""What the employer declares with an application: who prepared it and for what fee, ties between
the employer and the training provider, other government funding for the same training, the
provider's details, and the trainer's and the employer's conflict-of-interest attestations.

One declaration per application, made whole or not at all (grants/applications/declarations.py
checks it). Applications made before declarations were asked have none: the pages say so.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import pgettext_lazy

__all__ = ["ApplicationDeclaration", "PreparedBy", "Relation"]


class PreparedBy(models.TextChoices):
    """Who prepared the application. Only the employer's own account submits it."""

    EMPLOYER = "employer", pgettext_lazy("prepared by", "The employer")
    CONSULTANT = "consultant", pgettext_lazy("prepared by", "A consultant paid by the employer")
    PROVIDER = "provider", pgettext_lazy("prepared by", "The training provider")


class Relation(models.TextChoices):
    """How the employer and the training provider are related."""

    OWNERS = "owners", pgettext_lazy("relation", "Owners in common")
    DIRECTORS = "directors", pgettext_lazy("relation", "Directors or officers in common")
    FAMILY = "family", pgettext_lazy("relation", "Family ties")
    SHARED_ADDRESS = "shared_address", pgettext_lazy("relation", "The same address")


class ApplicationDeclaration(models.Model):
    application = models.OneToOneField(
        "grants.Application", on_delete=models.CASCADE, related_name="declaration"
    )
    prepared_by = models.CharField(max_length=10, choices=PreparedBy.choices)
    preparer_name = models.CharField(
        max_length=200, blank=True, help_text="The consultant or provider; blank for the employer."
    )
    preparer_fee_cents = models.BigIntegerField(
        null=True, blank=True, help_text="What the preparer is paid; null when the employer."
    )
    related_to_provider = models.BooleanField()
    relations = models.JSONField(default=list, help_text="Relation codes; empty when unrelated.")
    other_funding = models.BooleanField(help_text="Other government funding, same training.")
    other_funding_program = models.CharField(max_length=200, blank=True)
    other_funding_cents = models.BigIntegerField(null=True, blank=True)
    provider_public_institution = models.BooleanField(
        help_text="A public college, university or school board: no business number asked."
    )
    provider_business_number = models.CharField(max_length=9, blank=True, help_text="BN9")
    provider_street_address = models.CharField(max_length=200)
    provider_city = models.CharField(max_length=100)
    provider_postal_code = models.CharField(max_length=7)
    provider_phone = models.CharField(max_length=12, help_text="NNN-NNN-NNNN")
    trainer_name = models.CharField(
        max_length=200, help_text="Who signed the trainer's attestation, for the provider."
    )
    trainer_attests_no_conflict = models.BooleanField()
    employer_attests_no_conflict = models.BooleanField()
    declared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    declared_at = models.DateTimeField(help_text="When the employer attested.")

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(prepared_by__in=["employer", "consultant", "provider"]),
                name="declaration_preparer_known",
            ),
            # A consultant or the provider is paid something, if only nothing: the fee is said.
            models.CheckConstraint(
                condition=Q(prepared_by="employer", preparer_fee_cents__isnull=True)
                | Q(preparer_fee_cents__gte=0),
                name="declaration_preparer_fee_said",
            ),
            models.CheckConstraint(
                condition=Q(other_funding=False) | Q(other_funding_cents__gte=0),
                name="declaration_other_funding_said",
            ),
            models.CheckConstraint(
                condition=Q(trainer_attests_no_conflict=True, employer_attests_no_conflict=True),
                name="declaration_attested",
            ),
        ]
