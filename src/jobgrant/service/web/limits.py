"""A rate limit reached on a page: the 429 page, which says when to try again."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from jobgrant.service.accounts.limits import client_ip, exceeded
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError


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


def per_account_and_address(request: HttpRequest, user: User) -> str:
    """The key of a limit counted per account and address (the second factor's codes): someone
    typing codes for the account elsewhere does not use up its owner's."""
    return f"user:{user.pk}:address:{client_ip(request)}"


def second_factor_locked(request: HttpRequest, error: ServiceError) -> HttpResponse:
    """The 429 page of too many wrong codes from here (SECOND_FACTOR_LOCKED); another error
    goes on up."""
    if error.code != "SECOND_FACTOR_LOCKED":
        raise error
    wait = int(str(error.extra.get("retry_after", 60)))
    minutes = max(1, (wait + 59) // 60)
    context = {"title": _("Too many wrong codes"), "minutes": minutes}
    response = render(request, "web/second_factor_locked.html", context, status=429)
    response["Retry-After"] = str(wait)
    return response
