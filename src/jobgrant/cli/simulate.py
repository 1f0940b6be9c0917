"""`jobgrant simulate`: the simulator from the command line (listed in jobgrant.cli.app).

Every option is checked before anything runs: bad input exits 2 with one line per problem on
stderr naming the option, nothing on stdout and no file written.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from jobgrant.cli.errors import fail, user_language

# The funding model's years (jobgrant.funding.years), written out so that building the app for
# `jobgrant quote` does not import the funding model.
DEFAULT_YEARS = "2014-15:2019-20"
PLOT_SUFFIXES = (".png", ".svg")
LANGUAGES = ("en", "fr")
# What each problem says, in English and in French: {value} is what the user gave.
MESSAGES: dict[str, tuple[str, str]] = {
    "lang": ("must be en or fr, not {value!r}", "doit être en ou fr, et non {value!r}"),
    "scenario_required": (
        "required (a scenario YAML file, e.g. scenarios/budget-2013.yaml)",
        "obligatoire (un fichier YAML de scénario, p. ex. scenarios/budget-2013.yaml)",
    ),
    "whole": (
        "must be a whole number, {least} or more, not {value!r}",
        "doit être un nombre entier, {least} ou plus, et non {value!r}",
    ),
    "cluster": (
        "{value!r} must be a scheduler address like tcp://host:8786",
        "{value!r} doit être l'adresse d'un ordonnanceur, comme tcp://hote:8786",
    ),
    "format": (
        "must be csv or parquet, not {value!r}",
        "doit être csv ou parquet, et non {value!r}",
    ),
    "plot_suffix": (
        "{value!r} must end in .png or .svg",
        "{value!r} doit se terminer par .png ou .svg",
    ),
    "plot_dir": (
        "the directory {value!r} does not exist",
        "le répertoire {value!r} n'existe pas",
    ),
    "out_not_dir": (
        "{value!r} exists and is not a directory",
        "{value!r} existe et n'est pas un répertoire",
    ),
    "year_unknown": (
        "{value!r} is not a fiscal year of the model ({first} to {last})",
        "{value!r} n'est pas un exercice du modèle ({first} à {last})",
    ),
    "year_order": ("{first} comes after {last}", "{first} vient après {last}"),
    "no_file": ("no such file {value!r}", "le fichier {value!r} n'existe pas"),
    "not_yaml": (
        "{value!r} does not parse as YAML ({detail})",
        "{value!r} n'est pas du YAML lisible ({detail})",
    ),
    "kind": (
        "{value!r}: kind must be simulation-scenario or funding-scenario (a rules overlay is "
        "not a scenario)",
        "{value!r} : kind doit être simulation-scenario ou funding-scenario (une surcouche de "
        "règles n'est pas un scénario)",
    ),
    # a problem found inside the scenario by the funding model or the parameters (in English)
    "scenario_refused": ("{detail}", "scénario refusé (détail en anglais) : {detail}"),
}
PROGRESS_LINE = {
    "en": "simulate: {done}/{total} draws done",
    "fr": "simulate : {done} tirages faits sur {total}",
}


@dataclass(frozen=True)
class Said:
    """A problem with one option, said in either language."""

    option: str
    code: str
    values: dict[str, object]

    def __init__(self, option: str, code: str, **values: object) -> None:
        object.__setattr__(self, "option", option)
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "values", values)

    def line(self, lang: str) -> str:
        english, french = MESSAGES[self.code]
        text = (french if lang == "fr" else english).format(**self.values)
        # French puts a space before the colon
        return f"{self.option} : {text}" if lang == "fr" else f"{self.option}: {text}"


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
    draws: Annotated[str, typer.Option(help="Monte Carlo draws (a whole number).")] = "100",
    seed: Annotated[str, typer.Option(help="The run's seed (same seed, same figures).")] = "2013",
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
    workers: Annotated[str, typer.Option(help="Local processes running draws.")] = "1",
    cluster: Annotated[
        str | None,
        typer.Option(help="Run the draws on this Dask distributed scheduler (tcp://host:8786)."),
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option(help="Language of the errors and progress lines: en or fr (default: LANG)."),
    ] = None,
) -> None:
    """Simulate a scenario over fiscal years: who takes the grant up, what it costs, when each
    budget runs out, with the mean and 5-95% band of every figure."""
    if ctx.invoked_subcommand is not None:
        return
    from jobgrant.simulation.montecarlo import RunSpec, run
    from jobgrant.simulation.output import FORMATS, compare_text, summary_text, write_tables

    language = lang if lang in LANGUAGES else user_language()
    problems: list[Said] = []
    if lang is not None and lang not in LANGUAGES:
        problems.append(Said("--lang", "lang", value=lang))
    chosen = _years(years, problems)
    if scenario is None:
        problems.append(Said("--scenario", "scenario_required"))
    n_draws = _whole("--draws", draws, 1, problems)
    n_seed = _whole("--seed", seed, 0, problems)
    n_workers = _whole("--workers", workers, 1, problems)
    if cluster is not None and "://" not in cluster:
        problems.append(Said("--cluster", "cluster", value=cluster))
    if format not in FORMATS:
        problems.append(Said("--format", "format", value=format))
    if plot:
        problems += _plot_problems(Path(plot))
    if out and Path(out).exists() and not Path(out).is_dir():
        problems.append(Said("--out", "out_not_dir", value=out))
    scenarios = [_check_scenario("--scenario", scenario, problems)] if scenario else []
    if compare:
        scenarios.append(_check_scenario("--compare", compare, problems))
    if problems:
        fail([p.line(language) for p in problems])
    specs = [RunSpec(str(path), tuple(chosen), n_draws, n_seed) for path in scenarios]
    progress = _Progress(n_draws * len(specs), language)
    try:
        results = [run(spec, n_workers, progress.advance, cluster) for spec in specs]
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


def _years(text: str, problems: list[Said]) -> list[str]:
    from jobgrant.funding.years import MODEL_YEARS

    first, _, last = text.partition(":")
    last = last or first
    for label in (first, last):
        if label not in MODEL_YEARS:
            known = {"first": MODEL_YEARS[0], "last": MODEL_YEARS[-1]}
            problems.append(Said("--years", "year_unknown", value=label, **known))
            return []
    chosen = list(MODEL_YEARS[MODEL_YEARS.index(first) : MODEL_YEARS.index(last) + 1])
    if not chosen:
        problems.append(Said("--years", "year_order", first=first, last=last))
    return chosen


def _whole(option: str, text: str, least: int, problems: list[Said]) -> int:
    """A whole number of at least `least`; a problem naming the option otherwise."""
    try:
        value = int(text.strip())
    except ValueError:
        value = least - 1
    if value < least:
        problems.append(Said(option, "whole", value=text, least=least))
    return value


def _check_scenario(option: str, path: str, problems: list[Said]) -> Path:
    """The file's own problems in the user's language where the CLI can tell them (missing,
    not YAML, not a scenario); a problem inside a scenario is the funding model's, in English."""
    import yaml

    from jobgrant.rules.yamlio import load_yaml
    from jobgrant.simulation.scenario import KIND, ScenarioError, load_scenario

    file = Path(path)
    if not file.is_file():
        problems.append(Said(option, "no_file", value=path))
        return file
    try:
        raw = load_yaml(file)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        problems.append(Said(option, "not_yaml", value=path, detail=" ".join(str(error).split())))
        return file
    if not isinstance(raw, dict) or raw.get("kind") not in (KIND, "funding-scenario"):
        problems.append(Said(option, "kind", value=path))
        return file
    try:
        load_scenario(file)
    except ScenarioError as error:
        problems.extend(Said(option, "scenario_refused", detail=p) for p in error.problems)
    return file


def _plot_problems(path: Path) -> list[Said]:
    if path.suffix not in PLOT_SUFFIXES:
        return [Said("--plot", "plot_suffix", value=str(path))]
    if not path.parent.is_dir():
        return [Said("--plot", "plot_dir", value=str(path.parent))]
    return []


class _Progress:
    """A bar on a terminal; otherwise a plain line every tenth of the way (for logs)."""

    def __init__(self, total: int, lang: str = "en") -> None:
        self.total, self.done, self.lang = total, 0, lang
        self.bar = None
        if sys.stderr.isatty():
            label = "Simulation en cours" if lang == "fr" else "Simulating"
            self.bar = typer.progressbar(length=total, label=label, file=sys.stderr)
            self.bar.__enter__()

    def advance(self, count: int) -> None:
        before, self.done = self.done, self.done + count
        if self.bar is not None:
            self.bar.update(count)
        elif self.done * 10 // self.total > before * 10 // self.total or self.done == self.total:
            line = PROGRESS_LINE[self.lang].format(done=self.done, total=self.total)
            typer.echo(line, err=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
