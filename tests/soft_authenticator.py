"""A software authenticator for the passkey tests: a real P-256 key pair that answers WebAuthn
challenges the way a security key does (attestation "none", the signature over the
authenticator data and the hash of the client data, a signature counter), so that the server's
checks (py_webauthn) run on real signatures. The browser tests use Chromium's own virtual
authenticator instead (tests/e2e/test_passkeys.py)."""

from __future__ import annotations

import hashlib
import json
import os
import struct
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn.helpers import bytes_to_base64url, encode_cbor

UP, UV, AT = 0x01, 0x04, 0x40  # user present, user verified, attested credential data


def new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


@dataclass
class SoftAuthenticator:
    rp_id: str
    origin: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: new_key())
    credential_id: bytes = field(default_factory=lambda: os.urandom(16))
    sign_count: int = 0

    def _cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        x, y = numbers.x.to_bytes(32, "big"), numbers.y.to_bytes(32, "big")
        return encode_cbor({1: 2, 3: -7, -1: 1, -2: x, -3: y})

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        body = {"type": kind, "challenge": challenge, "origin": origin or self.origin}
        return json.dumps({**body, "crossOrigin": False}).encode()

    def _auth_data(self, flags: int, rp_id: str | None = None) -> bytes:
        rp_hash = hashlib.sha256((rp_id or self.rp_id).encode()).digest()
        return rp_hash + bytes([flags]) + struct.pack(">I", self.sign_count)

    def create(self, options: dict[str, Any], origin: str | None = None) -> str:
        """What navigator.credentials.create() gives back, as passkey.js sends it."""
        self.sign_count = 0
        attested = (
            bytes(16)  # AAGUID: none
            + struct.pack(">H", len(self.credential_id))
            + self.credential_id
            + self._cose_key()
        )
        auth_data = self._auth_data(UP | UV | AT) + attested
        attestation = encode_cbor({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", options["challenge"], origin)
        response = {
            "clientDataJSON": bytes_to_base64url(client_data),
            "attestationObject": bytes_to_base64url(attestation),
            "transports": ["usb"],
        }
        return self._credential(response)

    def get(
        self,
        options: dict[str, Any],
        origin: str | None = None,
        rp_id: str | None = None,
        count_up: bool = True,
    ) -> str:
        """What navigator.credentials.get() gives back; `count_up=False` is a clone that
        reports the counter it had."""
        if count_up:
            self.sign_count += 1
        auth_data = self._auth_data(UP | UV, rp_id)
        client_data = self._client_data("webauthn.get", options["challenge"], origin)
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = self.key.sign(signed, ec.ECDSA(hashes.SHA256()))
        response = {
            "clientDataJSON": bytes_to_base64url(client_data),
            "authenticatorData": bytes_to_base64url(auth_data),
            "signature": bytes_to_base64url(signature),
        }
        return self._credential(response)

    def _credential(self, response: dict[str, Any]) -> str:
        credential_id = bytes_to_base64url(self.credential_id)
        return json.dumps(
            {
                "id": credential_id,
                "rawId": credential_id,
                "type": "public-key",
                "response": response,
                "clientExtensionResults": {},
            }
        )
