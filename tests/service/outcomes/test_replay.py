"""A closed intake replayed under another policy: each file's figures equal quoting it alone
under that policy, and the intake's budget is spent in its order (a hand-worked intake)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from tests.service.outcomes.replay_fixture import (
    QUARTER,
    RECEIVED,
    intake_of_four,
    ontario_first_come_intake,
    ranked_intake_of_two,
)
from typer.testing import CliRunner

from jobgrant.cli.app import app
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.applications import Application, Intake, IntakeState
from jobgrant.service.grants.models.ranking import IntakeRank
from jobgrant.service.outcomes import replay_output
from jobgrant.service.outcomes.replay import quote_alone, replay

pytestmark = pytest.mark.django_db

SCENARIO = Path(__file__).parents[3] / "scenarios" / "northern-ontario-allowance.yaml"


def test_the_budget_is_spent_in_the_intakes_order_under_each_policy() -> None:
    intake = intake_of_four(16_000_00, 16_000_00)
    result = replay(intake.pk, "cjg-2014")
    # Then (cjg-2013: a third each, federal and provincial): 5,000 + 1,000 + 5,000 + 2,000 of
    # each funder's 16,000: all four fit.
    assert [f.then.federal for f in result.files] == [5000_00, 1000_00, 5000_00, 2000_00]
    assert [f.funded_then for f in result.files] == [True] * 4
    assert result.exhausted_then is None
    # Now (cjg-2014: two thirds federal, nothing provincial): 10,000 + 2,000 fit, the third
    # file's 10,000 does not (4,000 left), the fourth's 4,000 does.
    assert [(f.now.federal, f.now.provincial) for f in result.files] == [
        (10000_00, 0),
        (2000_00, 0),
        (10000_00, 0),
        (4000_00, 0),
    ]
    assert [f.funded_now for f in result.files] == [True, True, False, True]
    assert [f.change for f in result.files] == ["same", "same", "loses", "same"]
    assert result.exhausted_now == RECEIVED[2]
    assert result.money("then") == {"federal": 13000_00, "provincial": 13000_00}
    assert result.money("now") == {"federal": 16000_00, "provincial": 0}
    assert result.mix("firm_size") == {
        "1-49": {"files_then": 4, "files_now": 3, "cents_then": 26000_00, "cents_now": 16000_00}
    }


@pytest.mark.parametrize("policy", ["cjg-2014", "cjg-2013", str(SCENARIO)])
def test_each_file_of_the_replay_equals_quoting_it_alone(policy: str) -> None:
    intake = intake_of_four(0, 0)  # no budget of its own: the budget accounts'
    result = replay(intake.pk, policy)
    assert len(result.requests) == len(result.files) == 4
    for file, request in zip(result.files, result.requests, strict=True):
        assert file.now == quote_alone(request, policy)
        assert file.now.eligible


def test_an_open_intake_an_unknown_one_or_an_unknown_policy_is_refused_in_both_languages() -> None:
    open_intake = ontario_first_come_intake()
    with pytest.raises(ServiceError) as refused:
        replay(open_intake.pk, "cjg-2014")
    assert refused.value.code == "INTAKE_NOT_CLOSED"
    assert "appel de demandes" in refused.value.message_fr
    with pytest.raises(ServiceError) as refused:
        replay(987654, "cjg-2014")
    assert (refused.value.status, refused.value.code) == (404, "NO_SUCH_INTAKE")
    Intake.objects.filter(pk=open_intake.pk).update(state=IntakeState.CLOSED)
    with pytest.raises(ServiceError) as refused:
        replay(open_intake.pk, "cjg-2099")
    assert refused.value.code == "UNKNOWN_POLICY"
    assert "cjg-2013" in refused.value.message_en


CAPPED = """\
title: {en: A cap of $20,000 a year (test), fr: Plafond de 20 000 $ par an (essai)}
description: The 2014 rules with at most $20,000 of government money per employer and year.
base: cjg-2014
reference:
  - {title: "Test scenario", href: "https://www.canada.ca/"}
parameters:
  cjg.employer.max_government_per_fiscal_year:
    description: At most $20,000 (test assumption).
    values: {2014-04-01: 20000.00}
    reference:
      - {title: "Test assumption", href: "https://www.canada.ca/"}
"""


def test_an_employers_files_funded_earlier_in_the_intake_count_against_its_cap(
    tmp_path: Path,
) -> None:
    scenario = tmp_path / "capped.yaml"
    scenario.write_text(CAPPED)
    intake = intake_of_four(0, 0)
    result = replay(intake.pk, str(scenario))
    # One employer, $20,000 a year: 10,000 funded, then 2,000 (12,000), then the third file's
    # 10,000 would make 22,000: not eligible once the first two are counted; the fourth's
    # 4,000 makes 16,000. Quoted alone, without the intake's earlier files, each is eligible.
    assert [f.now.eligible for f in result.files] == [True, True, False, True]
    assert [f.funded_now for f in result.files] == [True, True, False, True]
    assert result.requests[2]["employers"][0]["approved_this_fiscal_year"] == "12000.00"
    assert result.files[2].now == quote_alone(result.requests[2], str(scenario))
    assert result.exhausted_now is None  # not the budget: the cap


def test_the_command_prints_the_comparison_and_writes_the_csv_and_the_plot(
    tmp_path: Path,
) -> None:
    intake = intake_of_four(16_000_00, 16_000_00)
    table, plot = tmp_path / "replay.csv", tmp_path / "replay.svg"
    arguments = ["replay", "--intake", str(intake.pk), "--policy", "cjg-2014"]
    files = ["--csv", str(table), "--plot", str(plot), "--lang", "fr"]
    result = CliRunner().invoke(app, [*arguments, *files])
    assert result.exit_code == 0, result.output
    assert "Dossiers financés" in result.stdout
    assert "16\u00a0000,00\u00a0$" in result.stdout  # the federal money funded now
    assert "16 novembre 2026" in result.stdout  # the budget ran out with the third file
    rows = list(csv.DictReader(io.StringIO(table.read_text(encoding="utf-8"))))
    assert [row["finance_maintenant"] for row in rows] == ["oui", "oui", "non", "oui"]
    assert [row["federal_maintenant"] for row in rows] == [
        "10000.00",
        "2000.00",
        "10000.00",
        "4000.00",
    ]
    assert rows[2]["changement"] == "perd"
    drawing = plot.read_text(encoding="utf-8")
    assert drawing.startswith("<?xml") and "Dossiers dans l'ordre de l'appel de demandes" in drawing


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (["--intake", "987654", "--policy", "cjg-2014"], "--intake: There is no intake 987654."),
        (["--intake", "{open}", "--policy", "cjg-2014"], "--intake: Only a closed intake"),
        (
            ["--intake", "{open}", "--policy", "cjg-2014", "--csv", "/nowhere/x.csv"],
            "--csv: the folder /nowhere does not exist",
        ),
        (
            ["--intake", "1", "--policy", "cjg-2014", "--lang", "de"],
            "--lang: must be en or fr, not 'de'",
        ),
    ],
)
def test_the_command_refuses_bad_options_naming_them_and_writes_nothing(
    arguments: list[str], expected: str, tmp_path: Path
) -> None:
    open_intake = ontario_first_come_intake()
    filled = [a.replace("{open}", str(open_intake.pk)) for a in arguments]
    result = CliRunner().invoke(app, ["replay", *filled, "--plot", str(tmp_path / "p.svg")])
    assert result.exit_code == 2
    assert expected in result.stderr and result.stdout == ""
    assert not (tmp_path / "p.svg").exists()


def test_a_ranked_intakes_budget_is_spent_in_its_ranks_order() -> None:
    intake = intake_of_four(16_000_00, 16_000_00)
    files = list(Application.objects.filter(intake=intake).order_by("received_on"))
    # Ranked: the fourth file first, then the third, the second, the first.
    for place, application in enumerate(reversed(files), start=1):
        IntakeRank.objects.create(
            intake=intake,
            application=application,
            rank=place,
            score=0,
            points={},
            within_budget=True,
        )
    Intake.objects.filter(pk=intake.pk).update(state=IntakeState.RANKED)
    result = replay(intake.pk, "cjg-2014")
    assert [f.application for f in result.files] == [a.pk for a in reversed(files)]
    # cjg-2014's federal shares in that order: 4,000, 10,000, 2,000 fit 16,000; the first
    # file's 10,000 does not (it was the one that fit first come).
    assert [f.funded_now for f in result.files] == [True, True, True, False]
    assert result.exhausted_now == files[0].received_on


def test_a_ranked_intake_is_ranked_again_under_the_other_policy(demo: None, tmp_path: Path) -> None:
    intake, files = ranked_intake_of_two()
    scenario = tmp_path / "quarter.yaml"
    scenario.write_text(QUARTER)
    result = replay(intake.pk, str(scenario))
    x, y = files["X"].pk, files["Y"].pk
    assert result.ranked
    assert [f.application for f in result.files] == [y, x]  # as decided: Y first
    by_file = {f.application: f for f in result.files}
    assert (by_file[y].rank_then, by_file[y].score_then) == (1, 52)
    assert (by_file[x].rank_then, by_file[x].score_then) == (2, 40)
    # The federal quarter halves X's cost per trainee to $3,000: 20 more points, first place.
    assert (by_file[x].rank_now, by_file[x].score_now) == (1, 60)
    assert (by_file[y].rank_now, by_file[y].score_now) == (2, 52)
    assert [f.application for f in result.in_order("now")] == [x, y]
    # As decided, Y's $10,000 + $10,000 fit the budgets ($10,000, $12,000) and X's do not.
    assert [by_file[y].funded_then, by_file[x].funded_then] == [True, False]
    # Replayed, X's $3,000 fits first; Y's $15,000 federal no longer fits.
    assert [by_file[x].funded_now, by_file[y].funded_now] == [True, False]
    assert (by_file[x].change, by_file[y].change) == ("gains", "loses")
    assert result.money("now") == {"federal": 3000_00, "provincial": 0}
    assert {f.application for f in result.moved()} == {x, y}
    for file, request in zip(result.files, result.requests, strict=True):
        assert file.now == quote_alone(request, str(scenario))
    printed = replay_output.text(result, "en")
    assert f"Funded only under quarter: 1 ({x}: 2 (40) → 1 (60))" in printed
    assert f"No longer funded under quarter: 1 ({y}: 1 (52) → 2 (52))" in printed
    assert "Files whose rank moves: 2" in printed
    french = replay_output.text(result, "fr")
    assert "Dossiers classés" in french and f"{x}: 2 (40) → 1 (60)" in french
    rows = list(csv.DictReader(io.StringIO(replay_output.csv_text(result, "fr"))))
    assert [(r["demande"], r["rang_alors"], r["rang_maintenant"]) for r in rows] == [
        (str(y), "1", "2"),
        (str(x), "2", "1"),
    ]
    assert [r["points_maintenant"] for r in rows] == ["52", "60"]


def test_a_ranked_intake_replayed_stops_at_its_cut_off(demo: None) -> None:
    intake, files = ranked_intake_of_two()
    # cjg-2014 in Ontario: two thirds federal, up to $10,000 a trainee; the budget stays.
    result = replay(intake.pk, "cjg-2014")
    by_file = {f.application: f for f in result.files}
    x, y = by_file[files["X"].pk], by_file[files["Y"].pk]
    # The same government money as decided, all of it federal: the same ranks.
    assert (y.now.federal, y.now.provincial, x.now.federal) == (20000_00, 0, 8000_00)
    assert (y.rank_now, y.score_now, x.rank_now, x.score_now) == (1, 52, 2, 40)
    assert result.moved() == []
    # Y's $20,000 federal no longer fits $10,000: the cut-off falls before it, and X, below
    # it, is not funded although its $8,000 would fit: a ranking stops at its cut-off.
    assert (y.funded_now, x.funded_now) == (False, False)
    assert result.exhausted_now == y.received_on


def test_a_ranked_intake_replayed_under_its_own_policy_gives_its_ranks_back(demo: None) -> None:
    intake, _ = ranked_intake_of_two()
    result = replay(intake.pk, intake.stream.program.policy)
    assert [(f.rank_now, f.score_now) for f in result.files] == [
        (f.rank_then, f.score_then) for f in result.files
    ]
    assert [f.funded_now for f in result.files] == [f.funded_then for f in result.files]
    assert result.moved() == []
