"""Net outcomes worked out by hand: treated and comparison groups of known outcomes, the 95 %
interval checked against a hand computation, the plain sentence when a group is too small, the
counterfactual shares, and small-cell suppression of the net table."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import pytest
from tests.service.outcomes import kpi_fixture as fx

from jobgrant.service.grants.models.comparison import ComparisonFollowUp
from jobgrant.service.outcomes import net
from jobgrant.service.outcomes.kpis import compute
from jobgrant.service.outcomes.net_tables import counterfactual, net_outcomes
from jobgrant.service.outcomes.report import cells, opendata
from jobgrant.service.outcomes.report.csvfiles import survey_columns
from jobgrant.service.outcomes.suppression import suppress
from jobgrant.service.outcomes.tables import KpiReport, Suppression, Unit


def test_the_difference_is_exact_and_its_interval_is_walds() -> None:
    """Treated 60 employed of 100, comparison 40 of 80: d = 0.6 − 0.5 = 1/10 exactly.
    se = √(0.6·0.4/100 + 0.5·0.5/80) = √(0.0024 + 0.003125) = √0.005525 = 0.0743303;
    1.959964 · 0.0743303 = 0.1456848, so the interval is (−0.0456848, 0.2456848)."""
    found = net.net(net.Rate(60, 100), net.Rate(40, 80))
    assert found is not None
    assert found.difference == Fraction(1, 10)
    assert found.low == pytest.approx(-0.0456848, abs=1e-7)
    assert found.high == pytest.approx(0.2456848, abs=1e-7)
    assert net.hundredths_of_a_point(found.difference) == 1000
    assert (net.hundredths_of_a_point(found.low), net.hundredths_of_a_point(found.high)) == (
        -457,
        2457,
    )


@pytest.mark.parametrize(
    ("treated", "comparison"),
    [
        (net.Rate(60, 100), net.Rate(15, 29)),  # fewer than 30 answers
        (net.Rate(60, 100), net.Rate(4, 80)),  # fewer than 5 employed
        (net.Rate(97, 100), net.Rate(40, 80)),  # fewer than 5 not employed (treated)
    ],
)
def test_no_net_figure_when_a_group_is_too_small(treated: net.Rate, comparison: net.Rate) -> None:
    assert net.too_small(treated, comparison)
    assert net.net(treated, comparison) is None


def _sums(**at_3: int) -> dict[str, int]:
    return {
        "asked_3": 45,
        "answered_3": 40,
        "employed_3": 30,
        "comparison_asked_3": 50,
        "comparison_answered_3": at_3.get("answered", 40),
        "comparison_employed_3": at_3.get("employed", 20),
    }


def test_the_net_table_gives_gross_comparison_size_net_and_interval() -> None:
    """3 months: treated 30 of 40 = 75 %, comparison 20 of 40 = 50 %: net +25.0 points;
    se = √(0.75·0.25/40 + 0.5·0.5/40) = √0.0109375 = 0.1045825, × 1.959964 = 0.2049779:
    (+4.50, +45.50) points. 12 months: nobody answered, so no net figure, and the note says so."""
    table = net_outcomes(_sums())
    three = table.rows[0].figures
    assert (three["gross"].numerator, three["gross"].denominator) == (30, 40)
    assert three["gross"].response is not None and three["gross"].response.denominator == 45
    assert (three["comparison"].numerator, three["comparison"].denominator) == (20, 40)
    assert three["comparison"].response is not None
    assert three["comparison"].response.denominator == 50
    assert three["comparison_size"].value == 40
    assert three["net"].unit is Unit.POINTS and three["net"].value == 2500
    assert (three["net_low"].value, three["net_high"].value) == (450, 4550)
    twelve = table.rows[1].figures
    assert twelve["net"].value is None and twelve["net_low"].value is None
    assert "At 12 months, the groups are too small" in table.note_en
    assert "À 12 mois, les groupes sont trop petits" in table.note_fr


def test_a_withheld_net_figure_is_marked_too_unreliable_to_be_published() -> None:
    """12 months, nobody answered: the net figures are "F" (Statistics Canada's "too unreliable
    to be published"), not "..." (a rate over nobody), in the report, its CSV and the open data,
    where a decimal field stays empty and the status says "F"."""
    table = net_outcomes(_sums())
    report = KpiReport(jurisdiction="NS", fiscal_year="2030-31", tables=(table,), suppressed=True)
    twelve = table.rows[1].figures
    assert cells.text(twelve["net"]) == cells.UNRELIABLE == "F"
    assert cells.csv_values(twelve["net_low"]) == ["F"]
    assert cells.text(twelve["gross"]) == cells.NOT_APPLICABLE  # a rate over nobody stays "..."
    assert cells.text(table.rows[0].figures["net"]) == "+25.0\u00a0points"
    survey = survey_columns(table)
    header = [field.name for field in opendata._fields_with(table, survey)]
    line = dict(zip(header, list(opendata.row_values(report, table, survey))[1], strict=True))
    assert (line["net"], line["net_status"]) == ("", "F")
    assert line["comparison_size_status"] == ""


def test_a_small_comparison_group_is_suppressed_and_said_too_small() -> None:
    """7 answers: every figure about the comparison (and the net, about the smaller group) is
    hidden; the note gives no count."""
    table = net_outcomes(_sums(answered=7, employed=3))
    report = suppress(KpiReport(jurisdiction="NS", fiscal_year="2030-31", tables=(table,)))
    three = report.tables[0].rows[0].figures
    for name in ("comparison", "comparison_size", "net", "net_low", "net_high"):
        assert three[name].suppressed is Suppression.SMALL, name
        assert three[name].value is None and three[name].numerator is None
    assert three["gross"].shown
    assert "7" not in report.tables[0].note_en


def test_the_counterfactual_table_gives_the_share_that_would_have_happened_anyway() -> None:
    """43 participants; at application 12 yes, 11 yes-later, 5 yes-smaller, 10 no, 5 not
    answered: 12 / 38 would have happened anyway; 38 / 43 answered. Suppressed: yes-smaller
    (5 people), then the smallest other answer (no, 10), so that 5 cannot be worked out."""
    sums = {
        "participants": 43,
        "counterfactual_application:yes": 12,
        "counterfactual_application:yes-later": 11,
        "counterfactual_application:yes-smaller": 5,
        "counterfactual_application:no": 10,
        "counterfactual_application:": 5,
        "counterfactual_completion:": 43,
    }
    table = counterfactual(sums)
    rows = {row.key: row.figures for row in table.rows}
    assert (rows["yes"]["at_application"].numerator, rows["yes"]["at_application"].denominator) == (
        12,
        38,
    )
    assert (
        rows["total"]["at_application"].numerator,
        rows["total"]["at_application"].denominator,
    ) == (
        38,
        43,
    )
    assert rows["yes"]["at_completion"].denominator == 0  # nobody answered: "..."
    hidden = suppress(KpiReport(jurisdiction="NS", fiscal_year="2030-31", tables=(table,)))
    shown = {row.key: row.figures["at_application"] for row in hidden.tables[0].rows}
    assert shown["yes-smaller"].suppressed is Suppression.SMALL
    assert shown["no"].suppressed is Suppression.COMPLEMENTARY  # the next smallest
    assert shown["yes"].shown and shown["yes-later"].shown


@pytest.mark.django_db
def test_the_kpis_give_net_figures_from_the_records() -> None:
    """Nova Scotia, 2030-31: a funded file of 40 trainees answered at 3 months, 30 employed;
    a file refused for lack of budget named 45 trainees, its employer consented and answered
    about 40 (20 employed) and 5 lapsed. The same +25.0 points (+4.50, +45.50) as by hand; the
    funded file's employer answered "yes-later" at application and "no" at completion."""
    treated = fx.file("NS", employers={"a": 30}, trainees=["a"] * 40)
    treated.application.counterfactual = "yes-later"
    treated.application.save(update_fields=["counterfactual"])
    report = fx.report(treated)
    report.counterfactual = "no"
    report.save(update_fields=["counterfactual"])
    for i in range(40):
        slot = fx.participant(treated, i, "outcome_reported")
        fx.outcome(report, slot, completed=True, employed=True)
        fx.follow_up(slot, 3, "trainee", "responded", employed=i < 30)
    refused = fx.file("NS", employers={"b": 12}, trainees=["b"] * 45, state="denied")
    for i in range(45):
        answered = i < 40
        ComparisonFollowUp.objects.create(
            application=refused.application,
            position=i,
            source="no-budget",
            milestone=3,
            state="responded" if answered else "lapsed",
            due_on=dt.date(2031, 1, 31),
            language="en",
            consent=True if answered else None,
            sent_at=fx.at("2031-01-31"),
            responded_at=fx.at("2031-02-05") if answered else None,
            employed=(i < 20) if answered else None,
        )
    report_row = compute("NS", fx.FISCAL_YEAR, suppress=False)
    three = report_row.table("net-outcomes").rows[0].figures
    assert (three["gross"].numerator, three["gross"].denominator) == (30, 40)
    assert (three["comparison"].numerator, three["comparison"].denominator) == (20, 40)
    assert three["comparison"].response is not None
    assert (three["comparison"].response.numerator, three["comparison"].response.denominator) == (
        40,
        45,
    )
    assert (three["net"].value, three["net_low"].value, three["net_high"].value) == (
        2500,
        450,
        4550,
    )
    shares = {row.key: row.figures for row in report_row.table("counterfactual").rows}
    assert shares["yes-later"]["at_application"].numerator == 40
    assert shares["no"]["at_completion"].numerator == 40
