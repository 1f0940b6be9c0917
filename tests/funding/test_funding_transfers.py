"""Transfers: $500M a year by population, with $500,000 more for each territory."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

from jobgrant.funding.errors import FundingError
from jobgrant.funding.model import FundingModel, YearImpact
from jobgrant.funding.population import july_first_estimates, published_canada_totals
from jobgrant.funding.years import MODEL_YEARS

NATIONAL_AMOUNT = 500_000_000_00  # $500M in cents
TERRITORIAL_SUPPLEMENT = 500_000_00  # $500,000 in cents
# Statistics Canada, July 1 2013 preliminary estimates (91-215-X), as published in Sept 2013
ONTARIO_2013 = 13_537_994
YUKON_2013 = 36_700
CANADA_2013 = 35_158_304


@pytest.mark.parametrize("fiscal_year", MODEL_YEARS)
def test_transfers_add_up_to_the_national_amount_to_the_cent(fiscal_year: str) -> None:
    impact = FundingModel().year(fiscal_year)
    assert sum(j.transfer for j in impact.jurisdictions) == NATIONAL_AMOUNT


def test_ontario_gets_its_population_share_of_what_the_territories_leave() -> None:
    pool = NATIONAL_AMOUNT - 3 * TERRITORIAL_SUPPLEMENT
    exact = Fraction(pool * ONTARIO_2013, CANADA_2013)
    ontario = FundingModel().year("2017-18").jurisdiction("ON")
    assert ontario.population == ONTARIO_2013
    assert ontario.transfer in (math.floor(exact), math.ceil(exact))


def test_a_territory_gets_its_supplement_on_top_of_its_population_share() -> None:
    pool = NATIONAL_AMOUNT - 3 * TERRITORIAL_SUPPLEMENT
    exact = TERRITORIAL_SUPPLEMENT + Fraction(pool * YUKON_2013, CANADA_2013)
    yukon = FundingModel().year("2017-18").jurisdiction("YT")
    assert yukon.transfer in (math.floor(exact), math.ceil(exact))


def test_the_shipped_july_first_estimates_add_up_to_the_published_canada_totals() -> None:
    estimates, totals = july_first_estimates(), published_canada_totals()
    assert set(estimates) == {2011, 2012, 2013}
    for year, by_jurisdiction in estimates.items():
        assert sum(by_jurisdiction.values()) == totals[year]


def test_a_scenario_can_allocate_by_another_population_year(
    write_scenario: Callable[..., Path], override: Callable[..., str]
) -> None:
    path = write_scenario(override("funding.population_year", "{2014-04-01: 2012}"))
    ontario = FundingModel(scenario=path).year("2017-18").jurisdiction("ON")
    assert ontario.population == july_first_estimates()[2012]["ON"]


def test_a_population_year_that_is_not_shipped_is_refused_by_name(
    write_scenario: Callable[..., Path], override: Callable[..., str]
) -> None:
    path = write_scenario(override("funding.population_year", "{2014-04-01: 2016}"))
    with pytest.raises(FundingError, match=r"funding\.population_year.*2016"):
        FundingModel(scenario=path).year("2017-18")


def test_what_is_diverted_and_what_is_retained_make_up_the_transfer(
    shipped: Callable[..., YearImpact],
) -> None:
    for j in shipped("budget-2013").jurisdictions:
        assert j.grant + j.retained == j.transfer
