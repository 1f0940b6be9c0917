"""Text kept outside the audit trail's rows, bound to it: notes, reasons.

A note an officer keeps with a decision, or the reason an application was denied, lives in the
application's history; the chained entry of that decision holds its SHA-256 (`note_sha256`), or
the reason itself where the trail already showed it. Editing the text in the database then
contradicts a hashed entry, which cannot be edited without breaking the chain: `jobgrant audit
verify` walks the chain, then asks every registered check whether the text still matches.

The apps whose rows hold such text register a check (grants does, in its AppConfig.ready): the
audit app knows nothing of their models (it is below them in the layers).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

#: A check yields one sentence per piece of text that no longer matches its entry.
Check = Callable[[], Iterable[str]]
_CHECKS: list[Check] = []


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def anchored(note: str) -> dict[str, str]:
    """What an entry's summary holds of a note: its digest, or nothing when there is none."""
    return {"note_sha256": digest(note)} if note else {}


def register(check: Check) -> None:
    if check not in _CHECKS:
        _CHECKS.append(check)


def mismatches() -> list[str]:
    return [problem for check in _CHECKS for problem in check()]
