"""Back-office filters: a moment in time as a date and a time in Toronto, in the page's language."""

from __future__ import annotations

import datetime as dt

from babel.dates import format_time
from django import template
from django.utils import timezone

from jobgrant.service.language import current_language, current_locale, long_date

register = template.Library()


@register.filter
def moment(value: dt.datetime | None) -> str:
    """ "November 29, 2026, 10:00 a.m." / "29 novembre 2026, 10 h 00" (America/Toronto); the
    first of the month is "1er décembre" in French, as in `longdate`."""
    if value is None:
        return ""
    local = timezone.localtime(value)
    time = format_time(local, "short", locale=current_locale())
    return f"{long_date(local.date(), current_language())}, {time}"
