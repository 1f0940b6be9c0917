"""The agreement an approval issues, and its versions.

An Agreement is the grant's contract with the applicant: one per approved application, with its
state (the transitions are in `agreement_workflow`). What it says is in its versions: version 1
is made on approval; version n+1 is made from version n with changes (an approved change
request, say). Each version keeps the approved cost lines per trainee and category, the
training schedule, the government shares per funder, the policy and rules version, the due
dates with the parameters they come from, and the document itself, rendered once in English and
in French, with the SHA-256 of that rendering: what the employer reads, downloads and accepts
is what was stored, and the hash they accept is the hash of it. A version is made with its terms,
the employers' names it shows and the hash of both (`terms_sha256`); its document is rendered
from them once, when it is first read or by the worker's job, and never again (ADR 0040).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import pgettext_lazy

__all__ = ["CONFIRMATIONS", "Agreement", "AgreementState", "AgreementVersion"]


class AgreementState(models.TextChoices):
    """An agreement's states (the transitions between them are in `agreement_workflow`).

    An offer is issued, then accepted or ended (declined, expired, withdrawn); an accepted
    agreement becomes active with its first claim and completed when its completion report is
    in and its final claim paid; closed and cancelled are kept for the ends still to come.
    """

    ISSUED = "issued", pgettext_lazy("agreement state", "Offered, awaiting acceptance")
    ACCEPTED = "accepted", pgettext_lazy("agreement state", "Accepted")
    ACTIVE = "active", pgettext_lazy("agreement state", "Active")
    COMPLETED = "completed", pgettext_lazy("agreement state", "Completed")
    CLOSED = "closed", pgettext_lazy("agreement state", "Closed")
    DECLINED = "declined", pgettext_lazy("agreement state", "Declined")
    EXPIRED = "expired", pgettext_lazy("agreement state", "Expired")
    WITHDRAWN = "withdrawn", pgettext_lazy("agreement state", "Withdrawn")
    CANCELLED = "cancelled", pgettext_lazy("agreement state", "Cancelled")


#: The three things the signatory confirms, by the code the API and the form use.
CONFIRMATIONS = ("agreement", "cost_schedule", "general_terms")


class Agreement(models.Model):
    application = models.OneToOneField(
        "grants.Application", on_delete=models.PROTECT, related_name="agreement"
    )
    state = models.CharField(
        max_length=16, choices=AgreementState.choices, default=AgreementState.ISSUED
    )
    version = models.PositiveIntegerField(
        default=1, help_text="The number of the latest version (the one in force or offered)."
    )
    issued_at = models.DateTimeField()
    issued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Who declined or withdrew the offer (empty when it expired by itself).",
    )
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.TextField(blank=True, help_text="Why it was declined or withdrawn.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["state"], name="agreement_by_state")]

    def __str__(self) -> str:
        return f"agreement {self.pk} (application {self.application_id})"


class AgreementVersion(models.Model):
    agreement = models.ForeignKey(Agreement, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    made_from = models.PositiveIntegerField(
        null=True, blank=True, help_text="The number of the version this one was made from."
    )
    changes = models.JSONField(
        default=dict, help_text="What changed from the version it was made from, and why."
    )
    needs_acceptance = models.BooleanField(default=True)
    created_at = models.DateTimeField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    # What is agreed.
    cost_lines = models.JSONField(
        help_text="[{trainee, employer_id, category, cents}]: the approved costs."
    )
    trainee_shares = models.JSONField(
        help_text="[{trainee, employer_id, eligible_cents, federal_cents, provincial_cents,"
        " employer_cents}]"
    )
    schedule = models.JSONField(
        help_text="The training: course, provider, setting, start_date, end_date, hours."
    )
    eligible_cents = models.BigIntegerField()
    federal_cents = models.BigIntegerField()
    provincial_cents = models.BigIntegerField()
    employer_cents = models.BigIntegerField()
    policy = models.CharField(max_length=200)
    policy_version = models.CharField(max_length=64)
    # When things are due, and the dated, sourced parameters they come from.
    accept_by = models.DateTimeField()
    participants_by = models.DateField()
    first_claim_by = models.DateField()
    completion_report_by = models.DateField()
    due_date_parameters = models.JSONField(
        help_text="[{name, value, effective, reference}] for each due date."
    )
    # What the document names of the employers, as they were at issue: [{reference, name,
    # business_number}] in the application's order (empty on versions rendered when made).
    named_employers = models.JSONField(null=True, blank=True)
    # SHA-256 of the canonical JSON of everything the document is written from (the terms above,
    # the due dates and the names): what the issue's audit entry and message carry.
    terms_sha256 = models.CharField(max_length=64, blank=True, default="", db_default="")
    # The document, rendered once, on first read or by the worker (empty until then); the hash is
    # of exactly this text (agreement_document), and it never changes once written.
    content_en = models.TextField(blank=True)
    content_fr = models.TextField(blank=True)
    content_sha256 = models.CharField(max_length=64, blank=True)
    # The acceptance.
    signatory_name = models.CharField(max_length=200, blank=True)
    signatory_title = models.CharField(max_length=200, blank=True)
    confirmed_agreement = models.BooleanField(default=False)
    confirmed_cost_schedule = models.BooleanField(default=False)
    confirmed_general_terms = models.BooleanField(default=False)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_sha256 = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["agreement_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["agreement", "number"], name="one_version_number"),
            # Government shares never exceed the eligible cost, and nothing is negative.
            models.CheckConstraint(
                condition=Q(federal_cents__gte=0)
                & Q(provincial_cents__gte=0)
                & Q(employer_cents__gte=0)
                & Q(
                    eligible_cents=F("federal_cents") + F("provincial_cents") + F("employer_cents")
                ),
                name="version_shares_add_up",
            ),
            # An acceptance is whole: a signatory, all three confirmations and this version's
            # hash, or nothing at all.
            models.CheckConstraint(
                condition=Q(accepted_at__isnull=True)
                | (
                    Q(confirmed_agreement=True)
                    & Q(confirmed_cost_schedule=True)
                    & Q(confirmed_general_terms=True)
                    & ~Q(signatory_name="")
                    & ~Q(signatory_title="")
                    & Q(accepted_by__isnull=False)
                    & Q(accepted_sha256=F("content_sha256"))
                ),
                name="acceptance_is_whole",
            ),
        ]

    def __str__(self) -> str:
        return f"agreement {self.agreement_id} version {self.number}"
