"""`jobgrant simulate`: a run writes its tables and plot; bad input exits 2 naming the option."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from tests.simulation.conftest import BUDGET_2013, FINAL_DEAL
from typer.testing import CliRunner

from jobgrant.cli.app import app

runner = CliRunner()


def test_a_run_prints_the_bands_and_writes_tables_and_a_plot(tmp_path: Path) -> None:
    plot = tmp_path / "simulation.svg"
    args = ["simulate", "--scenario", str(FINAL_DEAL), "--years", "2015-16", "--draws", "2"]
    args += ["--out", str(tmp_path / "out"), "--plot", str(plot), "--format", "parquet"]
    args += ["--compare", str(BUDGET_2013), "--seed", "4"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Simulation 2015-16, scenario final-deal-2014, 2 draws, seed 4" in result.stdout
    assert "budget-2013" in result.stdout
    summary = pl.read_parquet(tmp_path / "out" / "summary.parquet")
    assert set(summary["scenario"]) == {"final-deal-2014", "budget-2013"}
    row = summary.filter(
        (pl.col("scenario") == "final-deal-2014")
        & (pl.col("jurisdiction") == "CA")
        & (pl.col("measure") == "trainees_approved")
    )
    assert row["p05"][0] <= row["mean"][0] <= row["p95"][0]
    draws = pl.read_parquet(tmp_path / "out" / "draws.parquet")
    assert draws.height == 2 * 2 * 14  # scenarios x draws x (13 jurisdictions + Canada)
    assert plot.read_text().startswith("<?xml")
    assert "simulate: 4/4 draws done" in result.stderr  # two scenarios of two draws


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--years", "2013-14:2015-16"], "--years: '2013-14' is not a fiscal year"),
        (["--draws", "0"], "--draws: must be a whole number, 1 or more"),
        (["--format", "xlsx"], "--format: must be csv or parquet"),
        (["--plot", "out.jpg"], "--plot: 'out.jpg' must end in .png or .svg"),
        (["--compare", "nowhere.yaml"], "--compare: --scenario: no such file"),
    ],
)
def test_bad_input_exits_2_naming_the_option(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["simulate", "--scenario", str(FINAL_DEAL), *args])
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_a_missing_scenario_and_a_rules_overlay_are_named() -> None:
    result = runner.invoke(app, ["simulate"])
    assert result.exit_code == 2
    assert "--scenario: required" in result.stderr
    overlay = Path(__file__).parents[2] / "scenarios" / "northern-ontario-allowance.yaml"
    result = runner.invoke(app, ["simulate", "--scenario", str(overlay)])
    assert result.exit_code == 2
    assert "kind must be simulation-scenario or funding-scenario" in result.stderr
