"""Business days in a province or territory: Monday to Friday, less its statutory holidays.

The holidays come from the maintained `holidays` package (its "public" category: the days each
province's employment standards make statutory holidays, and their observed days when one falls
on a weekend). A service standard's "within N business days of X" ends on the N-th business
day after the day of X (that day itself is not counted, whatever it is): a file received on a
Friday and due "within 1 business day" is due on the Monday, or the Tuesday when that Monday is
a holiday.
"""

from __future__ import annotations

import datetime as dt
from functools import cache

import holidays

from jobgrant.rules.codes import JURISDICTION_CODES

ONE_DAY = dt.timedelta(days=1)


class BusinessCalendar:
    """One jurisdiction's working days."""

    def __init__(self, jurisdiction: str) -> None:
        if jurisdiction not in JURISDICTION_CODES:
            raise ValueError(f"unknown jurisdiction {jurisdiction!r}")
        self.jurisdiction = jurisdiction
        # Years are filled in as they are asked for (the package expands itself).
        self._holidays = holidays.country_holidays(
            "CA", subdiv=jurisdiction, categories=(holidays.PUBLIC,)
        )

    def holiday(self, day: dt.date) -> str | None:
        """The statutory holiday's name on `day` (English), or None."""
        return self._holidays.get(day)

    def is_business_day(self, day: dt.date) -> bool:
        return day.weekday() < 5 and day not in self._holidays

    def add(self, start: dt.date, business_days: int) -> dt.date:
        """The `business_days`-th business day after `start` (`start` itself for 0)."""
        if business_days < 0:
            raise ValueError("business_days must not be negative")
        day = start
        for _ in range(business_days):
            day += ONE_DAY
            while not self.is_business_day(day):
                day += ONE_DAY
        return day

    def between(self, start: dt.date, end: dt.date) -> int:
        """Business days after `start` up to and including `end`; negative, counted the same
        way back, when `end` is before `start` (so 0 when they are the same day)."""
        if end < start:
            return -self.between(end, start)
        count, day = 0, start
        while day < end:
            day += ONE_DAY
            count += self.is_business_day(day)
        return count


@cache
def calendar(jurisdiction: str) -> BusinessCalendar:
    """The jurisdiction's calendar, made once per process."""
    return BusinessCalendar(jurisdiction)
