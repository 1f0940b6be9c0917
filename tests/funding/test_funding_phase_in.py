"""Phase-in: the grant's share of the transfer grows from 15% (2014-15) to 60% (2017-18)."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobgrant.funding.model import FundingModel
from jobgrant.funding.parameters import FundingParameters
from jobgrant.funding.years import MODEL_YEARS, first_day

NATIONAL_AMOUNT = 500_000_000_00  # $500M in cents


def diversion_share(fiscal_year: str) -> Fraction:
    return FundingParameters().ratio("funding.diversion.share", "ON", first_day(fiscal_year))


def test_the_diversion_share_never_falls_from_one_year_to_the_next() -> None:
    shares = [diversion_share(year) for year in MODEL_YEARS]
    assert shares == sorted(shares)


def test_the_diversion_starts_at_15_percent_and_reaches_60_percent_in_2017_18() -> None:
    assert diversion_share("2014-15") == Fraction(15, 100)
    assert diversion_share("2017-18") == Fraction(60, 100)
    assert diversion_share("2019-20") == Fraction(60, 100)


def test_national_grant_money_follows_the_linear_path_15_30_45_60_percent() -> None:
    model = FundingModel()
    grants = [sum(j.grant for j in model.year(y).jurisdictions) for y in MODEL_YEARS]
    percents = [15, 30, 45, 60, 60, 60]
    assert grants == [NATIONAL_AMOUNT * p // 100 for p in percents]


def test_the_phase_in_parameter_says_its_intermediate_years_are_an_assumption() -> None:
    description = FundingParameters().definitions["funding.diversion.share"].description
    assert "ASSUMPTION" in description


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(min_value=0, max_value=100), min_size=4, max_size=4).map(sorted),
)
def test_any_rising_phase_in_gives_grant_money_that_never_falls(
    tmp_path_factory: pytest.TempPathFactory, percents: list[int]
) -> None:
    values = ", ".join(
        f"{2014 + i}-04-01: {Fraction(p, 100).numerator}/{Fraction(p, 100).denominator}"
        for i, p in enumerate(percents)
    )
    path = _scenario_path(tmp_path_factory, values)
    model = FundingModel(scenario=path)
    grants = [sum(j.grant for j in model.year(y).jurisdictions) for y in MODEL_YEARS[:4]]
    assert grants == sorted(grants)
    assert grants == [NATIONAL_AMOUNT * p // 100 for p in percents]


def _scenario_path(tmp_path_factory: pytest.TempPathFactory, values: str) -> Path:
    path = tmp_path_factory.mktemp("phase") / "phase.yaml"
    path.write_text(
        "kind: funding-scenario\n"
        "title: {en: Phase-in, fr: Progression}\n"
        'reference: [{title: a test, href: "https://example.org"}]\n'
        "parameters:\n"
        "  funding.diversion.share:\n"
        f"    values: {{{values}}}\n"
        '    reference: [{title: a test, href: "https://example.org"}]\n',
        encoding="utf-8",
    )
    return path


def test_a_scenario_can_phase_in_one_jurisdiction_differently(
    write_scenario: Callable[..., Path], override: Callable[..., str]
) -> None:
    body = override("funding.diversion.share", "", '{"NU": {2014-04-01: 0.3}}')
    impact = FundingModel(scenario=write_scenario(body)).year("2017-18")
    nunavut, yukon = impact.jurisdiction("NU"), impact.jurisdiction("YT")
    assert nunavut.grant in within_a_cent(nunavut.transfer * Fraction(30, 100))
    assert yukon.grant in within_a_cent(yukon.transfer * Fraction(60, 100))


def within_a_cent(exact: Fraction) -> tuple[int, int]:
    return math.floor(exact), math.ceil(exact)
