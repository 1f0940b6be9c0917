"""Back-office filters: a moment in time as a date and a time in Toronto, in the page's language."""

from __future__ import annotations

import datetime as dt

from babel.dates import format_date, format_time
from django import template
from django.utils import timezone, translation

register = template.Library()
LOCALES = {"en": "en_CA", "fr": "fr_CA"}


@register.filter
def moment(value: dt.datetime | None) -> str:
    """ "November 29, 2026, 10:00 a.m." / "29 novembre 2026, 10 h 00" (America/Toronto)."""
    if value is None:
        return ""
    local = timezone.localtime(value)
    locale = LOCALES.get((translation.get_language() or "en")[:2], "en_CA")
    return (
        f"{format_date(local, 'long', locale=locale)}, {format_time(local, 'short', locale=locale)}"
    )
