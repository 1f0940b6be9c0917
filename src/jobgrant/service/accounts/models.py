"""Users, their roles, what they may act for, and API tokens (stored hashed)."""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Any

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.signals import post_delete, post_save
from django.utils.translation import gettext_lazy

from jobgrant.service.choices import JURISDICTION_CHOICES


class Role(models.TextChoices):
    """The roles; labels in lower case, as the pages use them inside a sentence."""

    EMPLOYER = "employer", gettext_lazy("employer")
    OFFICER = "officer", gettext_lazy("program officer")
    FINANCE = "finance", gettext_lazy("finance officer")
    ANALYST = "analyst", gettext_lazy("policy analyst")
    AUDITOR = "auditor", gettext_lazy("auditor")
    ADMIN = "admin", gettext_lazy("administrator")


class User(AbstractUser):
    """A person. Officers work for a jurisdiction, or for Ottawa (`federal`, any jurisdiction)."""

    role = models.CharField(max_length=16, choices=Role.choices, default=Role.EMPLOYER)
    jurisdiction = models.CharField(max_length=2, choices=JURISDICTION_CHOICES, blank=True)
    federal = models.BooleanField(default=False, help_text="Works for the federal government.")
    preferred_language = models.CharField(max_length=2, default="en")
    may_view_sin = models.BooleanField(default=False)
    # Employers a user acts for (role employer), or is affiliated with (anyone else: a conflict
    # of interest that forbids acting on their files).
    employers = models.ManyToManyField(
        "registry.Employer", blank=True, related_name="users", through="accounts.Membership"
    )


TOKEN_PREFIX_LENGTH = 8
# How long a process goes on trusting a token it has looked up: a token deleted, or a user
# deactivated or changed, by another process is seen within this many seconds (at once in the
# process that made the change). Each API request would otherwise cost a database round trip.
TOKEN_CACHE_SECONDS = 5.0
TOKEN_CACHE_SIZE = 10_000
_known_tokens: dict[str, tuple[float, User]] = {}  # digest -> (trusted until, user)


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
        """The active user the token belongs to (looked up at most every TOKEN_CACHE_SECONDS
        per process; the user returned is shared by those requests and must not be changed)."""
        digest, now = hash_token(token), time.monotonic()
        known = _known_tokens.get(digest)
        if known is not None and now < known[0]:
            return known[1]
        found = cls.objects.select_related("user").filter(digest=digest).first()
        if found is None or not found.user.is_active:
            _known_tokens.pop(digest, None)
            return None
        if len(_known_tokens) >= TOKEN_CACHE_SIZE:
            _known_tokens.clear()
        _known_tokens[digest] = (now + TOKEN_CACHE_SECONDS, found.user)
        return found.user


def forget_tokens(**_: Any) -> None:
    """Look every token up again: a token or a user was changed or deleted in this process."""
    _known_tokens.clear()


for _model in (User, ApiToken):
    for _signal in (post_save, post_delete):
        _signal.connect(forget_tokens, sender=_model, dispatch_uid=f"forget-tokens-{_model}")


from jobgrant.service.accounts.organization_models import *  # noqa: E402,F403
