"""Template filters that format money, numbers and dates for the page's language (Babel)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from babel.numbers import format_decimal
from django import template
from django.urls import translate_url
from django.utils.safestring import SafeString

from jobgrant.rules.money import format_money, parse_amount
from jobgrant.service.language import (
    ENGLISH,
    FRENCH,
    colon,
    current_language,
    current_locale,
    in_language,
    labelled,
    local_day,
    long_date,
)
from jobgrant.service.web.clock_display import days_left_html
from jobgrant.service.web.labels import stream_label

__all__ = [
    "colon_tag",
    "days_left",
    "in_other_language",
    "labelled_filter",
    "longdate",
    "money",
    "number",
    "stream",
    "stream_name",
]
register = template.Library()


@register.filter(name="labelled")
def labelled_filter(label: object, text: object) -> str:
    """{{ label|labelled:text }}: "label: text" in the page's typography (a no-break space
    before the colon in French)."""
    return labelled(label, text)


@register.simple_tag(name="colon")
def colon_tag() -> str:
    """{% colon %}: the colon after a word or a link, in the page's typography (a no-break
    space before it in French)."""
    return colon()


@register.filter
def money(value: int | str | None) -> str:
    """Cents (int) or a decimal string ("5000.00") as "$5,000.00" / "5 000,00 $"."""
    if value is None or value == "":
        return ""
    cents = value if isinstance(value, int) else parse_amount(str(value).lstrip("-"))
    if isinstance(value, str) and value.startswith("-"):
        cents = -cents
    return format_money(cents, current_language())


@register.filter
def number(value: int | None) -> str:
    if value is None:
        return ""
    if type(value) is int and 0 <= value < 1000:  # no separator nor sign in any locale
        return str(value)
    return format_decimal(value, locale=current_locale())


@register.filter
def days_left(due: dict[str, Any]) -> SafeString:
    """{{ due|days_left }}: the business days left or late of a clock (clock_display.due_in)."""
    return days_left_html(due)


@register.filter
def stream(code: str) -> str:
    """A stream's code as people read it: "CJG" in English, "SCE" in French."""
    return stream_label(code)


@register.filter
def stream_name(stream: object) -> str:
    """A stream as people read it: its name in the page's language ("Canada-Ontario Job Grant,
    ranked selection"), else its code's label."""
    named = in_language(en=getattr(stream, "name_en", ""), fr=getattr(stream, "name_fr", ""))
    return str(named or stream_label(str(getattr(stream, "code", ""))))


@register.filter
def longdate(value: dt.date | str | None) -> str:
    """ "March 4, 2026" / "4 mars 2026" (ISO strings accepted); a moment is dated in Ottawa
    time, as every page dates it."""
    if not value:
        return ""
    day = dt.date.fromisoformat(value[:10]) if isinstance(value, str) else local_day(value)
    return long_date(day, current_language())


@register.filter
def in_other_language(path: str) -> str:
    """The same address in the other official language (a form's action, for its language
    button: web/switch_language.html)."""
    return translate_url(str(path), in_language(en=FRENCH, fr=ENGLISH))
