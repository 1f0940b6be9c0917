"""What a lockout (django-axes) does here: a log line, an audit entry, and the answer.

settings: AXES_FAILURE_LIMIT failures for one username, or from one address, lock it for
AXES_COOLOFF_TIME hours; each attempt during the lockout is refused without a password being
checked, starts the cool-off again, and is logged; the chain gets `auth.locked_out` at most
once per window for the address and once for an existing account (sign_in_actions.py). The API's
token operation answers 429 problem+json itself (api/routers/auth.py); a page answers the
bilingual lockout page (web/locked_out.html), 429 too.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from axes.signals import user_locked_out
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from jobgrant.service.accounts.limits import client_ip
from jobgrant.service.accounts.models import User
from jobgrant.service.audit.chain import record
from jobgrant.service.observability.metrics import LOCKOUTS

log = logging.getLogger("jobgrant.security")
USERNAME_MAX = 150
WINDOW_KEY = "jobgrant:audited-in-window:{what}"


def cool_off() -> dt.timedelta:
    return dt.timedelta(hours=float(settings.AXES_COOLOFF_TIME))


def cool_off_minutes() -> int:
    return int(cool_off().total_seconds() // 60)


def username_of(request: HttpRequest, credentials: dict[str, Any] | None) -> str:
    """The username an attempt names, as the lockout counts it: trimmed, without NUL bytes
    (PostgreSQL refuses them), at most as long as a username can be."""
    raw = (credentials or {}).get("username") or request.POST.get("username") or ""
    return str(raw).replace("\x00", "").strip()[:USERNAME_MAX]


def first_in_window(what: str) -> bool:
    """True the first time `what` is asked about in a lockout window, on any server (the shared
    cache: a row of the database cache, or Redis)."""
    timeout = int(cool_off().total_seconds())
    return bool(cache.add(WINDOW_KEY.format(what=what), 1, timeout=timeout))


def existing_account(username: str) -> User | None:
    return (
        User.objects.filter(username=username).only("pk", "username").first() if username else None
    )


def channel(request: HttpRequest) -> str:
    """Where a sign-in came through: "api" or "page" (the audit entries' `via`)."""
    return "api" if request.path.startswith("/api/") else "page"


def is_locked_out(request: HttpRequest) -> bool:
    return bool(getattr(request, "axes_locked_out", False))


@receiver(user_locked_out, dispatch_uid="jobgrant-lockout-audited")
def audit_lockout(
    sender: Any, request: HttpRequest, username: str, ip_address: str, **_: Any
) -> None:
    where = channel(request)
    address = ip_address or client_ip(request)
    LOCKOUTS.labels(where).inc()
    log.warning(
        "sign-in locked out: username=%r address=%s via %s for %d minutes",
        username,
        ip_address,
        where,
        cool_off_minutes(),
    )
    # Each attempt during a lockout is logged; the chain gets the first per window for the
    # address, and the first for an existing account (a made-up name is the address's).
    account = existing_account(username)
    new_address = first_in_window(f"lockout:address:{address}")
    new_account = account is not None and first_in_window(f"lockout:user:{account.pk}")
    if not (new_address or new_account):
        return
    summary = {
        "username": username,
        "address": address,
        "via": where,
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "minutes": cool_off_minutes(),
        "later_attempts": "logged only, until the window ends",
    }
    with transaction.atomic():
        record(username or "anonymous", "auth.locked_out", "user", username, summary)


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: Any = None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the page that says what happened and when to try again. The
    API's own answer (already 429 problem+json) is kept as it is."""
    if channel(request) == "api" and original_response is not None:
        return original_response
    context = {"title": _("Too many failed sign-in attempts"), "minutes": cool_off_minutes()}
    response = render(request, "web/locked_out.html", context, status=429)
    response["Retry-After"] = str(int(cool_off().total_seconds()))
    return response
