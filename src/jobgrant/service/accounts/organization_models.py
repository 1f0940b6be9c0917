"""Organizations' people: who belongs to which employer and with what role, the colleagues
invited to join, and the email addresses waiting to be confirmed.

`User.employers` goes through Membership: for an employer's user it is the organizations they
act for (administrator or member); for staff it is an affiliation (a conflict of interest that
forbids acting on that organization's files), where the role means nothing.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy

__all__ = [
    "INVITATION_DAYS",
    "EmailVerification",
    "Membership",
    "OrganizationInvitation",
    "OrganizationRole",
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
