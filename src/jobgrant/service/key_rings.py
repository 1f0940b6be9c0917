"""Key rings: the versioned AES-256 keys of `JOBGRANT_SIN_KEYS` and `JOBGRANT_OTP_KEYS`, read by
one parser.

A ring is written `key-id:base64-of-32-bytes[,key-id:base64…]`: the first key seals what is
written from now on, the others only open what they sealed before a rotation. A key id is stored
beside what it sealed, so it is short (at most what its column holds: 16 characters for a SIN, 8
for a seed) and made of letters, digits, "-", "_" or "."; it appears once. Anything else stops
the process with an error naming the variable and the entry, never the key itself.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

KEY_BYTES = 32
KEY_ID = re.compile(r"[A-Za-z0-9._-]+")


@dataclass(frozen=True)
class KeyRing:
    current: str  # the id of the key that seals
    keys: dict[str, bytes]  # every key by its id, the current one included


def parse_key_ring(text: str, variable: str, id_max: int) -> KeyRing:
    """The ring written in `text` (the value of the setting `variable`, named in errors), its
    key ids at most `id_max` characters long."""
    keys: dict[str, bytes] = {}
    entries = [entry.strip() for entry in text.split(",") if entry.strip()]
    if not entries:
        raise ValueError(f"{variable} holds no key: write key-id:base64-of-32-bytes")
    for number, entry in enumerate(entries, start=1):
        key_id, colon, secret = entry.partition(":")
        where = f"{variable}, key {number}"
        if not colon:
            raise ValueError(f"{where}: write key-id:base64-of-32-bytes")
        if not (len(key_id) <= id_max and KEY_ID.fullmatch(key_id)):
            raise ValueError(
                f"{where}: the key id must be 1 to {id_max} letters, digits, '-', '_' or '.'"
            )
        if key_id in keys:
            raise ValueError(f"{where}: the key id {key_id} is given twice")
        try:
            key = base64.b64decode(secret.strip(), validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"{where} ({key_id}): the key is not base64") from None
        if len(key) != KEY_BYTES:
            raise ValueError(f"{where} ({key_id}): {variable} must hold {KEY_BYTES}-byte keys")
        keys[key_id] = key
    return KeyRing(current=next(iter(keys)), keys=keys)
