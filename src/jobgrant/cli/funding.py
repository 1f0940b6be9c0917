"""`jobgrant funding`: the funding model from the command line (listed in jobgrant.cli.app).

Everything is checked and computed before anything is written: bad input exits 2 with one line
per problem on stderr and nothing on stdout, and no plot file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from jobgrant.cli.errors import fail, user_language
from jobgrant.funding.errors import FundingError
from jobgrant.funding.years import FULL_IMPLEMENTATION
from jobgrant.rules.codes import JURISDICTION_CODES

if TYPE_CHECKING:  # imported where used: `jobgrant quote` starts without the funding model
    from jobgrant.funding.model import FundingModel, YearImpact

FORMATS = ("json", "text", "csv")


def funding(
    policy: Annotated[
        str | None,
        typer.Option(
            help="A policy (cjg-2013, cjg-2014) or a rules overlay file; wins over "
            "the scenario's policy."
        ),
    ] = None,
    scenario: Annotated[
        str | None, typer.Option(help="A funding scenario YAML file (kind: funding-scenario).")
    ] = None,
    fiscal_year: Annotated[
        str | None,
        typer.Option(
            "--fiscal-year", help=f"One fiscal year, e.g. {FULL_IMPLEMENTATION} (the default)."
        ),
    ] = None,
    all_years: Annotated[
        bool, typer.Option("--all-years", help="Every year, 2014-15 to 2019-20.")
    ] = False,
    format: Annotated[str, typer.Option(help="json, text or csv.")] = "json",
    plot: Annotated[
        str | None, typer.Option(help="Also draw who pays what into FILE.png or FILE.svg.")
    ] = None,
    explain: Annotated[
        bool, typer.Option(help="Show how one jurisdiction's figures were derived.")
    ] = False,
    jurisdiction: Annotated[
        str | None, typer.Option(help="The jurisdiction --explain explains, e.g. ON.")
    ] = None,
) -> None:
    """The funding model: each jurisdiction's transfer, grant money, matching, backfill,
    employer contributions and trainees, per fiscal year, under a policy and a scenario."""
    from jobgrant.funding.model import FundingModel

    _check_options(fiscal_year, all_years, format, plot, explain, jurisdiction)
    try:
        model = FundingModel(policy=policy, scenario=scenario)
        years = model.all_years() if all_years else [model.year(fiscal_year or FULL_IMPLEMENTATION)]
    except FundingError as error:
        fail(error.problems)
    code = jurisdiction.upper() if jurisdiction else None
    output = _render(model, years, format, code, single=not all_years)
    if plot:
        _draw(years, Path(plot), single=not all_years)
    typer.echo(output)


def _check_options(
    fiscal_year: str | None,
    all_years: bool,
    format: str,
    plot: str | None,
    explain: bool,
    jurisdiction: str | None,
) -> None:
    problems = []
    if format not in FORMATS:
        problems.append(f"--format: must be json, text or csv, not {format!r}")
    if fiscal_year and all_years:
        problems.append("--fiscal-year and --all-years: choose one")
    if plot:
        problems += _plot_problems(Path(plot))
    problems += _explain_problems(explain, jurisdiction, format)
    if problems:
        fail(problems)


PLOT_SUFFIXES = (".png", ".svg")


def _plot_problems(path: Path) -> list[str]:
    if path.suffix not in PLOT_SUFFIXES:
        return [f"--plot: {str(path)!r} must end in .png or .svg"]
    if not path.parent.is_dir():
        return [f"--plot: the directory {str(path.parent)!r} does not exist"]
    return []


def _explain_problems(explain: bool, jurisdiction: str | None, format: str) -> list[str]:
    if jurisdiction and jurisdiction.upper() not in JURISDICTION_CODES:
        known = " ".join(JURISDICTION_CODES)
        return [f"--jurisdiction: unknown jurisdiction {jurisdiction!r}; one of {known}"]
    if explain and not jurisdiction:
        return ["--explain: name the jurisdiction to explain with --jurisdiction, e.g. ON"]
    if jurisdiction and not explain:
        return ["--jurisdiction: only used with --explain"]
    if explain and format == "csv":
        return ["--explain: not available in CSV; use --format json or text"]
    return []


def _render(
    model: FundingModel, years: list[YearImpact], format: str, code: str | None, single: bool
) -> str:
    from jobgrant.funding.output import years_csv

    if format == "csv":
        return years_csv(years).rstrip("\n")
    if format == "text":
        return "\n\n".join(_year_text(model, impact, code) for impact in years)
    objects = [_year_json(model, impact, code) for impact in years]
    return json.dumps(objects[0] if single else objects, ensure_ascii=False, indent=2)


def _year_json(model: FundingModel, impact: YearImpact, code: str | None) -> dict[str, Any]:
    from jobgrant.funding.explain import explain as explain_figures
    from jobgrant.funding.output import year_json

    result = year_json(impact)
    if code:
        steps = explain_figures(model, impact, code)
        result["explanation"] = {"jurisdiction": code, "steps": steps}
    return result


def _year_text(model: FundingModel, impact: YearImpact, code: str | None) -> str:
    from jobgrant.funding.explain import explain as explain_figures
    from jobgrant.funding.explain import explanation_text
    from jobgrant.funding.output import year_text

    text = year_text(impact, user_language())
    if code:
        steps = explain_figures(model, impact, code)
        text += "\n\n" + explanation_text(steps, code, impact)
    return text


def _draw(years: list[YearImpact], path: Path, single: bool) -> None:
    # matplotlib takes a second to import: only commands that draw pay for it.
    from jobgrant.funding.plot import save, year_figure, years_figure

    figure = year_figure(years[0]) if single else years_figure(years)
    try:
        save(figure, path)
    except OSError as error:
        fail([f"--plot: cannot write {str(path)!r} ({error.strerror or error})"])
