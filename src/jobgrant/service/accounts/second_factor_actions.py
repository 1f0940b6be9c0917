"""Changes to a person's second factor, each audited (never the secret nor a code).

The secrets are stored sealed (sealed_secrets.py: the app's seed encrypted, recovery codes as
digests). A code is checked here too, since checking one writes: the device records the time step it
accepted (a code works once), and a wrong code is counted per account and address and per
account and browser (second_factor_limits.py; django-otp's account-wide throttling is off).
"""

from __future__ import annotations

import logging
from typing import Any

import django_otp
from django.db import transaction
from django.http import HttpRequest
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from jobgrant.service.accounts import second_factor_limits
from jobgrant.service.accounts.models import STAFF_ROLES, User
from jobgrant.service.accounts.passkey_models import Passkey
from jobgrant.service.accounts.sealed_secrets import code_digest, verify_code
from jobgrant.service.accounts.second_factor import (
    APP_DEVICE,
    RECOVERY_CODES,
    RECOVERY_DEVICE,
    app_device,
    pending_app_device,
    recovery_device,
    usable,
)
from jobgrant.service.audit.chain import record

log = logging.getLogger("jobgrant.security")


def start_app_setup(user: User) -> TOTPDevice:
    """A new secret for an authenticator app, not yet in force (the person confirms it with a
    first code); an earlier unfinished one is dropped."""
    with transaction.atomic():
        TOTPDevice.objects.filter(user=user, confirmed=False).delete()
        return TOTPDevice.objects.create(user=user, name=APP_DEVICE, confirmed=False)


def pending_or_new(user: User) -> TOTPDevice:
    """The app being set up, or a new one."""
    return pending_app_device(user) or start_app_setup(user)


def confirm_app(request: HttpRequest, user: User, code: str) -> list[str] | None:
    """The first code from the app being set up: it replaces any earlier app, the session
    counts as verified, and (the first time) the recovery codes are made and returned once.
    None when the code is wrong."""
    with transaction.atomic():
        device = pending_app_device(user)
        if device is None or not device.verify_token(_digits(code)):
            return None
        TOTPDevice.objects.filter(user=user, confirmed=True).delete()
        device.confirmed = True
        device.save(update_fields=["confirmed"])
        second_factor_passed(request, device)
        record(user.username, "second_factor.app_set_up", "user", user.pk, {"role": user.role})
        if recovery_device(user) is None:
            return _new_codes(user)
    return []


def second_factor_passed(request: HttpRequest, device: Any) -> None:
    """The session counts as verified by `device`, under a new session id: an id seen before
    the second factor (after the password alone) opens nothing past it."""
    django_otp.login(request, device)
    request.session.cycle_key()


def verify(request: HttpRequest, user: User, code: str) -> str:
    """A code typed at sign-in: from the app, else one of the recovery codes. Which one
    passed ("app", "recovery"), or "" when none did. 429 SECOND_FACTOR_LOCKED when too many
    wrong codes came from this address or browser (second_factor_limits.py)."""
    second_factor_limits.refuse(request, user)
    with transaction.atomic():
        device = app_device(user)
        if device is not None and usable(device) and device.verify_token(_digits(code)):
            second_factor_passed(request, device)
            second_factor_limits.passed(request, user)
            return "app"
        recovery = recovery_device(user)
        if recovery is not None and verify_code(recovery, code):
            second_factor_passed(request, recovery)
            second_factor_limits.passed(request, user)
            summary = {"codes_left": recovery.token_set.count()}
            record(user.username, "second_factor.recovery_code_used", "user", user.pk, summary)
            return "recovery"
    second_factor_limits.failed(request, user)
    log.warning("second factor refused for user %s", user.pk)
    return ""


def check_code(user: User, code: str, request: HttpRequest | None = None) -> bool:
    """The same check without a session (the API's token operation, re-authentication);
    counted like verify's when the request is given."""
    second_factor_limits.refuse(request, user)
    with transaction.atomic():
        device = app_device(user)
        if device is not None and usable(device) and device.verify_token(_digits(code)):
            return True
        recovery = recovery_device(user)
        if recovery is not None and verify_code(recovery, code):
            summary = {"codes_left": recovery.token_set.count()}
            record(user.username, "second_factor.recovery_code_used", "user", user.pk, summary)
            return True
    second_factor_limits.failed(request, user)
    return False


def new_recovery_codes(user: User) -> list[str]:
    """Ten new recovery codes; the old ones stop working."""
    with transaction.atomic():
        return _new_codes(user)


def remove_second_factor(user: User) -> None:
    """An employer turns the second factor off (staff cannot: they may only replace it)."""
    if user.role in STAFF_ROLES:
        raise PermissionError("staff must keep a second factor")
    with transaction.atomic():
        TOTPDevice.objects.filter(user=user).delete()
        StaticDevice.objects.filter(user=user).delete()
        Passkey.objects.filter(user=user).delete()
        record(user.username, "second_factor.removed", "user", user.pk, {"role": user.role})


def reset_for(administrator: User, user: User) -> None:
    """An administrator clears someone's second factor (a lost phone and lost codes): staff set
    a new one up at their next sign-in. Nobody resets their own."""
    if administrator.role != "admin" or administrator.pk == user.pk:
        raise PermissionError("only an administrator resets someone else's second factor")
    with transaction.atomic():
        TOTPDevice.objects.filter(user=user).delete()
        StaticDevice.objects.filter(user=user).delete()
        Passkey.objects.filter(user=user).delete()
        summary = {"user": user.username, "role": user.role}
        record(administrator.username, "second_factor.reset", "user", user.pk, summary)


def _new_codes(user: User) -> list[str]:
    device, _ = StaticDevice.objects.get_or_create(user=user, name=RECOVERY_DEVICE)
    device.token_set.all().delete()
    codes = [StaticToken.random_token() for _ in range(RECOVERY_CODES)]
    StaticToken.objects.bulk_create(  # only their digests: the person sees them once
        StaticToken(device=device, token=code_digest(code)) for code in codes
    )
    record(
        user.username, "second_factor.recovery_codes_made", "user", user.pk, {"count": len(codes)}
    )
    return codes


def _digits(code: str) -> str:
    """A code as people type it: spaces and dashes between the digits are fine."""
    return "".join(ch for ch in code if ch.isdigit())[:8] or "x"
