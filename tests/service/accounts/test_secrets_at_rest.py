"""The second factor's secrets at rest (accounts/sealed_secrets.py): an authenticator's seed is
stored encrypted under JOBGRANT_OTP_KEYS, recovery codes only as keyed digests. A copy of the
database gives neither a code generator nor a code that works."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice
from tests.personas import EMPLOYER, OFFICER, totp_key

from jobgrant.service.accounts import sealed_secrets, second_factor_actions
from jobgrant.service.accounts.second_factor import app_device, recovery_codes_left

pytestmark = pytest.mark.django_db


def stored(sql: str, *params: Any) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


def test_an_authenticator_seed_is_stored_encrypted_and_still_gives_codes(demo: None) -> None:
    user = EMPLOYER.get()
    device = second_factor_actions.start_app_setup(user)
    seed = device.key
    [raw] = stored("SELECT key FROM otp_totp_totpdevice WHERE id = %s", device.pk)
    assert seed not in raw and raw.startswith(sealed_secrets.SEALED)
    assert TOTPDevice.objects.get(pk=device.pk).key == seed  # read back: the seed again
    code = f"{TOTP(bytes.fromhex(seed)).token():06d}"
    # (the confirmation needs a request; check_code reads the same device once confirmed)
    TOTPDevice.objects.filter(pk=device.pk).update(confirmed=True)
    assert second_factor_actions.check_code(user, code)
    # Every device already made (the personas' here) is sealed as it is saved.
    officer = app_device(OFFICER.get())
    assert officer is not None and officer.key == totp_key(OFFICER.username)
    [raw_officer] = stored("SELECT key FROM otp_totp_totpdevice WHERE id = %s", officer.pk)
    assert totp_key(OFFICER.username) not in raw_officer


def test_a_seed_stored_in_clear_before_is_sealed_by_the_command(demo: None) -> None:
    officer = app_device(OFFICER.get())
    assert officer is not None
    TOTPDevice.objects.filter(pk=officer.pk).update(key=totp_key(OFFICER.username))  # as before
    assert app_device(OFFICER.get()).key == totp_key(OFFICER.username)  # type: ignore[union-attr]
    assert sealed_secrets.seal_stored_secrets() >= 1
    [raw] = stored("SELECT key FROM otp_totp_totpdevice WHERE id = %s", officer.pk)
    assert raw.startswith(sealed_secrets.SEALED)
    assert sealed_secrets.seal_stored_secrets() == 0


def test_recovery_codes_are_stored_as_digests_and_work_once(demo: None) -> None:
    user = EMPLOYER.get()
    codes = second_factor_actions.new_recovery_codes(user)
    assert len(codes) == 10 and recovery_codes_left(user) == 10
    raw = stored(
        "SELECT t.token FROM otp_static_statictoken t JOIN otp_static_staticdevice d"
        " ON t.device_id = d.id WHERE d.user_id = %s",
        user.pk,
    )
    assert len(raw) == 10 and not set(raw) & set(codes)
    assert second_factor_actions.check_code(user, f"  {codes[3].upper()} ")
    assert not second_factor_actions.check_code(user, codes[3])  # once
    assert recovery_codes_left(user) == 9
