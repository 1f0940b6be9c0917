"""Wrong second-factor codes, counted where they come from, so that someone who has the
password and types wrong codes elsewhere does not keep the owner out (docs/security.md).

A wrong code (from the app or a recovery code; at sign-in, on the API's token operation, or when
confirming the password again) is counted, in the shared cache for a window of
SECOND_FACTOR_WINDOW_MINUTES, three times:

- per account and address: at SECOND_FACTOR_FAILURE_LIMIT that address may try no more codes
  for that account until the window ends;
- per account and device (the browser's device cookie, signed): the same limit for that browser,
  whatever address it comes from;
- per account: at SECOND_FACTOR_ACCOUNT_LIMIT (higher), the backstop against someone with many
  addresses, every device that never passed this account's second factor is refused too.

A browser that passed this account's second factor before (its device cookie says so, signed by
the server: nobody writes it without passing) answers only to its own count: the owner's own
browser still gets in while wrong codes arrive from elsewhere. django-otp's own throttling (one
count per device, the wait doubling at each failure) is off: it was the account-wide lock that
kept the owner out. The right code clears its browser's count.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.signing import BadSignature
from django.http import HttpRequest, HttpResponse

from jobgrant.service.accounts.limits import client_ip
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.links import new_token

log = logging.getLogger("jobgrant.security")
SALT = "jobgrant.second-factor-device"
KEY = "jobgrant:second-factor-failures:{user}:{where}"
DEVICE_COOKIE_DAYS = 400  # the longest a browser keeps a cookie
KNOWN_ACCOUNTS_MAX = 10  # accounts a device remembers having passed (the most recent)


def device_cookie_name() -> str:
    return "__Host-jobgrant-device" if settings.SESSION_COOKIE_SECURE else "jobgrant-device"


def window_seconds() -> int:
    return int(settings.SECOND_FACTOR_WINDOW_MINUTES) * 60


def _device(request: HttpRequest) -> tuple[str, list[int]]:
    """The device id of the browser's cookie and the accounts it passed; ("", []) without one."""
    try:
        value = request.get_signed_cookie(device_cookie_name(), default="", salt=SALT)
    except BadSignature:
        return "", []
    device, _, accounts = str(value).partition(":")
    known = [int(pk) for pk in accounts.split(".") if pk.isdigit()]
    return (device, known) if device.isalnum() else ("", [])


def _count(user: User, where: str) -> int:
    return int(cache.get(KEY.format(user=user.pk, where=where), 0))


def _add(user: User, where: str) -> None:
    key = KEY.format(user=user.pk, where=where)
    cache.add(key, 0, timeout=window_seconds())
    try:
        cache.incr(key)
    except ValueError:  # expired between the two calls
        cache.add(key, 1, timeout=window_seconds())


def may_try(request: HttpRequest | None, user: User) -> bool:
    """Whether a code from this request may be checked for `user` (always, without a request:
    the service's own calls)."""
    if request is None:
        return True
    limit = int(settings.SECOND_FACTOR_FAILURE_LIMIT)
    device, known = _device(request)
    if device and _count(user, f"device:{device}") >= limit:
        return False
    if user.pk in known:
        return True
    if _count(user, f"address:{client_ip(request)}") >= limit:
        return False
    return _count(user, "account") < int(settings.SECOND_FACTOR_ACCOUNT_LIMIT)


def refuse(request: HttpRequest | None, user: User) -> None:
    """Raise 429 (SECOND_FACTOR_LOCKED, when to try again) if no code may be tried now."""
    if may_try(request, user):
        return
    minutes = int(settings.SECOND_FACTOR_WINDOW_MINUTES)
    log.warning("second factor locked for user %s from %s", user.pk, _where(request))
    raise ServiceError(
        429,
        "SECOND_FACTOR_LOCKED",
        f"Too many wrong codes from here: try again in {minutes} minutes.",
        f"Trop de codes erronés d'ici\u00a0: réessayez dans {minutes} minutes.",
        extra={"retry_after": window_seconds()},
    )


def failed(request: HttpRequest | None, user: User) -> None:
    """Count a wrong code where it came from."""
    if request is None:
        return
    device, _ = _device(request)
    _add(user, f"address:{client_ip(request)}")
    _add(user, "account")
    if device:
        _add(user, f"device:{device}")


def passed(request: HttpRequest, user: User) -> None:
    """The right code: this browser's count starts again, and it is known to the account from
    now on (remember_device writes that into its cookie)."""
    device, _ = _device(request)
    if device:
        cache.delete(KEY.format(user=user.pk, where=f"device:{device}"))
    request.jobgrant_device_passed = user.pk  # type: ignore[attr-defined]


def remember_device(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Give the browser a device cookie if it has none, and add the account that passed in this
    request (passed()) to the accounts it knows."""
    device, known = _device(request)
    passed_now: Any = getattr(request, "jobgrant_device_passed", None)
    if device and (passed_now is None or passed_now in known):
        return response
    device = device or new_token(as_hex=True)
    if passed_now is not None:
        known = [pk for pk in known if pk != passed_now][-(KNOWN_ACCOUNTS_MAX - 1) :]
        known.append(int(passed_now))
    response.set_signed_cookie(
        device_cookie_name(),
        f"{device}:{'.'.join(str(pk) for pk in known)}",
        salt=SALT,
        max_age=DEVICE_COOKIE_DAYS * 24 * 3600,
        path="/",
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
    return response


def _where(request: HttpRequest | None) -> str:
    return client_ip(request) if request is not None else "the service"
