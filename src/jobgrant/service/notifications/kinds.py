"""The kinds of message the service sends: each is a pair of templates on disk, one in English
and one in French (`templates/notifications/<kind>.<language>.txt`)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from jobgrant.service.language import ENGLISH, FRENCH

TEMPLATES = Path(__file__).parent / "templates" / "notifications"
LANGUAGES = (ENGLISH, FRENCH)


@cache
def known_kinds() -> frozenset[str]:
    """The kinds with a template in both languages."""
    names = {path.name for path in TEMPLATES.glob("*.txt")}
    stems = {name.split(".", 1)[0] for name in names}
    return frozenset(k for k in stems if all(f"{k}.{lang}.txt" in names for lang in LANGUAGES))
