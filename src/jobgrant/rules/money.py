"""Money at the edges: decimal strings in, integer cents inside, locale formats out.

Money is never a float. Amounts arrive as decimal strings (or JSON numbers parsed as Decimal)
with at most two decimals, live as int64 cents, and leave as "5000.00" strings.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

CENTS_PER_DOLLAR = 100
#: The largest amount accepted on input, in dollars: far above any training cost, and small
#: enough that cents times any rate numerator stays inside int64.
MAX_INPUT_DOLLARS = 1_000_000_000
_AMOUNT = re.compile(r"^(\d+)(?:\.(\d{1,2}))?$")


class AmountError(ValueError):
    """An amount that is not a non-negative decimal with at most two decimals."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def parse_amount(raw: object) -> int:
    """Return integer cents for a decimal string, int or Decimal with at most two decimals."""
    if type(raw) is str and (match := _AMOUNT.fullmatch(raw)) and len(match[1]) < 10:
        return _cents(match)  # the usual case, "1500.00": found without the checks below
    if isinstance(raw, bool) or not isinstance(raw, str | int | Decimal):
        raise AmountError("not_an_amount")
    text = str(raw).strip()
    if text.startswith("-"):
        raise AmountError("negative")
    match = _AMOUNT.match(text)
    if match is None:
        raise AmountError(_classify_bad_amount(text))
    if int(match[1]) > MAX_INPUT_DOLLARS:
        raise AmountError("too_large")
    return _cents(match)


def _cents(match: re.Match[str]) -> int:
    dollars, fraction = int(match[1]), match[2]
    if fraction is None:
        return dollars * CENTS_PER_DOLLAR
    return dollars * CENTS_PER_DOLLAR + int(fraction) * (10 if len(fraction) == 1 else 1)


def _classify_bad_amount(text: str) -> str:
    try:
        value = Decimal(text)
    except InvalidOperation:
        return "not_an_amount"
    if not value.is_finite():
        return "not_an_amount"
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -2:
        return "too_many_decimals"
    return "not_an_amount"


def format_amount(cents: int) -> str:
    """Format cents as a plain decimal string: 500000 -> "5000.00"."""
    dollars, remainder = divmod(abs(cents), CENTS_PER_DOLLAR)
    return f"{'-' if cents < 0 else ''}{dollars}.{remainder:02d}"


def format_money(cents: int, lang: str) -> str:
    """Format cents for people: "$5,000.00" in English, "5 000,00 $" in French."""
    sign = "-" if cents < 0 else ""
    dollars, remainder = divmod(abs(int(cents)), CENTS_PER_DOLLAR)
    if lang == "fr":
        grouped = f"{dollars:,}".replace(",", "\u00a0")
        return f"{sign}{grouped},{remainder:02d}\u00a0$"
    return f"{sign}${dollars:,}.{remainder:02d}"
