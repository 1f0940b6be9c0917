"""A passkey (WebAuthn): a second factor that lives in the person's device or security key.

A django-otp device like the authenticator app and the recovery codes, so that everything that
asks "has this person a second factor, did they pass it" (user_has_device, is_verified,
OTPMiddleware) counts it without knowing it. It is never checked with a typed code:
verify_token refuses every one; accounts/passkeys.py checks the browser's signed assertion.
"""

from __future__ import annotations

from django.db import models
from django_otp.models import Device

#: The longest name a person may give a passkey (django-otp's Device.name holds 64).
PASSKEY_NAME_MAX = 64


class Passkey(Device):  # type: ignore[misc]  # django-otp has no type hints
    """One credential: its id and public key (COSE, as the authenticator gave them), the
    signature counter it last reported (a counter that goes backwards means a cloned key), and
    when it was added and last used. Never a secret: the private key stays in the device."""

    credential_id = models.BinaryField(max_length=1023, unique=True)
    public_key = models.BinaryField(max_length=4096)
    sign_count = models.PositiveBigIntegerField(default=0)
    transports = models.JSONField(default=list, blank=True)
    aaguid = models.CharField(max_length=36, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "name"], name="one_passkey_per_name"),
        ]

    def verify_token(self, token: object) -> bool:
        """A passkey answers a challenge, never a typed code."""
        return False
