"""`jobgrant funding`: the contract other parts rely on, through the real command line."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from jobgrant.cli.app import app
from jobgrant.funding.model import MONEY_FIELDS, FundingModel
from jobgrant.funding.years import MODEL_YEARS
from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.money import format_amount

SCENARIOS = Path(__file__).parents[2] / "scenarios"
BUDGET_2013 = str(SCENARIOS / "budget-2013.yaml")
runner = CliRunner()


def funding(*args: str) -> Any:
    return runner.invoke(app, ["funding", *args])


def run_json(*args: str) -> Any:
    result = funding(*args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_the_json_has_the_contracts_shape() -> None:
    data = run_json("--scenario", BUDGET_2013, "--fiscal-year", "2017-18")
    assert set(data) == {"policy", "scenario", "fiscal_year", "jurisdictions", "totals"}
    assert (data["policy"], data["scenario"], data["fiscal_year"]) == (
        "cjg-2013",
        "budget-2013",
        "2017-18",
    )
    assert [j["code"] for j in data["jurisdictions"]] == list(JURISDICTION_CODES)
    assert set(data["totals"]) == {*MONEY_FIELDS, "trainees"}
    ontario = data["jurisdictions"][5]
    assert set(ontario) == {"code", "delivery", "population", *MONEY_FIELDS, "trainees"}
    assert ontario["population"] == 13537994


def test_amounts_are_decimal_strings_with_two_decimals() -> None:
    data = run_json()
    amounts = [j[f] for j in data["jurisdictions"] for f in MONEY_FIELDS]
    assert all(isinstance(a, str) and a.split(".")[1].isdigit() for a in amounts)
    assert all(len(a.split(".")[1]) == 2 for a in amounts)
    assert data["totals"]["provincial_cost"] == "600000000.00"


def test_the_command_line_and_the_python_api_give_the_same_figures() -> None:
    data = run_json("--scenario", BUDGET_2013, "--fiscal-year", "2016-17")
    impact = FundingModel(scenario=BUDGET_2013).year("2016-17")
    for row, figures in zip(data["jurisdictions"], impact.jurisdictions, strict=True):
        assert row["code"] == figures.code
        for field in MONEY_FIELDS:
            assert row[field] == format_amount(getattr(figures, field))
        assert row["trainees"] == figures.trainees


def test_the_default_is_cjg_2013_in_2017_18_without_a_scenario() -> None:
    data = run_json()
    assert (data["policy"], data["scenario"], data["fiscal_year"]) == ("cjg-2013", None, "2017-18")


def test_policy_on_the_command_line_wins_over_the_scenarios_policy() -> None:
    data = run_json("--scenario", BUDGET_2013, "--policy", "cjg-2014")
    assert data["policy"] == "cjg-2014"
    assert data["totals"]["matching"] == "0.00"


def test_all_years_lists_the_six_fiscal_years_in_order() -> None:
    data = run_json("--all-years")
    assert [year["fiscal_year"] for year in data] == list(MODEL_YEARS)
    assert MODEL_YEARS[0] == "2014-15" and MODEL_YEARS[-1] == "2019-20"


def test_the_text_table_has_a_row_per_jurisdiction_and_a_totals_row() -> None:
    result = funding("--scenario", BUDGET_2013, "--format", "text")
    lines = result.stdout.splitlines()
    codes = [line.split()[0] for line in lines if line[:2] in JURISDICTION_CODES]
    assert codes == list(JURISDICTION_CODES)
    total = next(line for line in lines if line.startswith("Total"))
    assert "600,000,000.00" in total and "500,000,000.00" in total


def test_the_csv_totals_row_is_the_sum_of_the_jurisdiction_rows() -> None:
    result = funding("--scenario", BUDGET_2013, "--format", "csv", "--all-years")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == len(MODEL_YEARS) * (len(JURISDICTION_CODES) + 1)
    for year in MODEL_YEARS:
        in_year = [r for r in rows if r["fiscal_year"] == year]
        total = next(r for r in in_year if r["code"] == "total")
        cents = sum(int(r["grant"].replace(".", "")) for r in in_year if r["code"] != "total")
        assert int(total["grant"].replace(".", "")) == cents


def test_explain_lists_every_figure_with_its_parameters_dates_values_and_sources() -> None:
    data = run_json("--scenario", BUDGET_2013, "--explain", "--jurisdiction", "ON")
    steps = {step["target"]: step for step in data["explanation"]["steps"]}
    figures = {"population", *MONEY_FIELDS, "trainees"}
    assert figures <= set(steps)
    ontario = data["jurisdictions"][5]
    assert all(steps[f]["value"] == str(ontario[f]) for f in figures)
    reads = [read for step in steps.values() for read in step["parameters"]]
    names = {read["name"] for read in reads}
    assert {"funding.diversion.share", "cjg.federal.rate", "cjg.provincial.rate"} <= names
    for read in reads:
        assert read["effective_date"] and read["value"] and read["reference"]


def test_explain_in_text_names_the_phase_in_parameter_and_its_source() -> None:
    result = funding("--format", "text", "--explain", "--jurisdiction", "QC")
    assert result.exit_code == 0
    assert "reads funding.diversion.share = 3/5 (in force from 2017-04-01" in result.stdout
    assert "source: Economic Action Plan 2013" in result.stdout


def test_plot_writes_a_png(tmp_path: Path) -> None:
    path = tmp_path / "who-pays.png"
    result = funding("--scenario", BUDGET_2013, "--plot", str(path))
    assert result.exit_code == 0
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_svg_plot_carries_its_title_axis_labels_and_legend_as_text(tmp_path: Path) -> None:
    path = tmp_path / "who-pays.svg"
    funding("--scenario", BUDGET_2013, "--plot", str(path))
    svg = path.read_text(encoding="utf-8")
    for words in (
        "Who pays for the Canada Job Grant in 2017-18",
        "Millions of dollars",
        "Province or territory",
        "Province or territory: matching the grant",
        "backfill to keep current programs",
        "Employers: their contribution",
    ):
        assert words in svg


BAD_INPUT = [
    (["--policy", "cjg-2099"], "unknown policy 'cjg-2099'"),
    (["--scenario", "nowhere.yaml"], "no such scenario file"),
    (["--policy", BUDGET_2013], "a funding scenario (kind: funding-scenario) goes to --scenario"),
    (["--fiscal-year", "2013-14"], "2013-14 is outside the model"),
    (["--fiscal-year", "2020-21"], "2020-21 is outside the model"),
    (["--fiscal-year", "2017-2018"], "not a fiscal year written like 2017-18"),
    (["--fiscal-year", "2017-18", "--all-years"], "choose one"),
    (["--format", "xml"], "--format: must be json, text or csv"),
    (["--plot", "picture.jpg"], "must end in .png or .svg"),
    (["--plot", "no/such/dir/picture.png"], "does not exist"),
    (["--explain"], "--explain: name the jurisdiction"),
    (["--explain", "--jurisdiction", "XX"], "unknown jurisdiction 'XX'"),
    (["--jurisdiction", "ON"], "only used with --explain"),
    (["--explain", "--jurisdiction", "ON", "--format", "csv"], "not available in CSV"),
]


@pytest.mark.parametrize(("args", "problem"), BAD_INPUT, ids=[" ".join(a) for a, _ in BAD_INPUT])
def test_bad_input_exits_2_names_the_problem_and_prints_nothing(
    args: list[str], problem: str
) -> None:
    result = funding(*args)
    assert result.exit_code == 2
    assert problem in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("kind: funding-scenario\ntitle: [unclosed\n", "does not parse as YAML"),
        ("kind: funding-scenario\nparameters: {funding.nope: {}}\n", "unknown funding parameter"),
        (
            "kind: funding-scenario\ndelivery: {jurisdictions: {'ZZ': provincial}}\n",
            "unknown jurisdiction 'ZZ'",
        ),
    ],
    ids=["does-not-parse", "unknown-parameter", "unknown-jurisdiction"],
)
def test_a_bad_scenario_file_exits_2_and_names_the_problem(
    tmp_path: Path, body: str, problem: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(body, encoding="utf-8")
    result = funding("--scenario", str(path))
    assert (result.exit_code, result.stdout) == (2, "")
    assert problem in result.stderr


def test_bad_input_draws_no_plot(tmp_path: Path) -> None:
    path = tmp_path / "who-pays.png"
    result = funding("--fiscal-year", "2031-32", "--plot", str(path))
    assert result.exit_code == 2
    assert not path.exists()
