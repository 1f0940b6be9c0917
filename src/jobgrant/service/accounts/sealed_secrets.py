"""The second factor's secrets at rest: an authenticator app's seed encrypted, recovery codes
kept as keyed digests. django-otp stores both in clear; a copy of the database (a backup, a
replica, a leaked dump) would then generate every staff member's codes.

- **Seeds** (django-otp's `TOTPDevice.key`, hexadecimal) are sealed with AES-256-GCM under
  `JOBGRANT_OTP_KEYS` (`key-id:base64-32-bytes[,...]`, read like the SIN keys by
  service/key_rings.py: the first seals, the others still open what they sealed) and stored as
  `enc:<key id>:<base64url(nonce + sealed)>`.
  The model is django-otp's own: a device is sealed as it is saved and opened as it is loaded
  (the signal receivers below), so django-otp's code, the pages and the tests read `key` as the
  hexadecimal seed it always was. A seed still stored in clear (from before) is read as it is and
  sealed by `seal_stored_secrets()` (the migration runs it; so does rotating the keys: put the new
  key first, run `jobgrant otp rekey`).
- **Recovery codes** are stored as the first 16 characters of their HMAC-SHA256 under the
  Django secret key (base 32: 80 bits, the width of django-otp's token column); a typed code is
  digested and looked up. Codes made under a previous key (`SECRET_KEY_FALLBACKS`) still work.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
from functools import cache
from typing import Any

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_init, post_save, pre_save
from django.dispatch import receiver
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from jobgrant.service.audit.chain import record
from jobgrant.service.key_rings import KeyRing, parse_key_ring

SEALED = "enc:"
AAD = b"jobgrant-totp-seed"
COLUMN = 80  # django-otp's TOTPDevice.key
KEY_ID_MAX = 8  # so that a sealed seed fits in it


@cache
def _ring() -> KeyRing:
    return parse_key_ring(settings.OTP_KEYS, "JOBGRANT_OTP_KEYS", id_max=KEY_ID_MAX)


def forget_keys() -> None:
    """Read the keys from the settings again (after a rotation, in the same process)."""
    _ring.cache_clear()


def seal(seed_hex: str) -> str:
    """The stored form of a seed (hexadecimal): sealed under the current key."""
    ring = _ring()
    nonce = os.urandom(12)
    sealed = AESGCM(ring.keys[ring.current]).encrypt(nonce, bytes.fromhex(seed_hex), AAD)
    text = base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("=")
    stored = f"{SEALED}{ring.current}:{text}"
    if len(stored) > COLUMN:
        raise ValueError("this seed is too long to be sealed in its column")
    return stored


def unseal(stored: str) -> str:
    """The seed (hexadecimal) of a stored value; a value in clear (from before) as it is."""
    if not is_sealed(stored):
        return stored
    key_id, _, text = stored.removeprefix(SEALED).partition(":")
    blob = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    return AESGCM(_ring().keys[key_id]).decrypt(blob[:12], blob[12:], AAD).hex()


def is_sealed(stored: str) -> bool:
    return isinstance(stored, str) and stored.startswith(SEALED)


def _is_current(stored: str) -> bool:
    return stored.startswith(f"{SEALED}{_ring().current}:")


def seal_stored_secrets() -> int:
    """Seal every seed stored in clear or under an older key, in one transaction; how many."""
    done = 0
    with transaction.atomic():
        rows = TOTPDevice.objects.select_for_update().values_list("pk", "key")
        for pk, stored in rows:
            if is_sealed(stored) and _is_current(stored):
                continue
            try:
                seed = unseal(stored)
                bytes.fromhex(seed)
            except (ValueError, binascii.Error):
                continue  # not a seed django-otp could use either
            TOTPDevice.objects.filter(pk=pk).update(key=seal(seed))
            done += 1
        if done:
            summary = {"rows": done, "key_id": _ring().current}
            record("jobgrant otp rekey", "otp.rekey", "totpdevice", "", summary)
    return done


# --- The model's life: sealed when saved, opened when loaded --------------------------------


@receiver(post_init, sender=TOTPDevice, dispatch_uid="jobgrant-totp-open")
def _open_loaded(sender: Any, instance: TOTPDevice, **_: Any) -> None:
    if is_sealed(instance.key):
        instance.key = unseal(instance.key)


@receiver(pre_save, sender=TOTPDevice, dispatch_uid="jobgrant-totp-seal")
def _seal_saved(sender: Any, instance: TOTPDevice, **_: Any) -> None:
    if not is_sealed(instance.key):
        instance._jobgrant_seed = instance.key
        instance.key = seal(instance.key)


@receiver(post_save, sender=TOTPDevice, dispatch_uid="jobgrant-totp-reopen")
def _reopen_saved(sender: Any, instance: TOTPDevice, **_: Any) -> None:
    seed = getattr(instance, "_jobgrant_seed", None)
    if seed is not None:
        instance.key = seed


# --- Recovery codes ------------------------------------------------------------------------


def code_digest(code: str, secret: str | bytes | None = None) -> str:
    """What is stored of a recovery code: 16 base-32 characters of its HMAC-SHA256."""
    chosen = secret or settings.SECRET_KEY
    key = chosen.encode() if isinstance(chosen, str) else chosen
    mac = hmac.new(key, b"jobgrant-recovery-code:" + code.encode(), hashlib.sha256).digest()
    return base64.b32encode(mac).decode()[:16].lower()


def verify_code(device: StaticDevice, typed: str) -> bool:
    """django-otp's check (throttled, single use) on the digest of the code typed: under the
    secret key, or a previous one for codes made before it changed."""
    code = typed.strip().lower()
    if not code or len(code) > 64:
        return bool(device.verify_token("-"))  # counted as a failure, as any wrong code
    digests = [code_digest(code, s) for s in (settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS)]
    held = set(device.token_set.filter(token__in=digests).values_list("token", flat=True))
    found = next((d for d in digests if d in held), digests[0])
    return bool(device.verify_token(found))
