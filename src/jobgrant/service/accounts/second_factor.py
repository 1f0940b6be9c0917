"""The second factor (django-otp): who needs it, what they have, and the gate of the pages.

Every staff role (officer, finance, analyst, auditor, administrator) must pass one at every
sign-in: a code from an authenticator app (TOTP, RFC 6238) or one of their recovery codes
(django-otp's static device, each code used once). An employer may set one up, and from then on
passes it too. A signed-in person who still owes it sees only the step that asks for it (or,
for staff who have none yet, the step that sets one up); every other page sends them there.
The API never opens for staff without it: the token operation asks for the code
(api/routers/auth.py).

Writes (a device made, confirmed, a code used) are in accounts/second_factor_actions.py.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django_otp import device_classes
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from jobgrant.service.accounts.demo_credentials import is_demo_key
from jobgrant.service.accounts.models import STAFF_ROLES, User

APP_DEVICE = "authenticator app"
RECOVERY_DEVICE = "recovery codes"
RECOVERY_CODES = 10

#: The pages a signed-in person who owes the second factor may still open.
OPEN_PAGES = frozenset(
    {
        "landing",
        "sign-in",
        "sign-out",
        "second-factor",
        "second-factor-passkey",
        "second-factor-setup",
        "second-factor-recovery-codes",
        "password-reset",
        "password-reset-sent",
        "password-reset-confirm",
        "password-reset-done",
        "participate",
    }
)


def needs_second_factor(user: Any) -> bool:
    """Staff always; anyone else once they have set one up."""
    if not isinstance(user, User) or not user.is_authenticated:
        return False
    return user.role in STAFF_ROLES or has_device(user)


@cache
def _any_device_sql() -> str:
    """One statement asking each of django-otp's device tables (the authenticator app, the
    recovery codes, the passkeys) for a confirmed device of the user: the models found once,
    not by walking every installed model at each request, and the statement written once."""
    tables = [connection.ops.quote_name(model._meta.db_table) for model in device_classes()]
    asked = " OR ".join(
        f"EXISTS (SELECT 1 FROM {table} WHERE user_id = %s AND confirmed)" for table in tables
    )
    return f"SELECT {asked}"


def has_device(user: User) -> bool:
    """Whether the user has a confirmed device of any kind, as django-otp's `user_has_device`
    says, in one statement rather than one per kind: it is asked on every page an employer
    opens (django-otp's way cost 1.5 to 2.5 ms of CPU, this one under 0.1)."""
    sql = _any_device_sql()
    with connection.cursor() as cursor:
        cursor.execute(sql, [user.pk] * sql.count("%s"))
        (found,) = cursor.fetchone()
    return bool(found)


def app_device(user: User) -> TOTPDevice | None:
    """The user's confirmed authenticator app, if any."""
    return TOTPDevice.objects.filter(user=user, confirmed=True).order_by("-pk").first()


def pending_app_device(user: User) -> TOTPDevice | None:
    """An app being set up: made, not yet confirmed by a first code."""
    return TOTPDevice.objects.filter(user=user, confirmed=False).order_by("-pk").first()


def recovery_device(user: User) -> StaticDevice | None:
    return StaticDevice.objects.filter(user=user, name=RECOVERY_DEVICE).first()


def recovery_codes_left(user: User) -> int:
    device = recovery_device(user)
    return device.token_set.count() if device else 0


def usable(device: Any) -> bool:
    """In production a device made with the published demonstration secret never verifies."""
    return not (settings.PRODUCTION and isinstance(device, TOTPDevice) and is_demo_key(device.key))


def is_verified(request: HttpRequest) -> bool:
    user = request.user
    return bool(getattr(user, "is_verified", lambda: False)())


class SecondFactorMiddleware:
    """After django-otp's OTPMiddleware: a page other than OPEN_PAGES, asked by a signed-in
    person who owes the second factor, sends them to it (and back to the page after)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: Any, args: Any, kwargs: Any
    ) -> HttpResponse | None:
        match = request.resolver_match
        if match is None or match.namespace != "web" or match.url_name in OPEN_PAGES:
            return None
        if is_verified(request) or not needs_second_factor(request.user):
            return None
        return redirect_to_login(request.get_full_path(), "web:second-factor")
