"""Claims: the actual costs an employer claims against an accepted agreement, and their receipts.

A claim is numbered per application (1, 2, ...) and versioned: an amendment of an approved
claim is a new row with the same number, version n+1, `amends` pointing at the approved one,
which becomes superseded when the amendment is approved. Lines are per trainee slot and cost
category; the government money of the claim is kept per funder in `ClaimShare` (claimed when
submitted, approved when certified). Approved to date, per application and funder, is the sum
of `ClaimShare.approved_cents` over the application's claims in state approved (a superseded
version no longer counts: its amendment carries the whole figure), so that a payment is
`approved to date - paid to date` (paid on every version of every claim of the application).
Receipts are files in a Django storage (the file system by default, S3 in production), with the
content type decided from the bytes, and their SHA-256. The states and their transitions are in
`claim_workflow`.
"""

from __future__ import annotations

from django.conf import settings
from django.core.files.storage import Storage, storages
from django.db import models
from django.db.models import Q
from django.utils.translation import pgettext_lazy

from jobgrant.service.choices import CostCategory

__all__ = ["INVOICE_NUMBER_MAX", "Claim", "ClaimLine", "ClaimShare", "ClaimState", "Receipt"]

#: The longest invoice number a receipt may give (characters).
INVOICE_NUMBER_MAX = 60


class ClaimState(models.TextChoices):
    """A claim's states (the transitions are in `grants.claim_workflow`)."""

    DRAFT = "draft", pgettext_lazy("claim state", "Draft")
    SUBMITTED = "submitted", pgettext_lazy("claim state", "Submitted")
    UNDER_REVIEW = "under_review", pgettext_lazy("claim state", "Under assessment")
    RETURNED = "returned", pgettext_lazy("claim state", "Returned for more information")
    APPROVED = "approved", pgettext_lazy("claim state", "Approved")
    DENIED = "denied", pgettext_lazy("claim state", "Denied")
    SUPERSEDED = "superseded", pgettext_lazy("claim state", "Superseded by an amendment")


#: The states in which a claim's money is claimed in the ledger and waits for a decision.
UNDER_ASSESSMENT = frozenset({ClaimState.SUBMITTED, ClaimState.UNDER_REVIEW})


class Claim(models.Model):
    application = models.ForeignKey(
        "grants.Application", on_delete=models.PROTECT, related_name="claims"
    )
    agreement_version = models.ForeignKey(
        "grants.AgreementVersion",
        on_delete=models.PROTECT,
        related_name="claims",
        help_text="The agreement version claimed against (the one in force when it was made).",
    )
    number = models.PositiveIntegerField(help_text="The claim's number within the application.")
    version = models.PositiveIntegerField(default=1)
    amends = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="amendments",
        help_text="The approved version this amendment replaces.",
    )
    is_final = models.BooleanField(default=False)
    state = models.CharField(max_length=16, choices=ClaimState.choices, default=ClaimState.DRAFT)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    # The decision. The officer who approves certifies under s.34 of the Financial
    # Administration Act (the work was done, the amount is due): certified_by is that person.
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    certified_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    certified_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField(
        blank=True,
        help_text="The officer's reason (returned, denied, approved), read by the employer.",
    )
    # The claim's money in cents, for reading without summing: the government's shares are in
    # ClaimShare, per funder; the employer's share is not government money and is kept here.
    claimed_cents = models.BigIntegerField(default=0, help_text="Sum of the lines as claimed.")
    approved_cents = models.BigIntegerField(null=True, blank=True)
    employer_claimed_cents = models.BigIntegerField(default=0)
    employer_approved_cents = models.BigIntegerField(null=True, blank=True)
    caps = models.JSONField(
        default=list,
        help_text="[{rule, before_cents, after_cents, ...}]: each figure a cap lowered, and why.",
    )
    figures = models.JSONField(
        default=dict,
        help_text="{trainees: [{trainee, actual, federal, provincial, employer}], rules_version}:"
        " the file's money to date as this version worked it out.",
    )

    class Meta:
        ordering = ("application_id", "number", "version")
        constraints = (
            models.UniqueConstraint(
                fields=["application", "number", "version"], name="one_claim_version"
            ),
            # One live version per claim number: the draft or open amendment, or the approved
            # one; never two amendments of the same claim open at once.
            models.UniqueConstraint(
                fields=["application", "number"],
                condition=Q(
                    state__in=["draft", "submitted", "under_review", "returned"],
                ),
                name="one_open_claim_version",
            ),
            models.CheckConstraint(
                condition=Q(claimed_cents__gte=0) & Q(employer_claimed_cents__gte=0),
                name="claim_cents_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(approved_cents__isnull=True) | Q(approved_cents__gte=0),
                name="claim_approved_not_negative",
            ),
            models.CheckConstraint(
                condition=~Q(state="approved")
                | (Q(certified_by__isnull=False) & Q(certified_at__isnull=False)),
                name="approved_claim_is_certified",
            ),
        )
        indexes = (models.Index(fields=["state"], name="claim_by_state"),)

    def __str__(self) -> str:
        return f"claim {self.number} v{self.version} (application {self.application_id})"


class ClaimLine(models.Model):
    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="lines")
    participant = models.ForeignKey(
        "grants.Participant", on_delete=models.PROTECT, related_name="claim_lines"
    )
    category = models.CharField(max_length=20, choices=CostCategory.choices)
    claimed_cents = models.BigIntegerField(help_text="The actual cost claimed.")
    approved_cents = models.BigIntegerField(
        null=True, blank=True, help_text="The officer's figure (null until assessed)."
    )
    reason = models.TextField(blank=True, help_text="The officer's reason, read by the employer.")

    class Meta:
        ordering = ("claim_id", "participant_id", "category")
        constraints = (
            models.UniqueConstraint(
                fields=["claim", "participant", "category"], name="one_claim_line"
            ),
            models.CheckConstraint(
                condition=Q(claimed_cents__gte=0)
                & (Q(approved_cents__isnull=True) | Q(approved_cents__gte=0)),
                name="claim_line_not_negative",
            ),
        )


class ClaimShare(models.Model):
    """The government money of one claim version from one funder (federal or provincial)."""

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="shares")
    funder = models.CharField(max_length=16, help_text="ledger.Funder: federal or provincial.")
    claimed_cents = models.BigIntegerField(default=0)
    approved_cents = models.BigIntegerField(null=True, blank=True)
    ledger_claimed_cents = models.BigIntegerField(
        default=0,
        help_text="What submitting moved from committed to claimed in the ledger (for an"
        " amendment, only what it asks above the version it amends).",
    )

    class Meta:
        ordering = ("claim_id", "funder")
        constraints = (
            models.UniqueConstraint(fields=["claim", "funder"], name="one_claim_share"),
            models.CheckConstraint(
                condition=Q(claimed_cents__gte=0)
                & (Q(approved_cents__isnull=True) | Q(approved_cents__gte=0)),
                name="claim_share_not_negative",
            ),
        )


def receipt_storage() -> Storage:
    """The receipts' storage (settings.STORAGES["receipts"]: the file system, or S3)."""
    return storages["receipts"]


def receipt_path(receipt: Receipt, filename: str) -> str:
    """Where the bytes go in the storage: never the uploaded name (it is kept in the row)."""
    return f"receipts/{receipt.claim.application_id}/{receipt.claim_id}/{receipt.sha256}"


class Receipt(models.Model):
    claim = models.ForeignKey(Claim, on_delete=models.PROTECT, related_name="receipts")
    file = models.FileField(upload_to=receipt_path, storage=receipt_storage, max_length=255)
    original_name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=64, help_text="Decided from the bytes.")
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    invoice_number = models.CharField(
        max_length=INVOICE_NUMBER_MAX,
        blank=True,
        default="",
        db_default="",
        help_text="The training provider's invoice or receipt number, as the employer gave it.",
    )
    invoice_key = models.CharField(
        max_length=INVOICE_NUMBER_MAX,
        blank=True,
        default="",
        db_default="",
        help_text="The invoice number as compared: case-folded, without spaces, dashes and the "
        "zeros leading its digits (grants.claims.receipts.invoice_key).",
    )
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("claim_id", "id")
        indexes = (
            models.Index(
                fields=["invoice_key"], name="receipt_by_invoice", condition=~Q(invoice_key="")
            ),
        )
