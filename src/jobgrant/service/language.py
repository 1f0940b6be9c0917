"""The language: the one place that asks which language is on, which language to write to a
person in, and how a date is written in each.

Everything else either uses lazy translated strings (gettext_lazy, TextChoices labels) or asks
one of these helpers to pick between an English and a French value, so that no module tests
`== "fr"` by itself (a test greps the source for such tests).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Protocol, TypeVar

from babel.dates import format_date
from django.utils import translation

ENGLISH, FRENCH = "en", "fr"
LOCALES = {ENGLISH: "en_CA", FRENCH: "fr_CA"}
T = TypeVar("T")


def current_language() -> str:
    """ "en" or "fr": the language Django activated for this request (English when none is)."""
    active = (translation.get_language() or ENGLISH)[:2]
    return FRENCH if active == FRENCH else ENGLISH


def current_locale() -> str:
    """The Babel locale of the current language: "en_CA" or "fr_CA"."""
    return LOCALES[current_language()]


def in_language(*, en: T, fr: T) -> T:
    """Of two values, the one for the current language."""
    return fr if current_language() == FRENCH else en


def colon() -> str:
    """The colon after a word, as the current language writes it: ":" in English, a no-break
    space and ":" in French."""
    return in_language(en=":", fr="\u00a0:")


def labelled(label: object, text: object) -> str:
    """ "Label: text" in the current language's typography (put together in code: a page's
    error link, a legend)."""
    return f"{label}{colon()} {text}"


def localized(found: Mapping[str, object], name: str = "message") -> str:
    """The `name_en` or `name_fr` entry of a bilingual record (a kernel reason, a problem)."""
    return str(found.get(f"{name}_{current_language()}") or "")


def in_both_languages(render: Callable[[], object]) -> tuple[str, str]:
    """What `render` writes (a translated text, with its values) in English and in French, for
    the messages the service gives in both languages."""
    with translation.override(ENGLISH):
        english = str(render())
    with translation.override(FRENCH):
        french = str(render())
    return english, french


class Addressee(Protocol):
    """Someone the service writes to: an account, which keeps the language its owner chose."""

    @property
    def preferred_language(self) -> str: ...


def language_of(person: Addressee) -> str:
    """ "en" or "fr": the language to write to `person` in (an employer's is that of the person
    who made the application); English when what is on file is neither."""
    return FRENCH if person.preferred_language == FRENCH else ENGLISH


@lru_cache(maxsize=4096)
def long_date(day: dt.date, language: str) -> str:
    """ "December 1, 2026" / "1er décembre 2026": French writes the first of the month "1er"
    (an ordinal), which Babel's long format leaves out. Kept, since each costs about 0.3 ms and
    an agreement writes eight."""
    french = language == FRENCH
    pattern = "d'er' MMMM y" if french and day.day == 1 else "long"
    return format_date(day, format=pattern, locale=LOCALES[FRENCH if french else ENGLISH])
