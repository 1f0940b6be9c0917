"""Back-office filters: a moment as a date and a time in Ottawa time, in the page's language."""

from __future__ import annotations

import datetime as dt

from django import template

from jobgrant.service.language import current_language, long_moment

register = template.Library()


@register.filter
def moment(value: dt.datetime | None) -> str:
    """ "November 29, 2026, 10:00 a.m." / "29 novembre 2026, 10 h 00" (Ottawa time); the
    first of the month is "1er décembre" in French, as in `longdate`."""
    return "" if value is None else long_moment(value, current_language())
