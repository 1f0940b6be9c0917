"""Budgets and their double-entry postings, in integer cents.

A budget account is (funder, jurisdiction, fiscal year, stream). Its row carries the running
balances that the rules are enforced on (a conditional UPDATE plus CHECK constraints); the
postings are the append-only record of every movement, two or more legs summing to zero.
"""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy

from jobgrant.service.choices import JURISDICTION_CHOICES, StreamCode


class Funder(models.TextChoices):
    FEDERAL = "federal", gettext_lazy("Federal")
    PROVINCIAL = "provincial", gettext_lazy("Provincial or territorial")


class BudgetAccount(models.Model):
    funder = models.CharField(max_length=16, choices=Funder.choices)
    jurisdiction = models.CharField(max_length=2, choices=JURISDICTION_CHOICES)
    fiscal_year = models.CharField(max_length=7)
    stream = models.CharField(max_length=32, choices=StreamCode.choices, default=StreamCode.CJG)
    allocated_cents = models.BigIntegerField(default=0)
    committed_cents = models.BigIntegerField(default=0)
    disbursed_cents = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["funder", "jurisdiction", "fiscal_year", "stream"],
                name="one_budget_per_pool",
            ),
            models.CheckConstraint(
                condition=Q(committed_cents__gte=0) & Q(committed_cents__lte=F("allocated_cents")),
                name="committed_within_allocation",
            ),
            models.CheckConstraint(
                condition=Q(disbursed_cents__gte=0) & Q(disbursed_cents__lte=F("committed_cents")),
                name="disbursed_within_commitments",
            ),
        ]

    @property
    def available_cents(self) -> int:
        return self.allocated_cents - self.committed_cents

    def __str__(self) -> str:
        return f"{self.funder} {self.jurisdiction} {self.fiscal_year} {self.stream}"


class Bucket(models.TextChoices):
    APPROPRIATION = "appropriation", "Appropriation (source of allocations)"
    AVAILABLE = "available", "Available"
    COMMITTED = "committed", "Committed"
    DISBURSED = "disbursed", "Disbursed"


class LedgerTransaction(models.Model):
    kind = models.CharField(max_length=16)  # allocate, commit, release, disburse
    application = models.ForeignKey(
        "grants.Application", null=True, blank=True, on_delete=models.PROTECT
    )
    actor = models.CharField(max_length=150)
    created_at = models.DateTimeField(auto_now_add=True)


class Posting(models.Model):
    transaction = models.ForeignKey(
        LedgerTransaction, on_delete=models.PROTECT, related_name="legs"
    )
    account = models.ForeignKey(BudgetAccount, on_delete=models.PROTECT, related_name="postings")
    bucket = models.CharField(max_length=16, choices=Bucket.choices)
    amount_cents = models.BigIntegerField()

    class Meta:
        constraints = [models.CheckConstraint(condition=~Q(amount_cents=0), name="no_empty_leg")]
