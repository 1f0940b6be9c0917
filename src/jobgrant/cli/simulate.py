"""`jobgrant simulate`: the simulator from the command line (listed in jobgrant.cli.app).

Every option is checked before anything runs: bad input exits 2 with one line per problem on
stderr naming the option, nothing on stdout and no file written.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from jobgrant.cli.errors import fail

# The funding model's years (jobgrant.funding.years), written out so that building the app for
# `jobgrant quote` does not import the funding model.
DEFAULT_YEARS = "2014-15:2019-20"
PLOT_SUFFIXES = (".png", ".svg")

app = typer.Typer(
    add_completion=False,
    invoke_without_command=True,
    help="The simulator: synthetic employers and trainees, take-up, the rules kernel over "
    "everyone, budgets first come first served, Monte Carlo bands.",
)


@app.callback()
def simulate(
    ctx: typer.Context,
    scenario: Annotated[
        str | None,
        typer.Option(help="A funding scenario or simulation scenario YAML file."),
    ] = None,
    years: Annotated[
        str, typer.Option(help="Fiscal years, FIRST:LAST or one year (2017-18).")
    ] = DEFAULT_YEARS,
    draws: Annotated[int, typer.Option(help="Monte Carlo draws.")] = 100,
    seed: Annotated[int, typer.Option(help="The run's seed (same seed, same figures).")] = 2013,
    out: Annotated[
        str | None, typer.Option(help="Write summary and draws tables into this directory.")
    ] = None,
    format: Annotated[str, typer.Option(help="Tables as csv or parquet.")] = "csv",
    plot: Annotated[
        str | None, typer.Option(help="Draw the plots into FILE.png or FILE.svg.")
    ] = None,
    compare: Annotated[
        str | None, typer.Option(help="Another scenario, run on the same seeds, side by side.")
    ] = None,
    workers: Annotated[int, typer.Option(help="Local processes running draws.")] = 1,
    cluster: Annotated[
        str | None,
        typer.Option(help="Run the draws on this Dask distributed scheduler (tcp://host:8786)."),
    ] = None,
) -> None:
    """Simulate a scenario over fiscal years: who takes the grant up, what it costs, when each
    budget runs out, with the mean and 5-95% band of every figure."""
    if ctx.invoked_subcommand is not None:
        return
    from jobgrant.simulation.montecarlo import RunSpec, run
    from jobgrant.simulation.output import FORMATS, compare_text, summary_text, write_tables

    problems: list[str] = []
    chosen = _years(years, problems)
    if scenario is None:
        problems.append(
            "--scenario: required (a scenario YAML file, e.g. scenarios/budget-2013.yaml)"
        )
    if draws < 1:
        problems.append(f"--draws: must be a whole number, 1 or more, not {draws}")
    if workers < 1:
        problems.append(f"--workers: must be 1 or more, not {workers}")
    if cluster is not None and "://" not in cluster:
        problems.append(f"--cluster: {cluster!r} must be a scheduler address like tcp://host:8786")
    if format not in FORMATS:
        problems.append(f"--format: must be csv or parquet, not {format!r}")
    if plot:
        problems += _plot_problems(Path(plot))
    if out and Path(out).exists() and not Path(out).is_dir():
        problems.append(f"--out: {out!r} exists and is not a directory")
    scenarios = [_check_scenario("--scenario", scenario, problems)] if scenario else []
    if compare:
        scenarios.append(_check_scenario("--compare", compare, problems))
    if problems:
        fail(problems)
    specs = [RunSpec(str(path), tuple(chosen), draws, seed) for path in scenarios]
    progress = _Progress(draws * len(specs))
    try:
        results = [run(spec, workers, progress.advance, cluster) for spec in specs]
    finally:
        progress.close()
    typer.echo(summary_text(results[0]))
    if len(results) > 1:
        typer.echo("\n" + summary_text(results[1]) + "\n\n" + compare_text(*results))
    if out:
        for path in write_tables(results, Path(out), format):
            typer.echo(f"Wrote {path}", err=True)
    if plot:
        from jobgrant.simulation.plot import figure, save

        save(figure(results), Path(plot))
        typer.echo(f"Wrote {plot}", err=True)


@app.command()
def calibrate(
    draws: Annotated[int, typer.Option(help="Draws of each calibration scenario.")] = 6,
    seed: Annotated[int, typer.Option(help="The seed.")] = 2013,
    workers: Annotated[int, typer.Option(help="Local processes running draws.")] = 1,
    fit: Annotated[
        bool, typer.Option(help="First fit the national take-up shift to the national reach.")
    ] = False,
) -> None:
    """Each calibration target beside the model's figure, with the error and the tolerance."""
    from jobgrant.simulation import calibrate as calibration

    if draws < 1 or workers < 1:
        fail(["--draws and --workers: must be 1 or more"])
    if fit:
        shift = calibration.fit_shift(draws, seed, workers)
        typer.echo(f"take_up.shift fitted: {shift} (set it in parameters/simulation.yaml)")
    typer.echo(calibration.table(calibration.calibrate(draws, seed, workers)))


def _years(text: str, problems: list[str]) -> list[str]:
    from jobgrant.funding.years import MODEL_YEARS

    first, _, last = text.partition(":")
    last = last or first
    for label in (first, last):
        if label not in MODEL_YEARS:
            known = f"{MODEL_YEARS[0]} to {MODEL_YEARS[-1]}"
            problems.append(f"--years: {label!r} is not a fiscal year of the model ({known})")
            return []
    chosen = list(MODEL_YEARS[MODEL_YEARS.index(first) : MODEL_YEARS.index(last) + 1])
    if not chosen:
        problems.append(f"--years: {first} comes after {last}")
    return chosen


def _check_scenario(option: str, path: str, problems: list[str]) -> Path:
    from jobgrant.simulation.scenario import ScenarioError, load_scenario

    try:
        load_scenario(Path(path))
    except ScenarioError as error:
        problems.extend(f"{option}: {p}" for p in error.problems)
    return Path(path)


def _plot_problems(path: Path) -> list[str]:
    if path.suffix not in PLOT_SUFFIXES:
        return [f"--plot: {str(path)!r} must end in .png or .svg"]
    if not path.parent.is_dir():
        return [f"--plot: the directory {str(path.parent)!r} does not exist"]
    return []


class _Progress:
    """A bar on a terminal; otherwise a plain line every tenth of the way (for logs)."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0
        self.bar = None
        if sys.stderr.isatty():
            self.bar = typer.progressbar(length=total, label="Simulating", file=sys.stderr)
            self.bar.__enter__()

    def advance(self, count: int) -> None:
        before, self.done = self.done, self.done + count
        if self.bar is not None:
            self.bar.update(count)
        elif self.done * 10 // self.total > before * 10 // self.total or self.done == self.total:
            typer.echo(f"simulate: {self.done}/{self.total} draws done", err=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
