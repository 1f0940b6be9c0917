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
        self._counted_years: dict[int, list[int]] = {}

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
        if start.year == end.year:
            return self._up_to(end) - self._up_to(start)
        whole_years = sum(self._year(year)[-1] for year in range(start.year + 1, end.year))
        return self._year(start.year)[-1] - self._up_to(start) + whole_years + self._up_to(end)

    def _up_to(self, day: dt.date) -> int:
        """Business days from 1 January of `day`'s year up to and including `day`."""
        return self._year(day.year)[day.timetuple().tm_yday - 1]

    def _year(self, year: int) -> list[int]:
        """The running count of business days through each day of `year` (its last entry is
        the year's total), made once per year: the officer's queue counts the days left of
        every file on its page, and a file's page its clocks' (one day at a time, 60 files took
        about four times as long)."""
        counted = self._counted_years.get(year)
        if counted is None:
            counted, running, day = [], 0, dt.date(year, 1, 1)
            while day.year == year:
                running += self.is_business_day(day)
                counted.append(running)
                day += ONE_DAY
            self._counted_years[year] = counted
        return counted


@cache
def calendar(jurisdiction: str) -> BusinessCalendar:
    """The jurisdiction's calendar, made once per process."""
    return BusinessCalendar(jurisdiction)
