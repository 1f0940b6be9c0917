"""Canadian identifiers: Business Number (BN9, check digit) and Social Insurance Number.

The SIN is validated (stdnum: Luhn, first digit neither 0 nor 8), encrypted at rest with
AES-GCM under a versioned key, indexed by an HMAC blind index for duplicate checks, and shown
masked. It never appears in logs, URLs or audit entries.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
from functools import cache

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings
from stdnum import luhn
from stdnum.ca import bn, sin
from stdnum.exceptions import ValidationError

from jobgrant.service.key_rings import KeyRing, parse_key_ring


def normalize_business_number(raw: str) -> str | None:
    """The 9-digit BN (spaces and hyphens dropped) if its check digit is right, else None."""
    try:
        number = str(bn.validate(str(raw)))
    except ValidationError:
        return None
    return number if len(number) == 9 else None  # a BN15 program account is not the BN9


POSTAL_PATTERN = re.compile(r"^[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z]\d[ABCEGHJ-NPRSTV-Z]\d$")
#: The first letter of a postal code, by province or territory (Canada Post).
POSTAL_LETTERS = {
    "NL": "A",
    "NS": "B",
    "PE": "C",
    "NB": "E",
    "QC": "GHJ",
    "ON": "KLMNP",
    "MB": "R",
    "SK": "S",
    "AB": "T",
    "BC": "V",
    "NT": "X",
    "NU": "X",
    "YT": "Y",
}


def normalize_postal_code(raw: str) -> str | None:
    """`A1A 1A1` (upper case, one space) if `raw` is a Canadian postal code, else None."""
    compact = re.sub(r"[\s-]", "", str(raw)).upper()
    return f"{compact[:3]} {compact[3:]}" if POSTAL_PATTERN.match(compact) else None


PHONE_PATTERN = re.compile(r"1?(\d{3})(\d{3})(\d{4})")


def normalize_phone(raw: str) -> str | None:
    """`NNN-NNN-NNNN` if `raw` is a North American telephone number of 10 digits (spaces,
    dashes, dots, brackets and a leading +1 or 1 allowed), else None."""
    found = PHONE_PATTERN.fullmatch(re.sub(r"[\s().+-]", "", str(raw)))
    return "-".join(found.groups()) if found else None


def phone_digits(raw: str) -> str:
    """The 10 digits a telephone number is compared by (its country code 1 and its formatting
    dropped), or "" when `raw` holds no such number."""
    digits = re.sub(r"\D", "", str(raw))
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    return digits if len(digits) == 10 else ""


def postal_code_fits(postal_code: str, jurisdiction: str) -> bool:
    """Whether a (normalized) postal code belongs to the province or territory."""
    return bool(postal_code) and postal_code[0] in POSTAL_LETTERS.get(jurisdiction, "")


def normalize_sin(raw: str) -> str | None:
    """The 9-digit SIN if valid, else None."""
    try:
        return str(sin.validate(str(raw)))
    except ValidationError:
        return None


def mask_sin(value: str) -> str:
    return f"***-***-{value[-3:]}"


def format_sin(value: str) -> str:
    """NNN-NNN-NNN, the way a SIN is written."""
    return str(sin.format(value))


# Nine digits, grouped by spaces or dashes or not, standing alone (not inside a longer number or
# a word): a SIN as people write it. Passing the Luhn check is what makes it look like one.
_NINE_DIGITS = re.compile(r"(?<![0-9A-Za-z])(\d{3})[ -]?(\d{3})[ -]?(\d{3})(?![0-9A-Za-z])")


def looks_like_sin(value: object) -> bool:
    """Whether free text holds what may be a SIN, so that it never goes into a message, a
    reason or the audit trail (looser than `normalize_sin`: any nine digits passing Luhn)."""
    return any(
        luhn.is_valid("".join(match.groups())) for match in _NINE_DIGITS.finditer(str(value))
    )


SIN_KEY_ID_MAX = 16  # the key id column of the rows holding a SIN


@cache
def _keys() -> KeyRing:
    return parse_key_ring(settings.SIN_KEYS, "JOBGRANT_SIN_KEYS", id_max=SIN_KEY_ID_MAX)


def encrypt_sin(value: str) -> tuple[str, bytes]:
    """(key id, nonce + ciphertext) for a validated SIN."""
    keys = _keys()
    nonce = os.urandom(12)
    sealed = AESGCM(keys.keys[keys.current]).encrypt(nonce, value.encode(), b"sin")
    return keys.current, nonce + sealed


def decrypt_sin(key_id: str, blob: bytes) -> str:
    key = _keys().keys[key_id]
    return AESGCM(key).decrypt(blob[:12], blob[12:], b"sin").decode()


@cache
def _index_key() -> bytes:
    key = base64.b64decode(settings.SIN_INDEX_KEY)
    if len(key) != 32:
        raise ValueError("JOBGRANT_SIN_INDEX_KEY must be a 32-byte key")
    return key


def sin_blind_index(value: str) -> str:
    """HMAC-SHA256 of the SIN under the index key: equal SINs match, the SIN is not revealed.

    The index key is not an encryption key and never rotates with them: under the
    current encryption key, the same SIN registered before and after a rotation had two indexes,
    and the uniqueness constraint let it in twice."""
    return hmac.new(_index_key(), value.encode(), hashlib.sha256).hexdigest()


def current_key_id() -> str:
    return _keys().current


def forget_keys() -> None:
    """Read the keys from the settings again (after a rotation, in the same process)."""
    _keys.cache_clear()
    _index_key.cache_clear()
