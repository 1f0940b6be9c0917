"""A rate limit reached on a page: the 429 page, which says when to try again."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from jobgrant.service.accounts.limits import exceeded
from jobgrant.service.accounts.models import User


def limited(
    request: HttpRequest, name: str, user: User | None = None, value: str = ""
) -> HttpResponse | None:
    """The 429 page once `name`'s limit is reached (per user, per `value`, else per address);
    None while under it. Counts this request."""
    key = value or (f"user:{user.pk}" if user is not None else "")
    wait = exceeded(request, name, value=key)
    if not wait:
        return None
    minutes = max(1, (wait + 59) // 60)
    context = {"title": _("Too many requests"), "minutes": minutes}
    response = render(request, "web/rate_limited.html", context, status=429)
    response["Retry-After"] = str(wait)
    return response
