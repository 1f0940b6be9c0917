"""Budgets and their double-entry postings, in integer cents.

A budget account is (funder, jurisdiction, fiscal year, stream). Its row carries the running
balances that the rules are enforced on (a conditional UPDATE plus CHECK constraints); the
postings are the append-only record of every movement, two or more legs summing to zero.

The row's balances nest, as money moves down the grant's path:
0 <= disbursed <= payable <= claimed <= committed <= allocated. `committed` is everything promised,
including what has since been claimed, certified or paid; `claimed` everything claimed and not
sent back, approved or not; `payable` everything certified, paid or not; `disbursed` what was
paid, net of what became a receivable. The postings' buckets are disjoint instead (a cent is in
one bucket at a time), and each nested balance is the sum of its bucket and those below it
(NESTED_BUCKETS), which `verify` recomputes. The pages show what is still waiting at each step
(`awaiting_decision_cents`, `to_pay_cents`: one bucket each), never `claimed` or `payable`, which
are running totals: once everything is paid, `payable` equals `disbursed`.
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
    claimed_cents = models.BigIntegerField(default=0)
    payable_cents = models.BigIntegerField(default=0)
    disbursed_cents = models.BigIntegerField(default=0)
    # Paid in error and owed back; then recovered (repaid or set off) or written off.
    receivable_cents = models.BigIntegerField(default=0)
    recovered_cents = models.BigIntegerField(default=0)
    written_off_cents = models.BigIntegerField(default=0)
    # Set aside for intakes and not yet committed by them (the EARMARKED bucket; ADR 0048): no
    # longer available to files outside those intakes. A default in the database too, as the
    # servers of the release before insert budget rows without it.
    earmarked_cents = models.BigIntegerField(default=0, db_default=0)

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
                condition=Q(claimed_cents__lte=F("committed_cents")),
                name="claimed_within_commitments",
            ),
            models.CheckConstraint(
                condition=Q(payable_cents__lte=F("claimed_cents")),
                name="payable_within_claims",
            ),
            models.CheckConstraint(
                condition=Q(disbursed_cents__gte=0) & Q(disbursed_cents__lte=F("payable_cents")),
                name="disbursed_within_payable",
            ),
            models.CheckConstraint(
                condition=Q(receivable_cents__gte=0)
                & Q(recovered_cents__gte=0)
                & Q(written_off_cents__gte=0),
                name="recovery_buckets_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(earmarked_cents__gte=0)
                & Q(earmarked_cents__lte=F("allocated_cents") - F("committed_cents")),
                name="earmarked_within_allocation",
            ),
        ]

    @property
    def available_cents(self) -> int:
        """What is left to commit. Money paid and then owed back (receivable), and whatever
        became of it (recovered, written off), left the commitment but is not available again:
        it is in its own bucket of the postings, not in `available` (ADR 0023)."""
        return (
            self.allocated_cents
            - self.committed_cents
            - self.receivable_cents
            - self.recovered_cents
            - self.written_off_cents
            - self.earmarked_cents
        )

    @property
    def awaiting_decision_cents(self) -> int:
        """Claimed and not yet certified or sent back: the `claimed` bucket alone."""
        return self.claimed_cents - self.payable_cents

    @property
    def to_pay_cents(self) -> int:
        """Certified and not yet paid: the `payable` bucket alone."""
        return self.payable_cents - self.disbursed_cents

    def __str__(self) -> str:
        return f"{self.funder} {self.jurisdiction} {self.fiscal_year} {self.stream}"


class Bucket(models.TextChoices):
    APPROPRIATION = "appropriation", "Appropriation (source of allocations)"
    AVAILABLE = "available", "Available"
    EARMARKED = "earmarked", "Set aside for an intake, not committed"
    COMMITTED = "committed", "Committed, not claimed"
    CLAIMED = "claimed", "Claimed, not decided"
    PAYABLE = "payable", "Certified, not paid"
    DISBURSED = "disbursed", "Disbursed"
    RECEIVABLE = "receivable", "Owed back"
    RECOVERED = "recovered", "Recovered"
    WRITTEN_OFF = "written_off", "Written off"


# Each balance on the budget row and the posting buckets it sums (see the module's docstring).
NESTED_BUCKETS: dict[str, tuple[str, ...]] = {
    "committed": ("committed", "claimed", "payable", "disbursed"),
    "claimed": ("claimed", "payable", "disbursed"),
    "payable": ("payable", "disbursed"),
    "disbursed": ("disbursed",),
    "receivable": ("receivable",),
    "recovered": ("recovered",),
    "written_off": ("written_off",),
}


class Earmark(models.Model):
    """The part of a budget account set aside for one intake (ADR 0048): its budget from this
    account, and what its files committed of it. The rows decide, as the budget row does for
    the account: a conditional UPDATE takes each commitment, and CHECK keeps it within the
    budget; the budget itself came out of the account's available money by the same means."""

    # Not indexed alone: `one_earmark_per_account` starts with it.
    intake = models.ForeignKey(
        "grants.Intake", on_delete=models.PROTECT, related_name="earmarks", db_index=False
    )
    account = models.ForeignKey(BudgetAccount, on_delete=models.PROTECT, related_name="earmarks")
    budget_cents = models.BigIntegerField(default=0)
    committed_cents = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["intake", "account"], name="one_earmark_per_account"),
            models.CheckConstraint(
                condition=Q(committed_cents__gte=0) & Q(committed_cents__lte=F("budget_cents")),
                name="earmark_committed_within_budget",
            ),
        ]

    @property
    def available_cents(self) -> int:
        return self.budget_cents - self.committed_cents


class LedgerTransaction(models.Model):
    kind = models.CharField(max_length=16)  # allocate, commit, release, claim, disburse, ...
    application = models.ForeignKey(
        "grants.Application", null=True, blank=True, on_delete=models.PROTECT
    )
    # What caused it, beyond the application: "claim:12", "payment:CJG-ON-...", "receivable:3".
    reference = models.CharField(max_length=64, blank=True, db_default="")
    actor = models.CharField(max_length=150)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # The KPIs' slippage reads a file's transactions from this index alone.
        indexes = [models.Index(fields=["application", "kind", "id"], name="transaction_kpi")]


class Posting(models.Model):
    # Each foreign key is the first column of an index below, so neither has an index of its own.
    transaction = models.ForeignKey(
        LedgerTransaction, on_delete=models.PROTECT, related_name="legs", db_index=False
    )
    account = models.ForeignKey(
        BudgetAccount, on_delete=models.PROTECT, related_name="postings", db_index=False
    )
    bucket = models.CharField(max_length=16, choices=Bucket.choices)
    amount_cents = models.BigIntegerField()

    class Meta:
        constraints = [models.CheckConstraint(condition=~Q(amount_cents=0), name="no_empty_leg")]
        # The KPIs' slippage reads a transaction's legs from the first index alone; an account's
        # balances (budget pages, `ledger verify`, the ledger reliability run's reader) are summed
        # from the second alone, in its order.
        indexes = [
            models.Index(
                fields=["transaction", "bucket", "account", "amount_cents"], name="posting_kpi"
            ),
            models.Index(fields=["account", "bucket", "amount_cents"], name="posting_balance"),
        ]
