"""Passkeys (WebAuthn) through py_webauthn: the two ceremonies, and the writes they make.

Each ceremony has two halves. The options (a fresh random challenge, kept in the session, and
what the browser needs) go into the page; the browser's answer comes back in a form field and
is checked here by py_webauthn: the challenge (taken out of the session, so an answer works
once), the relying party id and the origin (both from JOBGRANT_BASE_URL), the signature, and
the signature counter (an authenticator that reports a counter not above the one we hold may
be a clone: refused, logged and audited). Only a person who already has an authenticator app
adds a passkey (it is a second option, not a replacement: the app and the recovery codes stay
the way in for the API and for re-authentication).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Literal, cast
from urllib.parse import urlsplit

import webauthn
from django.conf import settings
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone
from django.utils.crypto import salted_hmac
from webauthn.helpers import bytes_to_base64url
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from jobgrant.service.accounts import second_factor_limits
from jobgrant.service.accounts.models import User
from jobgrant.service.accounts.passkey_models import PASSKEY_NAME_MAX, Passkey
from jobgrant.service.accounts.second_factor_actions import second_factor_passed
from jobgrant.service.audit.chain import record

log = logging.getLogger("jobgrant.security")

CHALLENGE_KEY = "jobgrant.passkey_challenge.{purpose}"
REGISTER, SIGN_IN = "register", "sign-in"
#: How long the browser may take to answer (milliseconds, as WebAuthn counts).
CEREMONY_TIMEOUT_MS = 120_000
RP_NAME = "Canada Job Grant"


@dataclass(frozen=True)
class RelyingParty:
    """Who we are to the authenticator: the host (RP id) and the origin of JOBGRANT_BASE_URL."""

    id: str
    origin: str


def relying_party() -> RelyingParty:
    parts = urlsplit(settings.JOBGRANT_BASE_URL)
    return RelyingParty(id=parts.hostname or "localhost", origin=f"{parts.scheme}://{parts.netloc}")


def passkeys_of(user: User) -> list[Passkey]:
    return list(Passkey.objects.filter(user=user, confirmed=True).order_by("created_at", "pk"))


def _descriptors(user: User) -> list[PublicKeyCredentialDescriptor]:
    return [PublicKeyCredentialDescriptor(id=bytes(key.credential_id)) for key in passkeys_of(user)]


def _remember(request: HttpRequest, purpose: str, challenge: bytes) -> None:
    request.session[CHALLENGE_KEY.format(purpose=purpose)] = bytes_to_base64url(challenge)


def _take_challenge(request: HttpRequest, purpose: str) -> bytes | None:
    """The challenge given out for this ceremony, once: a second answer finds none."""
    kept = request.session.pop(CHALLENGE_KEY.format(purpose=purpose), None)
    return webauthn.base64url_to_bytes(kept) if kept else None


def user_handle(user: User) -> bytes:
    """What the authenticator stores as the user: a keyed digest, not the id nor the name."""
    return salted_hmac("jobgrant.passkey.user", str(user.pk)).digest()[:32]


def registration_options(request: HttpRequest, user: User) -> str:
    """The options for navigator.credentials.create(), as JSON; the challenge is kept."""
    rp = relying_party()
    options = webauthn.generate_registration_options(
        rp_id=rp.id,
        rp_name=RP_NAME,
        user_name=user.username,
        user_id=user_handle(user),
        user_display_name=user.get_full_name() or user.username,
        timeout=CEREMONY_TIMEOUT_MS,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.DISCOURAGED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=_descriptors(user),
    )
    _remember(request, REGISTER, options.challenge)
    return webauthn.options_to_json(options)


def authentication_options(request: HttpRequest, user: User) -> str:
    """The options for navigator.credentials.get(), as JSON, naming the user's passkeys; "" for
    a person with none (no ceremony to offer, no challenge kept)."""
    descriptors = _descriptors(user)
    if not descriptors:
        return ""
    options = webauthn.generate_authentication_options(
        rp_id=relying_party().id,
        timeout=CEREMONY_TIMEOUT_MS,
        allow_credentials=descriptors,
        user_verification=UserVerificationRequirement.PREFERRED,
    )
    _remember(request, SIGN_IN, options.challenge)
    return webauthn.options_to_json(options)


#: Why an answer is refused: no answer (no script, or the person cancelled), no challenge
#: given out (or already used), a name already taken, or the answer itself failed a check.
RefusalReason = Literal["missing", "expired", "name_taken", "invalid", "cloned"]


class PasskeyRefusedError(Exception):
    """The browser's answer did not pass; the pages translate its `reason`."""

    def __init__(self, reason: RefusalReason, passkey: Passkey | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.passkey = passkey


def add_passkey(request: HttpRequest, user: User, name: str, answer: str) -> Passkey:
    """Register the passkey the browser created: checked, stored, audited."""
    name = name.strip()[:PASSKEY_NAME_MAX]
    if not answer:
        raise PasskeyRefusedError("missing")
    challenge = _take_challenge(request, REGISTER)
    if challenge is None:
        raise PasskeyRefusedError("expired")
    parsed = _parsed(answer)
    rp = relying_party()
    try:
        verified = webauthn.verify_registration_response(
            credential=parsed,
            expected_challenge=challenge,
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
        )
    except (InvalidRegistrationResponse, ValueError, KeyError, TypeError) as refused:
        log.warning("passkey registration refused for user %s: %s", user.pk, refused)
        raise PasskeyRefusedError("invalid") from refused
    with transaction.atomic():
        if Passkey.objects.filter(user=user, name=name).exists():
            raise PasskeyRefusedError("name_taken")
        if Passkey.objects.filter(credential_id=verified.credential_id).exists():
            raise PasskeyRefusedError("invalid")
        passkey = Passkey.objects.create(
            user=user,
            name=name,
            confirmed=True,
            credential_id=verified.credential_id,
            public_key=verified.credential_public_key,
            sign_count=verified.sign_count,
            transports=_transports(parsed),
            aaguid=verified.aaguid,
        )
        summary = {"name": name, "aaguid": verified.aaguid, "role": user.role}
        record(user.username, "second_factor.passkey_added", "user", user.pk, summary)
    return cast(Passkey, passkey)


def sign_in_with_passkey(request: HttpRequest, user: User, answer: str) -> Passkey:
    """The second step with a passkey: the session counts as verified by it (django-otp)."""
    if not answer:
        raise PasskeyRefusedError("missing")
    challenge = _take_challenge(request, SIGN_IN)
    if challenge is None:
        raise PasskeyRefusedError("expired")
    parsed = _parsed(answer)
    try:
        with transaction.atomic():
            passkey = _owned_passkey(user, parsed)
            verified = _verified_assertion(user, passkey, parsed, challenge)
            passkey.sign_count = verified.new_sign_count
            passkey.last_used_at = timezone.now()
            passkey.save(update_fields=["sign_count", "last_used_at"])
            second_factor_passed(request, passkey)
            second_factor_limits.passed(request, user)
    except PasskeyRefusedError as refused:
        if refused.reason == "cloned" and refused.passkey is not None:
            _audit_possible_clone(user, refused.passkey)
        raise
    return passkey


def _audit_possible_clone(user: User, passkey: Passkey) -> None:
    """A counter that did not go up: the key may have been copied. The auditors are told, and
    the passkey stays refused until its counter goes past the one held."""
    summary = {"name": passkey.name, "held_count": passkey.sign_count}
    with transaction.atomic():
        record(user.username, "second_factor.passkey_counter_refused", "user", user.pk, summary)


def _owned_passkey(user: User, parsed: dict[str, Any]) -> Passkey:
    try:
        credential_id = webauthn.base64url_to_bytes(str(parsed.get("rawId") or parsed["id"]))
    except (KeyError, ValueError) as refused:
        raise PasskeyRefusedError("invalid") from refused
    passkey = (
        Passkey.objects.select_for_update()
        .filter(user=user, confirmed=True, credential_id=credential_id)
        .first()
    )
    if passkey is None:
        log.warning("passkey sign-in refused for user %s: not one of theirs", user.pk)
        raise PasskeyRefusedError("invalid")
    return cast(Passkey, passkey)


def _verified_assertion(
    user: User, passkey: Passkey, parsed: dict[str, Any], challenge: bytes
) -> Any:
    rp = relying_party()
    try:
        return webauthn.verify_authentication_response(
            credential=parsed,
            expected_challenge=challenge,
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
            credential_public_key=bytes(passkey.public_key),
            credential_current_sign_count=passkey.sign_count,
        )
    except (InvalidAuthenticationResponse, ValueError, KeyError, TypeError) as refused:
        log.warning("passkey sign-in refused for user %s: %s", user.pk, refused)
        if "sign count" in str(refused).lower():
            raise PasskeyRefusedError("cloned", passkey) from refused
        raise PasskeyRefusedError("invalid") from refused


def remove_passkey(user: User, passkey_id: int) -> str | None:
    """Remove one of the user's passkeys; its name, or None when they have none such."""
    with transaction.atomic():
        passkey = Passkey.objects.filter(user=user, pk=passkey_id).first()
        if passkey is None:
            return None
        passkey.delete()
        record(
            user.username, "second_factor.passkey_removed", "user", user.pk, {"name": passkey.name}
        )
    return str(passkey.name)


def _parsed(answer: str) -> dict[str, Any]:
    try:
        parsed = json.loads(answer)
    except ValueError as refused:
        raise PasskeyRefusedError("invalid") from refused
    if not isinstance(parsed, dict):
        raise PasskeyRefusedError("invalid")
    return parsed


def _transports(parsed: dict[str, Any]) -> list[str]:
    found = parsed.get("response", {}).get("transports") or []
    return [str(t)[:32] for t in found if isinstance(t, str)][:8]
