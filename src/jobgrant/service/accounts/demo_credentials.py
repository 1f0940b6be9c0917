"""The demonstration accounts' published password and second-factor secret (README).

They open the demonstration only: with JOBGRANT_ENV=production the password is refused whoever
types it (accounts/backends.py) and a device with the demonstration secret never verifies
(accounts/second_factor.py), whatever the account is called.
"""

from __future__ import annotations

import base64
import hmac
import time

DEMO_PASSWORD = "jobgrant-demo"
#: The demonstration staff accounts' TOTP secret, as an authenticator app takes it (base32).
DEMO_TOTP_SECRET = "JOBGRANTDEMOJOBGRANTDEMOJOBGRANT"
DEMO_TOTP_KEY_HEX = base64.b32decode(DEMO_TOTP_SECRET).hex()


def demo_code(at: float | None = None, steps_ahead: int = 0) -> str:
    """The code an authenticator app with the demonstration secret shows at `at` (now), or
    `steps_ahead` 30-second steps later: what the README's commands and the browser tests type."""
    from django_otp.oath import TOTP

    totp = TOTP(base64.b32decode(DEMO_TOTP_SECRET), step=30, t0=0, digits=6)
    totp.time = (time.time() if at is None else at) + 30 * steps_ahead
    return f"{totp.token():06d}"


def is_demo_password(password: str | None) -> bool:
    return hmac.compare_digest((password or "").encode(), DEMO_PASSWORD.encode())


def is_demo_key(key_hex: str) -> bool:
    return hmac.compare_digest(key_hex.lower().encode(), DEMO_TOTP_KEY_HEX.encode())
