"""Users, their roles, what they may act for, and API tokens (stored hashed)."""

from __future__ import annotations

import hashlib
import secrets

from django.contrib.auth.models import AbstractUser
from django.db import models

from jobgrant.service.choices import JURISDICTION_CHOICES


class Role(models.TextChoices):
    EMPLOYER = "employer", "Employer"
    OFFICER = "officer", "Program officer"
    FINANCE = "finance", "Finance officer"
    ANALYST = "analyst", "Policy analyst"
    AUDITOR = "auditor", "Auditor"
    ADMIN = "admin", "Administrator"


class User(AbstractUser):
    """A person. Officers work for a jurisdiction, or for Ottawa (`federal`, any jurisdiction)."""

    role = models.CharField(max_length=16, choices=Role.choices, default=Role.EMPLOYER)
    jurisdiction = models.CharField(max_length=2, choices=JURISDICTION_CHOICES, blank=True)
    federal = models.BooleanField(default=False, help_text="Works for the federal government.")
    preferred_language = models.CharField(max_length=2, default="en")
    may_view_sin = models.BooleanField(default=False)
    # Employers a user acts for (role employer), or is affiliated with (anyone else: a conflict
    # of interest that forbids acting on their files).
    employers = models.ManyToManyField("registry.Employer", blank=True, related_name="users")


TOKEN_PREFIX_LENGTH = 8


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class ApiToken(models.Model):
    """A bearer token; only its SHA-256 is stored, so a database leak reveals no usable token."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    prefix = models.CharField(max_length=TOKEN_PREFIX_LENGTH, db_index=True)
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    @classmethod
    def issue(cls, user: User) -> str:
        """Create a token for `user` and return it (the only time it is ever seen)."""
        token = secrets.token_urlsafe(32)
        cls.objects.create(user=user, prefix=token[:TOKEN_PREFIX_LENGTH], digest=hash_token(token))
        return token

    @classmethod
    def user_for(cls, token: str) -> User | None:
        found = cls.objects.select_related("user").filter(digest=hash_token(token)).first()
        if found is None or not found.user.is_active:
            return None
        return found.user
