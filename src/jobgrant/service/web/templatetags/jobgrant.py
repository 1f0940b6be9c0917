"""Template filters that format money, numbers and dates for the page's language (Babel)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from babel.dates import format_date
from babel.numbers import format_currency, format_decimal
from django import template
from django.utils import translation

from jobgrant.rules.money import parse_amount

register = template.Library()
LOCALES = {"en": "en_CA", "fr": "fr_CA"}


def _locale() -> str:
    return LOCALES.get((translation.get_language() or "en")[:2], "en_CA")


@register.filter
def money(value: int | str | None) -> str:
    """Cents (int) or a decimal string ("5000.00") as "$5,000.00" / "5 000,00 $"."""
    if value is None or value == "":
        return ""
    cents = value if isinstance(value, int) else parse_amount(str(value).lstrip("-"))
    if isinstance(value, str) and value.startswith("-"):
        cents = -cents
    return format_currency(Decimal(cents) / 100, "CAD", locale=_locale(), currency_digits=True)


@register.filter
def number(value: int | None) -> str:
    return "" if value is None else format_decimal(value, locale=_locale())


@register.filter
def longdate(value: dt.date | str | None) -> str:
    """ "March 4, 2026" / "4 mars 2026" (ISO strings accepted)."""
    if not value:
        return ""
    day = dt.date.fromisoformat(value[:10]) if isinstance(value, str) else value
    return format_date(day, format="long", locale=_locale())
