"""Largest-remainder rounding: whole cents that neither lose nor invent a cent."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from jobgrant.funding.apportion import apportion

exact_amounts = st.lists(
    st.fractions(min_value=0, max_value=10**12, max_denominator=10**6), min_size=1, max_size=20
)


@given(exact_amounts)
def test_rounded_amounts_add_up_to_the_exact_total_rounded_down(amounts: list[Fraction]) -> None:
    assert sum(apportion(amounts)) == math.floor(sum(amounts))


@given(exact_amounts)
def test_each_amount_moves_by_less_than_one_cent(amounts: list[Fraction]) -> None:
    for rounded, exact in zip(apportion(amounts), amounts, strict=True):
        assert rounded in (math.floor(exact), math.ceil(exact))


@given(st.lists(st.integers(min_value=0, max_value=10**12), min_size=1, max_size=20))
def test_whole_cents_are_left_as_they_are(amounts: list[int]) -> None:
    assert apportion([Fraction(a) for a in amounts]) == amounts


def test_the_lost_cents_go_to_the_largest_remainders() -> None:
    # floors 1 + 2 + 3 = 6, total 7.5 -> floor 7: one cent to the largest remainder (0.8)
    amounts = [Fraction(13, 10), Fraction(28, 10), Fraction(34, 10)]
    assert apportion(amounts) == [1, 3, 3]


def test_a_tie_goes_to_the_earlier_jurisdiction() -> None:
    # three halves: total 1.5 -> 1 cent lost among the floors, given to the first
    assert apportion([Fraction(1, 2), Fraction(1, 2), Fraction(1, 2)]) == [1, 0, 0]
