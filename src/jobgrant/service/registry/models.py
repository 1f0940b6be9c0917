"""Employers, training providers and trainees."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from jobgrant.service.choices import JURISDICTION_CHOICES
from jobgrant.service.registry.identifiers import decrypt_sin, mask_sin


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

    class Meta:
        ordering = ["name"]

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
