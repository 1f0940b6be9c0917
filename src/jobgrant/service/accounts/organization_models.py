"""Organizations' people: who belongs to which employer and with what role, the colleagues
invited to join, and the email addresses waiting to be confirmed.

`User.employers` goes through Membership: for an employer's user it is the organizations they
act for (administrator or member); for staff it is an affiliation (a conflict of interest that
forbids acting on that organization's files), where the role means nothing.
"""

from __future__ import annotations

from django.conf import settings
from django.core.files.storage import Storage, storages
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy, pgettext_lazy

__all__ = [
    "DISPUTE_LINK_DAYS",
    "INVITATION_DAYS",
    "DisputeState",
    "EmailVerification",
    "Membership",
    "OrganizationDispute",
    "OrganizationInvitation",
    "OrganizationProof",
    "OrganizationRole",
    "VerificationDecision",
    "VerificationMethod",
    "VerificationOutcome",
]

#: How long an invitation to join an organization may be used.
INVITATION_DAYS = 14


class OrganizationRole(models.TextChoices):
    ADMIN = "admin", gettext_lazy("administrator")
    MEMBER = "member", gettext_lazy("member")


class Membership(models.Model):
    """A user's tie to an employer. Kept in the table the plain many-to-many had, so the rows
    it held are these rows (migration 0003_organizations)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    employer = models.ForeignKey("registry.Employer", on_delete=models.CASCADE)
    role = models.CharField(
        max_length=8, choices=OrganizationRole.choices, default=OrganizationRole.MEMBER
    )
    added_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "accounts_user_employers"
        unique_together = [("user", "employer")]
        constraints = [
            models.CheckConstraint(
                condition=Q(role__in=["admin", "member"]), name="membership_role_known"
            )
        ]


class OrganizationInvitation(models.Model):
    """An invitation, by email, to join an employer: single use, expiring, revocable. Only the
    token's SHA-256 is kept."""

    employer = models.ForeignKey(
        "registry.Employer", on_delete=models.CASCADE, related_name="invitations"
    )
    email = models.EmailField(max_length=254)
    role = models.CharField(max_length=8, choices=OrganizationRole.choices)
    language = models.CharField(max_length=2, default="en")
    digest = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("id",)


class EmailVerification(models.Model):
    """A self-registered user's email address, to be confirmed by the link sent to it. Until
    `verified_at` is set the user is inactive: Django refuses them at sign-in, in every session
    and for every API token, so an unverified user cannot act anywhere."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="email_verification"
    )
    email = models.EmailField(max_length=254)
    requested_at = models.DateTimeField(auto_now_add=True)
    verified_at = models.DateTimeField(null=True, blank=True)


# --- Verifying an organization (people/organization_verification.py) ----------------------

#: How long the link to dispute a registration, sent with "already registered", may be used.
DISPUTE_LINK_DAYS = 14


def proof_storage() -> Storage:
    """The proofs go where the claims' receipts go (settings.STORAGES["receipts"])."""
    return storages["receipts"]


def proof_path(proof: OrganizationProof, filename: str) -> str:
    """Where the bytes go in the storage: never the uploaded name (it is kept in the row)."""
    return f"organizations/{proof.employer_id}/{proof.sha256}"


class OrganizationProof(models.Model):
    """A document showing that an organization is the business its number names (a business
    registration), uploaded by one of its people, or by someone disputing its registration
    (`dispute`). Checked as every upload is (service/uploads.py); `reviewed` once an officer
    decided on the organization after it came."""

    employer = models.ForeignKey(
        "registry.Employer", on_delete=models.PROTECT, related_name="proofs"
    )
    dispute = models.ForeignKey(
        "accounts.OrganizationDispute",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="documents",
    )
    file = models.FileField(upload_to=proof_path, storage=proof_storage, max_length=255)
    original_name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=64, help_text="Decided from the bytes.")
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)
    reviewed = models.BooleanField(default=False)

    class Meta:
        ordering = ("employer_id", "id")


class VerificationOutcome(models.TextChoices):
    VERIFIED = "verified", pgettext_lazy("verification outcome", "Verified")
    REFUSED = "refused", pgettext_lazy("verification outcome", "Refused")
    DISPUTE_UPHELD = "upheld", pgettext_lazy("verification outcome", "Dispute upheld")
    DISPUTE_DISMISSED = "dismissed", pgettext_lazy("verification outcome", "Dispute dismissed")


class VerificationMethod(models.TextChoices):
    DOCUMENT = "document", pgettext_lazy("verification method", "Document uploaded")
    REGISTRY = "registry", pgettext_lazy("verification method", "Registry check")


class VerificationDecision(models.Model):
    """An officer's decision on an organization: verified (against a document it uploaded, or
    a registry check, `note` then being the officer's attestation of what they checked),
    refused (`note`: why), or a dispute upheld or dismissed (`note`: why)."""

    employer = models.ForeignKey(
        "registry.Employer", on_delete=models.PROTECT, related_name="verification_decisions"
    )
    outcome = models.CharField(max_length=10, choices=VerificationOutcome.choices)
    method = models.CharField(max_length=10, choices=VerificationMethod.choices, blank=True)
    proof = models.ForeignKey(
        OrganizationProof, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    dispute = models.ForeignKey(
        "accounts.OrganizationDispute",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="decisions",
    )
    note = models.TextField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("employer_id", "id")
        constraints = [
            models.CheckConstraint(
                condition=Q(outcome__in=["verified", "refused", "upheld", "dismissed"]),
                name="verification_outcome_known",
            ),
            models.CheckConstraint(
                condition=~Q(outcome="verified") | Q(method__in=["document", "registry"]),
                name="verified_says_against_what",
            ),
        ]


class DisputeState(models.TextChoices):
    OFFERED = "offered", pgettext_lazy("dispute state", "Link sent, not used")
    OPEN = "open", pgettext_lazy("dispute state", "To resolve")
    UPHELD = "upheld", pgettext_lazy("dispute state", "Upheld")
    DISMISSED = "dismissed", pgettext_lazy("dispute state", "Dismissed")


class OrganizationDispute(models.Model):
    """Someone who says they are the business a registered number names: offered by the link
    the "already registered" message carries (to the address they gave: using the link proves
    it), filed with their name, telephone, statement and a document, then resolved by an
    officer. While one is open the organization is disputed (`state_before`: its state then)."""

    employer = models.ForeignKey(
        "registry.Employer", on_delete=models.PROTECT, related_name="disputes"
    )
    email = models.EmailField(max_length=254)
    language = models.CharField(max_length=2, default="en")
    digest = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField()
    state = models.CharField(
        max_length=10, choices=DisputeState.choices, default=DisputeState.OFFERED
    )
    name = models.CharField(max_length=150, blank=True)
    phone = models.CharField(max_length=30, blank=True)
    statement = models.TextField(blank=True)
    filed_at = models.DateTimeField(null=True, blank=True)
    state_before = models.CharField(max_length=10, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("id",)
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=["offered", "open", "upheld", "dismissed"]),
                name="dispute_state_known",
            )
        ]
