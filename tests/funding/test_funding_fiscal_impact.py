"""Fiscal impact: who pays what under each arrangement, derived by hand from the rules.

Under Budget 2013 (cjg-2013) Ottawa, the province and the employer each pay a third; under the
2014 agreements (cjg-2014) government pays two thirds and the employer one third, with no
provincial matching, and Quebec has no grant. The average trainee costs $6,900.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

from jobgrant.funding.model import FundingModel, YearImpact

MILLION = 1_000_000_00  # $1M in cents
NATIONAL_AMOUNT = 500 * MILLION
FULL_DIVERSION = Fraction(60, 100)  # Budget 2013: $300M of the $500M in 2017-18
AVERAGE_COST = 6_900_00


def within_a_cent(exact: Fraction) -> tuple[int, int]:
    return math.floor(exact), math.ceil(exact)


def test_the_premiers_600_million_is_backfill_plus_matching_under_budget_2013(
    shipped: Callable[..., YearImpact],
) -> None:
    totals = shipped("budget-2013", "2017-18").totals()
    diverted = NATIONAL_AMOUNT * FULL_DIVERSION  # $300M taken from the transfers
    # provinces replace what was diverted, and match the federal grant money (a third each)
    matching = diverted * Fraction(1, 3) / Fraction(1, 3)
    assert totals["backfill"] == diverted == 300 * MILLION
    assert totals["matching"] == matching == 300 * MILLION
    assert totals["provincial_cost"] == diverted + matching == 600 * MILLION


def test_every_jurisdictions_cost_is_its_matching_plus_its_backfill(
    shipped: Callable[..., YearImpact],
) -> None:
    for j in shipped("budget-2013").jurisdictions:
        assert j.provincial_cost == j.matching + j.backfill
        assert j.backfill == j.grant


def test_employers_match_the_federal_money_under_budget_2013(
    shipped: Callable[..., YearImpact],
) -> None:
    totals = shipped("budget-2013").totals()
    assert totals["employer"] == totals["grant"] == 300 * MILLION  # a $900M program in thirds


def test_the_money_funds_nearly_130000_trainees_at_a_third_of_6900_each(
    shipped: Callable[..., YearImpact],
) -> None:
    impact = shipped("budget-2013")
    federal_per_trainee = Fraction(AVERAGE_COST, 3)  # $2,300
    for j in impact.jurisdictions:
        assert j.trainees == math.floor(j.grant / federal_per_trainee)
    assert 129_000 < impact.totals()["trainees"] < 131_000


def test_provinces_match_nothing_when_ottawa_delivers_the_grant_itself(
    shipped: Callable[..., YearImpact],
) -> None:
    impact = shipped("premiers-refuse")
    assert {j.delivery for j in impact.jurisdictions} == {"federal-direct"}
    assert all(j.matching == 0 for j in impact.jurisdictions)


def test_provinces_that_refuse_still_backfill_what_ottawa_keeps(
    shipped: Callable[..., YearImpact],
) -> None:
    totals = shipped("premiers-refuse").totals()
    assert totals["backfill"] == totals["provincial_cost"] == NATIONAL_AMOUNT * FULL_DIVERSION


def test_under_federal_delivery_of_cjg_2013_the_employer_pays_the_missing_third(
    shipped: Callable[..., YearImpact],
) -> None:
    # the federal third stays; with no provincial third the employer pays two thirds
    for j in shipped("premiers-refuse").jurisdictions:
        assert j.employer in within_a_cent(Fraction(j.grant) * 2)


def test_quebec_under_the_2014_agreements_has_no_grant_and_keeps_its_whole_transfer(
    shipped: Callable[..., YearImpact],
) -> None:
    quebec = shipped("final-deal-2014").jurisdiction("QC")
    assert quebec.delivery == "separate-agreement"
    assert quebec.grant == quebec.matching == quebec.backfill == quebec.employer == 0
    assert quebec.retained == quebec.transfer
    assert quebec.trainees == 0


def test_quebec_has_no_grant_under_the_cjg_2014_policy_without_any_scenario() -> None:
    quebec = FundingModel(policy="cjg-2014").year("2017-18").jurisdiction("QC")
    assert (quebec.delivery, quebec.grant) == ("separate-agreement", 0)


def test_the_2014_agreements_drop_provincial_matching(
    shipped: Callable[..., YearImpact],
) -> None:
    assert shipped("final-deal-2014").totals()["matching"] == 0


def test_under_the_2014_agreements_employers_put_in_half_the_government_money(
    shipped: Callable[..., YearImpact],
) -> None:
    # government two thirds, employer one third: a dollar of grant draws fifty cents
    for j in shipped("final-deal-2014").jurisdictions:
        assert j.employer in within_a_cent(Fraction(j.grant, 2))


def test_the_small_business_allowance_trains_fewer_people_with_the_same_money(
    shipped: Callable[..., YearImpact],
) -> None:
    plain, allowance = shipped("final-deal-2014"), shipped("funding-small-business-allowance")
    assert allowance.totals()["grant"] == plain.totals()["grant"]
    assert allowance.totals()["trainees"] < plain.totals()["trainees"]


def test_a_small_business_trainee_costs_government_two_thirds_of_cost_plus_counted_wages(
    shipped: Callable[..., YearImpact],
) -> None:
    # cjg-2014: wages count up to half the employer's third: W = C x (1/6) / (1 - 1/6) = C / 5
    standard = Fraction(AVERAGE_COST) * Fraction(2, 3)  # $4,600
    small = (AVERAGE_COST + Fraction(AVERAGE_COST, 5)) * Fraction(2, 3)  # $5,520
    average = (standard + small) / 2  # half the trainees are at small businesses
    alberta = shipped("funding-small-business-allowance").jurisdiction("AB")
    assert alberta.trainees == math.floor(alberta.grant / average)


def test_take_up_below_one_scales_matching_but_not_the_backfill(
    write_scenario: Callable[..., Path], override: Callable[..., str]
) -> None:
    body = "policy: cjg-2013\n" + override("funding.take_up", "{2014-04-01: 0.87}")
    impact = FundingModel(scenario=write_scenario(body)).year("2017-18")
    for j in impact.jurisdictions:
        assert j.backfill == j.grant
        assert j.matching in within_a_cent(j.grant * Fraction(87, 100))


def test_a_delivery_mode_can_change_from_one_fiscal_year_to_the_next(
    write_scenario: Callable[..., Path],
) -> None:
    body = (
        "policy: cjg-2013\n"
        "delivery:\n"
        '  jurisdictions: {"ON": {2014-15: federal-direct, 2016-17: provincial}}\n'
    )
    model = FundingModel(scenario=write_scenario(body))
    ontario = {year: model.year(year).jurisdiction("ON") for year in ("2015-16", "2016-17")}
    assert (ontario["2015-16"].delivery, ontario["2015-16"].matching) == ("federal-direct", 0)
    assert ontario["2016-17"].delivery == "provincial"
    assert ontario["2016-17"].matching == ontario["2016-17"].grant


@pytest.mark.parametrize("fiscal_year", ["2014-15", "2017-18"])
def test_national_totals_are_the_sums_of_the_jurisdictions(
    shipped: Callable[..., YearImpact], fiscal_year: str
) -> None:
    impact = shipped("final-deal-2014", fiscal_year)
    totals = impact.totals()
    for field in ("transfer", "grant", "matching", "backfill", "employer", "trainees"):
        assert totals[field] == sum(getattr(j, field) for j in impact.jurisdictions)
