"""Money at the edges and fiscal years."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jobgrant.rules.codes import fiscal_year
from jobgrant.rules.money import AmountError, format_amount, format_money, parse_amount


@given(st.integers(0, 100_000_000_000))
def test_an_amount_survives_formatting_and_parsing(cents: int) -> None:
    assert parse_amount(format_amount(cents)) == cents


@pytest.mark.parametrize(
    ("raw", "cents"),
    [("15000.00", 1_500_000), ("0.5", 50), ("7", 700), (Decimal("1.25"), 125), (12, 1200)],
)
def test_amounts_are_read_exactly(raw: object, cents: int) -> None:
    assert parse_amount(raw) == cents


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("-1.00", "negative"),
        ("1.005", "too_many_decimals"),
        ("abc", "not_an_amount"),
        (1.5, "not_an_amount"),
        (True, "not_an_amount"),
        ("1e3", "not_an_amount"),
        ("NaN", "not_an_amount"),
        ("2000000000.00", "too_large"),
    ],
)
def test_bad_amounts_are_refused_with_a_reason(raw: object, code: str) -> None:
    with pytest.raises(AmountError) as error:
        parse_amount(raw)
    assert error.value.code == code


def test_money_is_formatted_per_locale() -> None:
    assert format_money(500_000, "en") == "$5,000.00"
    assert format_money(500_000, "fr") == "5\u00a0000,00\u00a0$"


@given(st.dates(dt.date(2000, 1, 1), dt.date(2100, 12, 31)))
def test_the_fiscal_year_starts_on_april_1(day: dt.date) -> None:
    start = day.year if day >= dt.date(day.year, 4, 1) else day.year - 1
    assert fiscal_year(day) == f"{start}-{str(start + 1)[-2:]}"


def test_march_31_and_april_1_fall_in_different_fiscal_years() -> None:
    assert fiscal_year(dt.date(2015, 3, 31)) == "2014-15"
    assert fiscal_year(dt.date(2015, 4, 1)) == "2015-16"
    assert fiscal_year(dt.date(1999, 4, 1)) == "1999-00"
