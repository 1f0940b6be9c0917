"""An intake's body (names, window, budget per funder), checked: every problem named by its
field in both languages, and nothing written while one remains."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from jobgrant.rules.codes import fiscal_year as fiscal_year_of
from jobgrant.rules.money import AmountError, parse_amount
from jobgrant.rules.requests import has_control_characters
from jobgrant.service.errors import bad_input, problem
from jobgrant.service.grants.core.input import ReasonRule, checked_reason

NAME_MOST = 200
REQUIRED = ("is required", "est obligatoire")
CONTROL = (
    "must not contain control characters",
    "ne doit pas contenir de caractères de contrôle",
)


@dataclass(frozen=True)
class IntakeInput:
    name_en: str
    name_fr: str
    opens_on: dt.date
    closes_on: dt.date
    federal_budget_cents: int
    provincial_budget_cents: int


def _name(data: dict[str, Any], key: str, problems: list[dict[str, str]]) -> str:
    raw = data.get(key)
    text = raw.strip() if isinstance(raw, str) else ""
    if not text:
        problems.append(problem(key, *REQUIRED))
    elif has_control_characters(text):  # a NUL, say: the database would refuse it
        problems.append(problem(key, *CONTROL))
    elif len(text) > NAME_MOST:
        problems.append(
            problem(
                key,
                f"must be at most {NAME_MOST} characters",
                f"doit compter au plus {NAME_MOST} caractères",
            )
        )
    return text


def _date(data: dict[str, Any], key: str, problems: list[dict[str, str]]) -> dt.date | None:
    raw = data.get(key)
    if isinstance(raw, dt.date):
        return raw
    if not raw:
        problems.append(problem(key, *REQUIRED))
        return None
    try:
        return dt.date.fromisoformat(str(raw))
    except ValueError:
        problems.append(
            problem(
                key,
                "is not a date (write it as 2026-04-01)",
                "n'est pas une date (écrivez-la ainsi\u00a0: 2026-04-01)",
            )
        )
        return None


def _cents(data: dict[str, Any], key: str, problems: list[dict[str, str]]) -> int:
    raw = data.get(key)
    if raw in (None, ""):
        return 0
    try:
        return parse_amount(raw)
    except AmountError:
        problems.append(
            problem(
                key,
                "must be an amount in dollars of zero or more, with at most two decimals",
                "doit être un montant en dollars, zéro ou plus, avec au plus deux décimales",
            )
        )
        return 0


def _window_problems(opens: dt.date, closes: dt.date, fiscal_year: str) -> list[dict[str, str]]:
    """The window must end on or after it opens, inside the program's fiscal year."""
    first = dt.date(int(fiscal_year[:4]), 4, 1)
    last = dt.date(first.year + 1, 3, 31)
    problems = []
    if closes < opens:
        problems.append(
            problem(
                "closes_on",
                "must be on or after the opening date",
                "doit être le jour de l'ouverture ou après",
            )
        )
    for key, day in (("opens_on", opens), ("closes_on", closes)):
        if fiscal_year_of(day) != fiscal_year:
            problems.append(
                problem(
                    key,
                    f"must fall in fiscal year {fiscal_year} ({first} to {last})",
                    f"doit tomber dans l'exercice {fiscal_year} (du {first} au {last})",
                )
            )
    return problems


def checked_intake(data: dict[str, Any], fiscal_year: str) -> IntakeInput:
    """The intake's body, or a 422 naming each field in error (nothing is written)."""
    problems: list[dict[str, str]] = []
    name_en = _name(data, "name_en", problems)
    name_fr = _name(data, "name_fr", problems)
    opens = _date(data, "opens_on", problems)
    closes = _date(data, "closes_on", problems)
    federal = _cents(data, "federal_budget", problems)
    provincial = _cents(data, "provincial_budget", problems)
    if opens and closes:
        problems += _window_problems(opens, closes, fiscal_year)
    if problems or opens is None or closes is None:
        raise bad_input(problems)
    return IntakeInput(name_en, name_fr, opens, closes, federal, provincial)


def refuse_control_characters(text: str, key: str) -> None:
    """A 422 for characters nobody types (a NUL, say, which the database refuses), line
    breaks and tabs apart."""
    if has_control_characters(text.replace("\n", "").replace("\r", "").replace("\t", "")):
        raise bad_input([problem(key, *CONTROL)])


CLOSING_REASON = ReasonRule(
    2000,
    missing=("is required to close an intake early", "est obligatoire pour fermer un appel tôt"),
)


def checked_closing_reason(raw: object) -> str:
    """Why an intake closes early, trimmed: required, at most 2,000 characters, no SIN, no
    control character; or a 422 naming `reason`."""
    why = checked_reason(raw, CLOSING_REASON)
    refuse_control_characters(why, "reason")
    return why
