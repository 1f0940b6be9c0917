"""Session limits: an idle timeout and an absolute one, per role (settings; docs/guide/accounts.md).

Staff: 30 minutes without a request, or 12 hours after signing in, whichever comes first;
employers: 2 hours idle, 12 hours in all. Past either, the session is ended (flushed: its id
is worthless from then on) and the person is sent to sign in again, told why. Django's login()
already gives a new session id at every sign-in, logout() flushes the old one, and a deactivated
user's session stops opening anything (ModelBackend.get_user refuses inactive users).

The last request's time is written at most once a minute, so a busy person costs one session
write a minute, not one per request.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth import logout
from django.contrib.auth.signals import user_logged_in
from django.contrib.auth.views import redirect_to_login
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse

from jobgrant.service.accounts.models import STAFF_ROLES

SIGNED_IN_AT = "jobgrant.signed_in_at"
LAST_SEEN = "jobgrant.last_seen"
ENDED = "jobgrant.session_ended"  # why the last session ended: "idle" or "absolute"
TOUCH_EVERY_SECONDS = 60


@receiver(user_logged_in, dispatch_uid="jobgrant-session-start")
def start_session_clock(sender: Any, request: HttpRequest | None, user: Any, **_: Any) -> None:
    if request is not None and hasattr(request, "session"):
        now = int(time.time())
        request.session[SIGNED_IN_AT] = now
        request.session[LAST_SEEN] = now


def idle_limit(user: Any) -> int:
    if getattr(user, "role", "") in STAFF_ROLES:
        return int(settings.SESSION_STAFF_IDLE_SECONDS)
    return int(settings.SESSION_EMPLOYER_IDLE_SECONDS)


def expired(request: HttpRequest, now: int) -> str:
    """ "idle", "absolute", or "" when the session may go on."""
    session = request.session
    signed_in = int(session.get(SIGNED_IN_AT, now))
    last_seen = int(session.get(LAST_SEEN, signed_in))
    if now - signed_in >= settings.SESSION_ABSOLUTE_SECONDS:
        return "absolute"
    if now - last_seen >= idle_limit(request.user):
        return "idle"
    return ""


class SessionLimitsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.user.is_authenticated and not request.path.startswith("/api/"):
            now = int(time.time())
            why = expired(request, now)
            if why:
                logout(request)
                request.session[ENDED] = why
                return redirect_to_login(request.get_full_path())
            if now - int(request.session.get(LAST_SEEN, 0)) >= TOUCH_EVERY_SECONDS:
                request.session[LAST_SEEN] = now
        return self.get_response(request)


def take_ended_reason(request: HttpRequest) -> str:
    """Why the person was signed out (for the sign-in page to say), once."""
    return str(request.session.pop(ENDED, "")) if hasattr(request, "session") else ""
