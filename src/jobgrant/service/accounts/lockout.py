"""What a lockout (django-axes) does here: a log line, an audit entry, and the answer.

settings: AXES_FAILURE_LIMIT failures for one username, or from one address, lock it for
AXES_COOLOFF_TIME hours; each attempt during the lockout is refused without a password being
checked, starts the cool-off again, and is logged and audited (`auth.locked_out`). The API's
token operation answers 429 problem+json itself (api/routers/auth.py); a page answers the
bilingual lockout page (web/locked_out.html), 429 too.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from axes.signals import user_locked_out
from django.conf import settings
from django.db import transaction
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from jobgrant.service.accounts.limits import client_ip
from jobgrant.service.audit.chain import record

log = logging.getLogger("jobgrant.security")
USERNAME_MAX = 150


def cool_off() -> dt.timedelta:
    return dt.timedelta(hours=float(settings.AXES_COOLOFF_TIME))


def cool_off_minutes() -> int:
    return int(cool_off().total_seconds() // 60)


def username_of(request: HttpRequest, credentials: dict[str, Any] | None) -> str:
    """The username an attempt names, as the lockout counts it: trimmed, without NUL bytes
    (PostgreSQL refuses them), at most as long as a username can be."""
    raw = (credentials or {}).get("username") or request.POST.get("username") or ""
    return str(raw).replace("\x00", "").strip()[:USERNAME_MAX]


def is_locked_out(request: HttpRequest) -> bool:
    return bool(getattr(request, "axes_locked_out", False))


@receiver(user_locked_out, dispatch_uid="jobgrant-lockout-audited")
def audit_lockout(
    sender: Any, request: HttpRequest, username: str, ip_address: str, **_: Any
) -> None:
    where = "api" if request.path.startswith("/api/") else "page"
    log.warning(
        "sign-in locked out: username=%r address=%s via %s for %d minutes",
        username,
        ip_address,
        where,
        cool_off_minutes(),
    )
    summary = {
        "username": username,
        "address": ip_address or client_ip(request),
        "via": where,
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "minutes": cool_off_minutes(),
    }
    with transaction.atomic():
        record(username or "anonymous", "auth.locked_out", "user", username, summary)


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: Any = None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the page that says what happened and when to try again. The
    API's own answer (already 429 problem+json) is kept as it is."""
    if request.path.startswith("/api/") and original_response is not None:
        return original_response
    context = {"title": _("Too many failed sign-in attempts"), "minutes": cool_off_minutes()}
    response = render(request, "web/locked_out.html", context, status=429)
    response["Retry-After"] = str(int(cool_off().total_seconds()))
    return response
