"""Employers, training providers and trainees."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import pgettext_lazy

from jobgrant.service.choices import JURISDICTION_CHOICES
from jobgrant.service.registry.identifiers import decrypt_sin, mask_sin


class Verification(models.TextChoices):
    """Whether an officer checked that an organization is the business its number names
    (people/organization_verification.py). Only a verified organization submits applications
    and hears of the applications that name it as a partner."""

    UNVERIFIED = "unverified", pgettext_lazy("organization verification", "Unverified")
    VERIFIED = "verified", pgettext_lazy("organization verification", "Verified")
    REFUSED = "refused", pgettext_lazy("organization verification", "Refused")
    DISPUTED = "disputed", pgettext_lazy("organization verification", "Disputed")


class Employer(models.Model):
    business_number = models.CharField(max_length=9, unique=True, help_text="BN9")
    name = models.CharField(max_length=200)
    employees = models.PositiveIntegerField()
    naics = models.CharField(max_length=6, blank=True, help_text="NAICS Canada 2022")
    jurisdiction = models.CharField(max_length=2, choices=JURISDICTION_CHOICES)
    region = models.CharField(max_length=4, blank=True, help_text="Economic region (SGC 2016)")
    # The address an organization registered with (blank for those registered before); the
    # province of the postal code is the jurisdiction's (registry.identifiers.postal_code_fits).
    street_address = models.CharField(max_length=200, blank=True, default="")
    city = models.CharField(max_length=100, blank=True, default="")
    postal_code = models.CharField(max_length=7, blank=True, default="")
    # Its telephone number as NNN-NNN-NNNN (registry.identifiers.normalize_phone), asked at
    # registration; blank for those registered before. A default in the database too, so that
    # the servers of the release before, which do not know the column, can still register.
    phone = models.CharField(max_length=12, blank=True, default="", db_default="")
    # Where the grant is paid (direct deposit), set by the organization's administrator
    # (people/direct_deposit.py). The institution and transit numbers name a branch and are kept
    # in clear; the account number is sealed (AES-GCM, registry/bank_accounts.py), matched
    # through a keyed index over the whole account (institution, transit and number) without
    # being read, and shown by its last digits only. Defaults in the database too, so that the
    # servers of the release before, which do not know the columns, can still register.
    bank_institution = models.CharField(max_length=3, blank=True, default="", db_default="")
    bank_transit = models.CharField(max_length=5, blank=True, default="", db_default="")
    bank_account_key_id = models.CharField(max_length=16, blank=True, default="", db_default="")
    bank_account_ciphertext = models.BinaryField(null=True, blank=True)
    bank_account_index = models.CharField(max_length=64, blank=True, default="", db_default="")
    bank_account_last_digits = models.CharField(max_length=4, blank=True, default="", db_default="")
    # Unverified until an officer checks it; a default in the database too, so that an
    # organization the servers of the release before register is unverified as well.
    verification = models.CharField(
        max_length=10,
        choices=Verification.choices,
        default=Verification.UNVERIFIED,
        db_default=Verification.UNVERIFIED,
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(verification__in=["unverified", "verified", "refused", "disputed"]),
                name="employer_verification_known",
            )
        ]

    @property
    def has_bank_account(self) -> bool:
        return bool(self.bank_account_index)

    @property
    def masked_bank_account(self) -> str:
        """The account as shown on pages: institution, transit and the last digits only."""
        if not self.bank_account_index:
            return ""
        return f"{self.bank_institution}-{self.bank_transit}-****{self.bank_account_last_digits}"

    @property
    def is_verified(self) -> bool:
        return self.verification == Verification.VERIFIED

    def __str__(self) -> str:
        return f"{self.name} ({self.business_number})"


class TrainingProvider(models.Model):
    name = models.CharField(max_length=200)
    third_party = models.BooleanField(default=True)

    def __str__(self) -> str:
        return self.name


class Trainee(models.Model):
    """A person trained; the SIN is held encrypted and shown masked."""

    given_name = models.CharField(max_length=100)
    family_name = models.CharField(max_length=100)
    employer = models.ForeignKey(Employer, null=True, on_delete=models.PROTECT)
    sin_key_id = models.CharField(max_length=16, blank=True)
    sin_ciphertext = models.BinaryField(null=True)
    sin_index = models.CharField(max_length=64, blank=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["sin_index"], condition=~Q(sin_index=""), name="one_trainee_per_sin"
            )
        ]

    def sin(self) -> str:
        """The SIN in full: callers must check the view_sin permission and audit the view."""
        if not self.sin_ciphertext:
            return ""
        return decrypt_sin(self.sin_key_id, bytes(self.sin_ciphertext))

    @property
    def masked_sin(self) -> str:
        return mask_sin(self.sin()) if self.sin_ciphertext else ""
