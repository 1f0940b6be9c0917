"""One parser for the key rings (`JOBGRANT_SIN_KEYS`, `JOBGRANT_OTP_KEYS`): what it reads, what
it refuses and how it says so (naming the variable and the entry, never the key), and that both
the SINs and the authenticator seeds are sealed under the ring it reads."""

from __future__ import annotations

import base64

import pytest

from jobgrant.service.accounts import sealed_secrets
from jobgrant.service.key_rings import parse_key_ring
from jobgrant.service.registry import identifiers

NEW = bytes(range(32))
OLD = bytes(range(32, 64))


def b64(key: bytes) -> str:
    return base64.b64encode(key).decode()


def test_the_first_key_seals_and_every_key_opens() -> None:
    ring = parse_key_ring(f"k-2:{b64(NEW)}, k_1.a:{b64(OLD)} ,", "JOBGRANT_SIN_KEYS", id_max=16)
    assert ring.current == "k-2"
    assert ring.keys == {"k-2": NEW, "k_1.a": OLD}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "JOBGRANT_OTP_KEYS holds no key"),
        (" , ", "JOBGRANT_OTP_KEYS holds no key"),
        (b64(NEW), "JOBGRANT_OTP_KEYS, key 1: write key-id:base64-of-32-bytes"),
        (f":{b64(NEW)}", "key 1: the key id must be 1 to 8 letters, digits, '-', '_' or '.'"),
        (f"key one:{b64(NEW)}", "key 1: the key id must be 1 to 8 letters"),
        (f"k123456789:{b64(NEW)}", "key 1: the key id must be 1 to 8 letters"),
        (f"clé:{b64(NEW)}", "key 1: the key id must be 1 to 8 letters"),
        (f"k1:{b64(NEW)},k1:{b64(OLD)}", "key 2: the key id k1 is given twice"),
        ("k1:not base64!", "key 1 (k1): the key is not base64"),
        (f"k1:{b64(NEW)},k0:{b64(b'short')}", "key 2 (k0): JOBGRANT_OTP_KEYS must hold 32-byte"),
    ],
)
def test_a_malformed_ring_is_refused_naming_the_variable_and_the_entry(
    text: str, said: str
) -> None:
    with pytest.raises(ValueError, match="JOBGRANT_OTP_KEYS") as refused:
        parse_key_ring(text, "JOBGRANT_OTP_KEYS", id_max=8)
    assert said in str(refused.value)
    assert b64(NEW) not in str(refused.value)  # the error never repeats a key


def test_the_sin_keys_and_the_otp_keys_are_read_by_it(settings) -> None:
    settings.SIN_KEYS = f"s2:{b64(NEW)},s1:{b64(OLD)}"
    settings.OTP_KEYS = f"o2:{b64(OLD)},o1:{b64(NEW)}"
    identifiers.forget_keys()
    sealed_secrets.forget_keys()
    try:
        key_id, blob = identifiers.encrypt_sin("046454286")
        assert key_id == "s2" and identifiers.decrypt_sin(key_id, blob) == "046454286"
        assert sealed_secrets.seal("00ff").startswith("enc:o2:")
        settings.SIN_KEYS = settings.OTP_KEYS = "k1:short"
        identifiers.forget_keys()
        sealed_secrets.forget_keys()
        with pytest.raises(ValueError, match="JOBGRANT_SIN_KEYS, key 1"):
            identifiers.encrypt_sin("046454286")
        with pytest.raises(ValueError, match="JOBGRANT_OTP_KEYS, key 1"):
            sealed_secrets.seal("00ff")
    finally:
        identifiers.forget_keys()
        sealed_secrets.forget_keys()
