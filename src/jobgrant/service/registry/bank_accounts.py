"""An organization's direct-deposit account: checked, sealed, matched without being read.

A Canadian account is named by a 3-digit institution number, a 5-digit transit (branch) number
and an account number of 7 to 12 digits (Payments Canada's cheque and direct-deposit formats).
The institution and transit name a branch and are kept in clear; the account number is sealed
as a SIN is (AES-GCM under the current key of `JOBGRANT_SIN_KEYS`, its key id stored beside it,
with associated data of its own so that a sealed account number never opens as a SIN), and a
keyed index (HMAC-SHA256 under the SIN index key, over a prefix of its own and the whole
account) lets two organizations' accounts be compared without either being read. Pages show
the last digits only.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from dataclasses import dataclass

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from jobgrant.service.registry import identifiers

AAD = b"bank-account"
INDEX_PREFIX = "bank-account:"
LAST_DIGITS = 4
_INSTITUTION = re.compile(r"\d{3}")
_TRANSIT = re.compile(r"\d{5}")
_ACCOUNT = re.compile(r"\d{7,12}")


@dataclass(frozen=True)
class BankAccount:
    institution: str
    transit: str
    account: str


def compact(raw: str) -> str:
    """Digits as people type them, spaces and hyphens dropped."""
    return re.sub(r"[\s-]", "", str(raw))


def problems(institution: str, transit: str, account: str) -> dict[str, tuple[str, str]]:
    """Each field that is not a valid number, with what to write, in English and French."""
    found: dict[str, tuple[str, str]] = {}
    if not _INSTITUTION.fullmatch(compact(institution)):
        found["institution"] = (
            "Enter the institution number: 3 digits.",
            "Entrez le numéro d'institution : 3 chiffres.",
        )
    if not _TRANSIT.fullmatch(compact(transit)):
        found["transit"] = (
            "Enter the transit (branch) number: 5 digits.",
            "Entrez le numéro de domiciliation (succursale) : 5 chiffres.",
        )
    if not _ACCOUNT.fullmatch(compact(account)):
        found["account"] = (
            "Enter the account number: 7 to 12 digits.",
            "Entrez le numéro de compte : de 7 à 12 chiffres.",
        )
    return found


def checked(institution: str, transit: str, account: str) -> BankAccount:
    """The account, its numbers compacted (call `problems` first)."""
    return BankAccount(compact(institution), compact(transit), compact(account))


def seal(account: BankAccount) -> tuple[str, bytes]:
    """(key id, nonce + ciphertext) of the account number."""
    ring = identifiers._keys()
    nonce = os.urandom(12)
    sealed = AESGCM(ring.keys[ring.current]).encrypt(nonce, account.account.encode(), AAD)
    return ring.current, nonce + sealed


def open_sealed(key_id: str, blob: bytes) -> str:
    """The account number in full: for paying, never for a page."""
    key = identifiers._keys().keys[key_id]
    return AESGCM(key).decrypt(blob[:12], blob[12:], AAD).decode()


def blind_index(account: BankAccount) -> str:
    """Equal accounts (institution, transit and number) give equal indexes; nothing else does,
    and the index reveals none of them."""
    text = f"{INDEX_PREFIX}{account.institution}-{account.transit}-{account.account}"
    return hmac.new(identifiers._index_key(), text.encode(), hashlib.sha256).hexdigest()


def last_digits(account: BankAccount) -> str:
    return account.account[-LAST_DIGITS:]
