"""A rate limit reached, answered as 429 problem+json with Retry-After (accounts/limits.py)."""

from __future__ import annotations

from django.http import HttpRequest

from jobgrant.service.accounts.limits import exceeded
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError


def throttle(request: HttpRequest, name: str, user: User | None = None) -> None:
    """Raise 429 once `name`'s limit is reached: per user when given, else per address."""
    wait = exceeded(request, name, value=f"user:{user.pk}" if user is not None else "")
    if wait:
        raise ServiceError(
            429,
            "RATE_LIMITED",
            f"Too many requests: try again in {wait} seconds.",
            f"Trop de requêtes : réessayez dans {wait} secondes.",
            extra={"retry_after": wait},
        )
