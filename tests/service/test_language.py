"""service/language.py: the one place that writes a long date and that says which language to
write to a person in."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

import jobgrant.service
from jobgrant.service.accounts.models import User
from jobgrant.service.language import language_of, long_date

SERVICE = Path(jobgrant.service.__file__).parent
THE_ONE_PLACE = SERVICE / "language.py"


@pytest.mark.parametrize(
    ("day", "language", "shown"),
    [
        (dt.date(2026, 12, 1), "fr", "1er décembre 2026"),
        (dt.date(2027, 1, 1), "fr", "1er janvier 2027"),
        (dt.date(2026, 12, 4), "fr", "4 décembre 2026"),
        (dt.date(2026, 12, 21), "fr", "21 décembre 2026"),
        (dt.date(2026, 12, 1), "en", "December 1, 2026"),
        (dt.date(2026, 12, 4), "en", "December 4, 2026"),
        (dt.date(2026, 3, 31), "en", "March 31, 2026"),
    ],
)
def test_a_long_date_is_written_as_each_language_reads_it(
    day: dt.date, language: str, shown: str
) -> None:
    assert long_date(day, language) == shown


def test_a_long_date_in_a_language_the_service_does_not_write_is_in_english() -> None:
    assert long_date(dt.date(2026, 12, 1), "de") == "December 1, 2026"


@pytest.mark.parametrize(
    ("chosen", "written"), [("fr", "fr"), ("en", "en"), ("", "en"), ("de", "en")]
)
def test_a_person_is_written_to_in_their_language_or_else_in_english(
    chosen: str, written: str
) -> None:
    assert language_of(User(preferred_language=chosen)) == written


#: A module writing a date itself (Babel's format_date, or the French "1er" pattern).
OWN_LONG_DATE = re.compile(r"\bformat_date\(|d'er' MMMM")
#: A module working out a person's language itself: a conditional on, or an override with, the
#: language stored on their account.
OWN_LANGUAGE_OF = re.compile(r"preferred_language\s+(?:if|in|or)\b|override\([^)]*preferred")


def lines_matching(pattern: re.Pattern[str]) -> list[str]:
    """Every line of the service's code, but the one place's, that `pattern` finds."""
    found = []
    for path in sorted(SERVICE.rglob("*.py")):
        if path == THE_ONE_PLACE:
            continue
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            if pattern.search(line):
                found.append(f"{path.relative_to(SERVICE)}:{number}: {line.strip()}")
    return found


def test_no_module_but_language_py_writes_a_long_date() -> None:
    found = lines_matching(OWN_LONG_DATE)
    assert not found, "write dates with language.long_date:\n" + "\n".join(found)


def test_no_module_but_language_py_works_out_the_language_to_write_in() -> None:
    found = lines_matching(OWN_LANGUAGE_OF)
    assert not found, "ask language.language_of:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("pattern", "line"),
    [
        (OWN_LONG_DATE, 'return format_date(day, format="long", locale=current_locale())'),
        (OWN_LONG_DATE, 'french = "d\'er\' MMMM y" if day.day == 1 else "long"'),
        (OWN_LANGUAGE_OF, 'language = a.preferred_language if a.preferred_language in L else "en"'),
        (OWN_LANGUAGE_OF, "with translation.override(application.created_by.preferred_language):"),
        (OWN_LANGUAGE_OF, "with translation.override(preferred or ENGLISH):"),
    ],
)
def test_the_finders_see_the_forms_they_forbid(pattern: re.Pattern[str], line: str) -> None:
    assert pattern.search(line)


def test_the_one_place_is_where_dates_and_the_language_are_worked_out() -> None:
    source = THE_ONE_PLACE.read_text("utf-8")
    assert OWN_LONG_DATE.search(source) and "preferred_language ==" in source
