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
        (["--compare", "nowhere.yaml"], "--compare: no such file 'nowhere.yaml'"),
        (["--draws", "many"], "--draws: must be a whole number, 1 or more, not 'many'"),
        (["--seed", "-1"], "--seed: must be a whole number, 0 or more, not '-1'"),
        (["--lang", "de"], "--lang: must be en or fr, not 'de'"),
    ],
)
def test_bad_input_exits_2_naming_the_option(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["simulate", "--scenario", str(FINAL_DEAL), *args])
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("args", "env"), [(["--lang", "fr"], {"LANG": "C"}), ([], {"LANG": "fr_CA.UTF-8"})]
)
def test_bad_input_is_said_in_french_by_the_option_or_the_locale(
    args: list[str], env: dict[str, str]
) -> None:
    bad = ["--draws", "0", "--years", "2013-14", "--plot", "out.jpg", "--compare", "nowhere.yaml"]
    result = runner.invoke(
        app,
        ["simulate", "--scenario", str(FINAL_DEAL), *bad, *args],
        env={**env, "JOBGRANT_LANG": ""},
    )
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "--years : '2013-14' n'est pas un exercice du modèle (2014-15 à 2019-20)",
        "--draws : doit être un nombre entier, 1 ou plus, et non '0'",
        "--plot : 'out.jpg' doit se terminer par .png ou .svg",
        "--compare : le fichier 'nowhere.yaml' n'existe pas",
    ]


def test_a_log_gets_plain_progress_lines_in_its_language() -> None:
    args = ["simulate", "--scenario", str(FINAL_DEAL), "--years", "2017-18", "--draws", "1"]
    result = runner.invoke(app, [*args, "--lang", "fr"])
    assert result.exit_code == 0, result.output
    assert "simulate : 1 tirages faits sur 1" in result.stderr


def test_a_terminal_gets_a_progress_bar(tmp_path: Path) -> None:
    """stderr on a real pseudo-terminal: the bar, not the log lines."""
    import os
    import pty
    import subprocess
    import sys

    controller, terminal = pty.openpty()
    args = ["--scenario", str(FINAL_DEAL), "--years", "2017-18", "--draws", "2"]
    process = subprocess.Popen(
        [sys.executable, "-m", "jobgrant.cli", "simulate", *args],
        stdout=subprocess.DEVNULL,
        stderr=terminal,
        env={**os.environ, "LANG": "C", "JOBGRANT_LANG": ""},
    )
    os.close(terminal)
    seen = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the terminal closed: the process is gone
            break
        if not chunk:
            break
        seen += chunk
    assert process.wait(timeout=120) == 0
    os.close(controller)
    text = seen.decode(errors="replace")
    assert "Simulating" in text and "100%" in text
    assert "draws done" not in text


def test_a_missing_scenario_and_a_rules_overlay_are_named() -> None:
    result = runner.invoke(app, ["simulate"])
    assert result.exit_code == 2
    assert "--scenario: required" in result.stderr
    overlay = Path(__file__).parents[2] / "scenarios" / "northern-ontario-allowance.yaml"
    result = runner.invoke(app, ["simulate", "--scenario", str(overlay)])
    assert result.exit_code == 2
    assert "kind must be simulation-scenario or funding-scenario" in result.stderr


def test_the_csv_writes_money_as_exact_cents_with_two_decimals(tmp_path: Path) -> None:
    """Money columns are exact cents with two decimals ("1874313.92"), never a binary float
    ("1874313.920000001"): in every draw's row, and in the summary's rows of money."""
    import re

    from jobgrant.simulation.year import MONEY_MEASURES

    args = ["simulate", "--scenario", str(FINAL_DEAL), "--years", "2015-16", "--draws", "3"]
    args += ["--out", str(tmp_path), "--format", "csv", "--seed", "7"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    cents = re.compile(r"^-?\d+\.\d{2}$")
    draws = pl.read_csv(tmp_path / "draws.csv", infer_schema=False)
    assert {"federal", "employer", "left_provincial", "budget_federal"} <= set(MONEY_MEASURES)
    for name in MONEY_MEASURES:
        wrong = [v for v in draws[name] if not cents.match(v)]
        assert wrong == [], (name, wrong[:3])
    national = draws.filter(pl.col("jurisdiction") == "CA")
    places = draws.filter(pl.col("jurisdiction") != "CA")
    for draw in range(3):
        for name in ("federal", "government", "employer"):
            whole = int(national.filter(pl.col("draw") == str(draw))[name][0].replace(".", ""))
            parts = places.filter(pl.col("draw") == str(draw))[name]
            assert whole == sum(int(v.replace(".", "")) for v in parts)
    summary = pl.read_csv(tmp_path / "summary.csv", infer_schema=False)
    money = summary.filter(pl.col("measure").is_in(list(MONEY_MEASURES)))
    assert money.height == 14 * len(MONEY_MEASURES)
    for column in ("mean", "p05", "p95"):
        wrong = [v for v in money[column] if not cents.match(v)]
        assert wrong == [], (column, wrong[:3])
