"""Business days in a province: weekends and that province's statutory holidays are skipped,
across a year end and a leap day, and two provinces differ where their holidays do."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jobgrant.rules.business_days import BusinessCalendar, calendar

D = dt.date


def test_remembrance_day_is_a_holiday_in_british_columbia_and_nova_scotia_but_not_ontario() -> None:
    monday = D(2024, 11, 11)
    assert calendar("BC").holiday(monday) == "Remembrance Day"
    assert not calendar("NS").is_business_day(monday)
    assert calendar("ON").is_business_day(monday)
    friday = D(2024, 11, 8)
    assert calendar("ON").add(friday, 1) == monday
    assert calendar("BC").add(friday, 1) == D(2024, 11, 12)


def test_british_columbia_day_is_a_working_day_in_ontario() -> None:
    friday = D(2024, 8, 2)
    assert calendar("BC").add(friday, 1) == D(2024, 8, 6)  # Monday the 5th is BC Day
    assert calendar("ON").add(friday, 1) == D(2024, 8, 5)


def test_across_the_year_end_ontario_skips_christmas_boxing_day_and_new_years_day() -> None:
    friday = D(2024, 12, 20)
    # 23, 24, 27, 30, 31 December: the 25th and 26th are holidays in Ontario.
    assert calendar("ON").add(friday, 5) == D(2024, 12, 31)
    assert calendar("ON").add(friday, 6) == D(2025, 1, 2)  # New Year's Day on the Wednesday
    assert calendar("ON").between(friday, D(2025, 1, 2)) == 6


def test_across_the_year_end_british_columbia_works_on_boxing_day() -> None:
    friday = D(2024, 12, 20)
    assert calendar("BC").holiday(D(2024, 12, 26)) is None
    assert calendar("BC").add(friday, 5) == D(2024, 12, 30)


def test_the_leap_day_is_a_business_day_and_family_day_is_not() -> None:
    ontario = calendar("ON")
    assert ontario.add(D(2024, 2, 28), 1) == D(2024, 2, 29)
    assert ontario.add(D(2024, 2, 28), 2) == D(2024, 3, 1)
    assert ontario.between(D(2024, 2, 16), D(2024, 3, 1)) == 9  # Monday the 19th: Family Day
    assert ontario.add(D(2025, 2, 28), 1) == D(2025, 3, 3)  # no leap day in 2025


def test_a_holiday_on_a_weekend_is_observed_on_the_next_working_day() -> None:
    # Christmas 2021 was a Saturday, Boxing Day a Sunday: Ontario observed them on 27 and 28.
    assert calendar("ON").add(D(2021, 12, 24), 1) == D(2021, 12, 29)


def test_a_clock_started_on_a_weekend_counts_from_the_next_working_day() -> None:
    saturday = D(2024, 3, 2)
    assert calendar("ON").add(saturday, 1) == D(2024, 3, 4)
    assert calendar("ON").between(saturday, D(2024, 3, 4)) == 1


def test_between_counts_back_when_the_end_is_before_the_start() -> None:
    ontario = calendar("ON")
    assert ontario.between(D(2024, 3, 5), D(2024, 3, 4)) == -1
    assert ontario.between(D(2024, 3, 4), D(2024, 3, 4)) == 0


def test_an_unknown_jurisdiction_is_refused() -> None:
    with pytest.raises(ValueError, match="XX"):
        BusinessCalendar("XX")


@given(
    st.sampled_from(["ON", "BC", "NS", "QC"]),
    st.dates(D(2013, 1, 1), D(2030, 12, 31)),
    st.integers(0, 80),
)
def test_adding_n_business_days_lands_on_a_business_day_n_business_days_later(
    jurisdiction: str, start: dt.date, n: int
) -> None:
    days = calendar(jurisdiction)
    due = days.add(start, n)
    assert days.between(start, due) == n
    assert n == 0 or days.is_business_day(due)


def _counted_one_day_at_a_time(days: BusinessCalendar, start: dt.date, end: dt.date) -> int:
    low, high = min(start, end), max(start, end)
    count = sum(
        days.is_business_day(low + dt.timedelta(days=n)) for n in range(1, (high - low).days + 1)
    )
    return count if end >= start else -count


@given(
    st.sampled_from(["ON", "BC", "NS", "QC", "NU"]),
    st.dates(D(2013, 1, 1), D(2030, 12, 31)),
    st.dates(D(2013, 1, 1), D(2030, 12, 31)),
)
def test_between_equals_counting_one_day_at_a_time(
    jurisdiction: str, start: dt.date, end: dt.date
) -> None:
    """`between` reads a running count per year; it must say what walking the days says,
    within a year, across year ends (a leap year's included) and backwards."""
    days = calendar(jurisdiction)
    assert days.between(start, end) == _counted_one_day_at_a_time(days, start, end)


def test_between_across_several_year_ends_and_leap_days() -> None:
    ontario = calendar("ON")
    for start, end in [
        (D(2023, 12, 31), D(2024, 1, 1)),
        (D(2024, 2, 28), D(2024, 12, 31)),
        (D(2019, 6, 15), D(2025, 3, 1)),
        (D(2024, 12, 31), D(2025, 1, 2)),
    ]:
        assert ontario.between(start, end) == _counted_one_day_at_a_time(ontario, start, end)
    assert ontario.between(D(2024, 12, 31), D(2025, 1, 1)) == 0  # New Year's Day
