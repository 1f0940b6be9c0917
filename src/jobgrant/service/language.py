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

from babel.dates import format_date, format_time
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy

ENGLISH, FRENCH = "en", "fr"
#: The service's one time zone (settings.TIME_ZONE, America/Toronto), named the same way wherever
#: a page, a report or a file says which zone its times are in.
TIME_ZONE_NAME = gettext_lazy("Ottawa time")
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


def of_language(language: str, *, en: T, fr: T) -> T:
    """Of two values, the one for `language` ("en" or "fr"; a command's or a file's own language,
    whatever the request's)."""
    return fr if language == FRENCH else en


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
    day = local_day(day)  # a moment is dated on its Ottawa day, never its UTC day
    french = language == FRENCH
    pattern = "d'er' MMMM y" if french and day.day == 1 else "long"
    return format_date(day, format=pattern, locale=LOCALES[FRENCH if french else ENGLISH])


def local_day(value: dt.date) -> dt.date:
    """The day a date or a moment falls on in Ottawa time: a moment stored in UTC at 1:30 a.m.
    on December 2 is the evening of December 1 in Ottawa."""
    if isinstance(value, dt.datetime):
        return timezone.localtime(value).date() if timezone.is_aware(value) else value.date()
    return value


def long_moment(value: dt.datetime, language: str) -> str:
    """ "December 1, 2026, 8:30 p.m." / "1er décembre 2026, 20 h 30", in Ottawa time."""
    local = timezone.localtime(value) if timezone.is_aware(value) else value
    time = format_time(local, "short", locale=LOCALES[FRENCH if language == FRENCH else ENGLISH])
    return f"{long_date(local.date(), language)}, {time}"


def month_of_year(year: int, month: int, language: str) -> str:
    """ "February 2027" / "février 2027"."""
    day = dt.date(year, month, 1)
    return format_date(day, "MMMM y", locale=LOCALES[FRENCH if language == FRENCH else ENGLISH])
