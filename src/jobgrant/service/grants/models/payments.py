"""Payments (FAA s.33) and recovery: batches, payment requests, confirmation imports, receivables.

A batch is built by finance for a jurisdiction and fiscal year from the certified (approved)
claims not on hold: one PaymentRequest per claim and funder, for approved to date − paid to
date. A second finance user authorizes it (never its builder, never a claim's certifier); its
export is the file the paying system imports; the paying system's confirmation file is matched
on each request's document number, and a confirmed request disburses in the transaction of the
import. A Receivable is money to get back: raised for an overpayment, due some days later,
recovered by repayments or set off against the next payment to the same employer, or written
off by finance with a second approver.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy, pgettext_lazy

from jobgrant.service.choices import JURISDICTION_CHOICES

__all__ = [
    "OPEN_REQUEST_STATES",
    "BatchState",
    "ConfirmationImport",
    "ConfirmationLine",
    "DocumentCounter",
    "LineOutcome",
    "PaymentBatch",
    "PaymentRequest",
    "Receivable",
    "ReceivableCause",
    "ReceivableState",
    "Recovery",
    "RecoveryKind",
    "RequestState",
    "SetOff",
]


class BatchState(models.TextChoices):
    BUILT = "built", pgettext_lazy("batch state", "Built, awaiting authorization")
    AUTHORIZED = "authorized", pgettext_lazy("batch state", "Authorized, ready to export")
    EXPORTED = "exported", pgettext_lazy("batch state", "Exported, awaiting confirmation")
    RECONCILED = "reconciled", pgettext_lazy("batch state", "Reconciled: every payment confirmed")


class RequestState(models.TextChoices):
    BATCHED = "batched", pgettext_lazy("payment state", "In a batch")
    AUTHORIZED = "authorized", pgettext_lazy("payment state", "Authorized")
    EXPORTED = "exported", pgettext_lazy("payment state", "Sent to the paying system")
    PAID = "paid", pgettext_lazy("payment state", "Paid")
    HELD = "held", pgettext_lazy("payment state", "Held")
    CANCELLED = "cancelled", pgettext_lazy("payment state", "Hold lifted: paid in a later batch")


#: A request in one of these states still holds its claim's money: no other batch may take it.
OPEN_REQUEST_STATES = (RequestState.BATCHED, RequestState.AUTHORIZED, RequestState.EXPORTED)


class PaymentBatch(models.Model):
    jurisdiction = models.CharField(max_length=2, choices=JURISDICTION_CHOICES)
    fiscal_year = models.CharField(max_length=7)
    state = models.CharField(max_length=16, choices=BatchState.choices, default=BatchState.BUILT)
    built_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    built_at = models.DateTimeField()
    authorized_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    authorized_at = models.DateTimeField(null=True, blank=True)
    exported_at = models.DateTimeField(null=True, blank=True)
    export_sha256 = models.CharField(max_length=64, blank=True)
    export_csv = models.TextField(blank=True, help_text="The file exported, kept byte for byte.")
    total_cents = models.BigIntegerField(default=0, help_text="What the paying system pays.")
    requests_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-id"]
        constraints = [
            # s.33 after s.34, by another person: the builder never authorizes their batch.
            models.CheckConstraint(
                condition=Q(authorized_by__isnull=True) | ~Q(authorized_by=F("built_by")),
                name="batch_authorizer_is_not_builder",
            ),
        ]

    def __str__(self) -> str:
        return f"payment batch {self.pk} ({self.jurisdiction} {self.fiscal_year})"


class DocumentCounter(models.Model):
    """The last document number given in a jurisdiction and fiscal year. Building a batch locks
    this row first, so two batches of one jurisdiction and year are built one after the other."""

    jurisdiction = models.CharField(max_length=2, choices=JURISDICTION_CHOICES)
    fiscal_year = models.CharField(max_length=7)
    last = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["jurisdiction", "fiscal_year"], name="one_document_counter_per_year"
            )
        ]


class PaymentRequest(models.Model):
    # Every payment's row is written once and updated three times (authorized, exported, paid),
    # each update touching every index: the foreign keys nothing looks payments up by (payee,
    # account, holder) have none, the file's is the first column of payment_by_file, and the
    # document number's uniqueness is a constraint (no second, pattern index beside it).
    batch = models.ForeignKey(PaymentBatch, on_delete=models.PROTECT, related_name="requests")
    claim = models.ForeignKey("grants.Claim", on_delete=models.PROTECT, related_name="payments")
    application = models.ForeignKey(
        "grants.Application", on_delete=models.PROTECT, related_name="payments", db_index=False
    )
    payee = models.ForeignKey(
        "registry.Employer", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    account = models.ForeignKey(
        "ledger.BudgetAccount", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    funder = models.CharField(max_length=16)
    document_number = models.CharField(max_length=32)
    gross_cents = models.BigIntegerField(help_text="Approved to date − paid to date.")
    set_off_cents = models.BigIntegerField(default=0, help_text="Receivables netted from it.")
    net_cents = models.BigIntegerField(help_text="What the paying system pays: gross − set-off.")
    state = models.CharField(
        max_length=16, choices=RequestState.choices, default=RequestState.BATCHED
    )
    held_reason = models.TextField(blank=True)
    held_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,
    )
    paid_on = models.DateField(null=True, blank=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    payment_reference = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(gross_cents__gt=0)
                & Q(set_off_cents__gte=0)
                & Q(set_off_cents__lte=F("gross_cents"))
                & Q(net_cents=F("gross_cents") - F("set_off_cents")),
                name="payment_amounts_add_up",
            ),
            models.UniqueConstraint(fields=["document_number"], name="one_payment_per_document"),
            # Two batches built at once never both take a claim: at most one open request per
            # claim and funder (a backstop to the document counter's lock).
            models.UniqueConstraint(
                fields=["claim", "funder"],
                condition=Q(state__in=["batched", "authorized", "exported"]),
                name="one_open_payment_per_claim_and_funder",
            ),
        ]
        indexes = [models.Index(fields=["application", "funder", "state"], name="payment_by_file")]

    def __str__(self) -> str:
        return self.document_number


class LineOutcome(models.TextChoices):
    RECONCILED = "reconciled", pgettext_lazy("confirmation", "Reconciled")
    NO_MATCH = "no_match", pgettext_lazy("confirmation", "No match")
    DUPLICATE = "duplicate", pgettext_lazy("confirmation", "Duplicate")
    WRONG_AMOUNT = "wrong_amount", pgettext_lazy("confirmation", "Wrong amount")
    UNKNOWN_DOCUMENT = "unknown_document", pgettext_lazy("confirmation", "Unknown document")


class ConfirmationImport(models.Model):
    """One confirmation file from the paying system. Its SHA-256 is unique: the same file
    imported again changes nothing and answers with what the first import did."""

    batch = models.ForeignKey(
        PaymentBatch, on_delete=models.PROTECT, related_name="imports", null=True, blank=True
    )
    sha256 = models.CharField(max_length=64, unique=True)
    filename = models.CharField(max_length=200, blank=True)
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    imported_at = models.DateTimeField()
    lines_count = models.PositiveIntegerField(default=0)
    reconciled_count = models.PositiveIntegerField(default=0)
    reconciled_cents = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["-id"]


class ConfirmationLine(models.Model):
    """What one line of a confirmation file did: reconciled, or why it did not match."""

    confirmation = models.ForeignKey(
        ConfirmationImport, on_delete=models.CASCADE, related_name="lines"
    )
    line_number = models.PositiveIntegerField()
    document_number = models.CharField(max_length=64)
    amount = models.CharField(max_length=32)
    outcome = models.CharField(max_length=20, choices=LineOutcome.choices)
    request = models.ForeignKey(
        PaymentRequest, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["confirmation_id", "line_number"]


class ReceivableCause(models.TextChoices):
    NOT_COMPLETED = "not_completed", gettext_lazy("A trainee did not complete the training")
    AMENDMENT = "amendment", gettext_lazy("An amended claim lowered an amount already paid")
    INELIGIBLE_COST = "ineligible_cost", gettext_lazy("An officer found an ineligible cost")


#: Causes whose receivable lowers what the file may be paid (an amendment's lowered approval is
#: already in the claim's own figures).
LOWERING_CAUSES = (ReceivableCause.NOT_COMPLETED, ReceivableCause.INELIGIBLE_COST)


class ReceivableState(models.TextChoices):
    OPEN = "open", pgettext_lazy("receivable state", "Open")
    PARTIALLY_RECOVERED = (
        "partially_recovered",
        pgettext_lazy("receivable state", "Partially recovered"),
    )
    RECOVERED = "recovered", pgettext_lazy("receivable state", "Recovered")
    SET_OFF = "set_off", pgettext_lazy("receivable state", "Set off against a payment")
    WRITTEN_OFF = "written_off", pgettext_lazy("receivable state", "Written off")


class Receivable(models.Model):
    application = models.ForeignKey(
        "grants.Application", on_delete=models.PROTECT, related_name="receivables"
    )
    claim = models.ForeignKey(
        "grants.Claim", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    debtor = models.ForeignKey("registry.Employer", on_delete=models.PROTECT, related_name="+")
    account = models.ForeignKey("ledger.BudgetAccount", on_delete=models.PROTECT, related_name="+")
    funder = models.CharField(max_length=16)
    cause = models.CharField(max_length=20, choices=ReceivableCause.choices)
    reason = models.TextField(help_text="What the employer reads.")
    amount_cents = models.BigIntegerField()
    recovered_cents = models.BigIntegerField(default=0)
    pending_set_off_cents = models.BigIntegerField(
        default=0, help_text="Netted in a payment not yet confirmed."
    )
    written_off_cents = models.BigIntegerField(default=0)
    state = models.CharField(
        max_length=20, choices=ReceivableState.choices, default=ReceivableState.OPEN
    )
    raised_by = models.CharField(max_length=150)
    raised_at = models.DateTimeField()
    due_on = models.DateField()
    due_parameter = models.JSONField(help_text="{name, value, effective, reference}")
    write_off_requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    write_off_reason = models.TextField(blank=True)
    written_off_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount_cents__gt=0)
                & Q(recovered_cents__gte=0)
                & Q(pending_set_off_cents__gte=0)
                & Q(written_off_cents__gte=0)
                & Q(
                    amount_cents__gte=F("recovered_cents")
                    + F("pending_set_off_cents")
                    + F("written_off_cents")
                ),
                name="receivable_within_its_amount",
            ),
            # Write-off needs a second person.
            models.CheckConstraint(
                condition=Q(written_off_by__isnull=True)
                | (
                    Q(write_off_requested_by__isnull=False)
                    & ~Q(written_off_by=F("write_off_requested_by"))
                ),
                name="write_off_by_a_second_person",
            ),
        ]

    @property
    def outstanding_cents(self) -> int:
        """What is still owed and not already netted in a payment on its way."""
        return (
            self.amount_cents
            - self.recovered_cents
            - self.pending_set_off_cents
            - self.written_off_cents
        )

    def __str__(self) -> str:
        return f"receivable {self.pk}"


class RecoveryKind(models.TextChoices):
    REPAYMENT = "repayment", gettext_lazy("Repayment received")
    SET_OFF = "set_off", gettext_lazy("Set off against a payment")


class Recovery(models.Model):
    """Money back on a receivable: a confirmed repayment, or a set-off in a confirmed payment."""

    receivable = models.ForeignKey(Receivable, on_delete=models.PROTECT, related_name="recoveries")
    kind = models.CharField(max_length=16, choices=RecoveryKind.choices)
    amount_cents = models.BigIntegerField()
    received_on = models.DateField()
    reference = models.CharField(max_length=64, blank=True)
    payment = models.ForeignKey(
        PaymentRequest, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount_cents__gt=0), name="recovery_is_positive")
        ]


class SetOff(models.Model):
    """Part of a receivable netted in a payment request (recovered when the payment is
    confirmed)."""

    request = models.ForeignKey(PaymentRequest, on_delete=models.PROTECT, related_name="set_offs")
    receivable = models.ForeignKey(Receivable, on_delete=models.PROTECT, related_name="set_offs")
    amount_cents = models.BigIntegerField()

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount_cents__gt=0), name="set_off_is_positive")
        ]
