"""`jobgrant report annual` and `jobgrant report open-data`: the accountability report (PDF in
English and in French, a CSV of every table) and the open data (listed in jobgrant.cli.app).

Every option is checked before anything runs, with the words of the report's page
(outcomes/report/source.py): bad input exits 2 with one line per problem on stderr naming the
option, in the user's language (--lang, JOBGRANT_LANG or LANG), nothing written. Django and the
report's modules are imported inside the commands, so listing them costs `jobgrant quote`
nothing.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from jobgrant.cli.errors import fail, user_language

if TYPE_CHECKING:
    from jobgrant.service.outcomes.tables import KpiReport

LANGUAGES = ("en", "fr")
OPTION = {"jurisdiction": "--jurisdiction", "fiscal_year": "--fiscal-year"}
STEPS = {  # what each step says on stderr while the report is made
    "figures": (
        "report: computing the figures of {place}, {year}",
        "report : calcul des chiffres de {place}, {year}",
    ),
    "pdf": ("report: writing the {name} PDF", "report : écriture du PDF en {name}"),
    "csv": ("report: writing the tables as CSV", "report : écriture des tableaux en CSV"),
    "wrote": ("Wrote {path}", "Écrit : {path}"),
}
LANGUAGE_NAMES = {"en": ("English", "anglais"), "fr": ("French", "français")}
BAD = {
    "lang": ("must be en or fr, not {value!r}", "doit être en ou fr, et non {value!r}"),
    "out": (
        "{value!r} exists and is not a directory",
        "{value!r} existe et n'est pas un répertoire",
    ),
    "order": ("{first} comes after {last}", "{first} vient après {last}"),
}

report = typer.Typer(
    help="The annual accountability report and the open data of the outcomes.",
    no_args_is_help=True,
)


def _said(language: str, pair: tuple[str, str], **values: object) -> str:
    english, french = pair
    return (french if language == "fr" else english).format(**values)


def _line(language: str, option: str, text: str) -> str:
    return f"{option} : {text}" if language == "fr" else f"{option}: {text}"


def _language(lang: str | None, problems: list[str]) -> str:
    language = lang if lang in LANGUAGES else user_language()
    if lang is not None and lang not in LANGUAGES:
        problems.append(_line(language, "--lang", _said(language, BAD["lang"], value=lang)))
    return language


def _out_problem(language: str, out: str) -> list[str]:
    if Path(out).exists() and not Path(out).is_dir():
        return [_line(language, "--out", _said(language, BAD["out"], value=out))]
    return []


def _option_problem(language: str, problem: object | None) -> list[str]:
    if problem is None:
        return []
    field, english, french = problem.field, problem.en, problem.fr  # type: ignore[attr-defined]
    return [_line(language, OPTION[field], french if language == "fr" else english)]


def _echo(language: str, step: str, **values: object) -> None:
    typer.echo(_said(language, STEPS[step], **values), err=True)


@report.command("annual")
def annual(
    fiscal_year: Annotated[str | None, typer.Option(help="The fiscal year, e.g. 2015-16.")] = None,
    jurisdiction: Annotated[
        str | None,
        typer.Option(help="A province or territory code (ON); omitted or CA: the national report."),
    ] = None,
    out: Annotated[
        str, typer.Option(help="Write the PDFs and CSV files into this directory.")
    ] = ".",
    lang: Annotated[
        str | None,
        typer.Option(help="Language of the errors and progress lines: en or fr (default: LANG)."),
    ] = None,
) -> None:
    """The accountability report of one jurisdiction (or Canada) for one fiscal year: a PDF in
    English, a PDF in French and a CSV file of every table."""
    from jobgrant.service.outcomes.report import source

    problems: list[str] = []
    language = _language(lang, problems)
    problems += _option_problem(language, source.jurisdiction_problem(jurisdiction))
    problems += _option_problem(language, source.fiscal_year_problem(fiscal_year))
    problems += _out_problem(language, out)
    if problems:
        fail(problems)
    assert fiscal_year is not None
    kpis = _compute(language, source.jurisdiction_of(jurisdiction), fiscal_year)
    for path in write_annual(kpis, Path(out), language, dt.datetime.now(dt.UTC)):
        _echo(language, "wrote", path=path)


def _compute(language: str, jurisdiction: str | None, fiscal_year: str) -> KpiReport:
    from jobgrant.service.commands import setup_django

    setup_django()
    from jobgrant.service.outcomes.report import source

    _echo(language, "figures", place=jurisdiction or source.NATIONAL, year=fiscal_year)
    return source.annual_report(jurisdiction, fiscal_year)


def write_annual(kpis: KpiReport, out: Path, language: str, made: dt.datetime) -> list[Path]:
    """The two PDFs and the tables' CSV files of `kpis` in `out`; the paths written."""
    from jobgrant.service.outcomes.report.csvfiles import file_name, write_tables
    from jobgrant.service.outcomes.report.pdf import report_pdf

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for pdf_language in LANGUAGES:
        name = LANGUAGE_NAMES[pdf_language][1 if language == "fr" else 0]
        _echo(language, "pdf", name=name)
        path = out / file_name(kpis, pdf_language, "pdf")
        path.write_bytes(report_pdf(kpis, pdf_language, made))
        written.append(path)
    _echo(language, "csv")
    return written + write_tables(kpis, out)


@report.command("open-data")
def open_data(
    fiscal_year: Annotated[
        str | None,
        typer.Option(help="A fiscal year (2015-16) or FIRST:LAST; default: 2014-15 to last year."),
    ] = None,
    out: Annotated[str, typer.Option(help="Write the CSV files into this directory.")] = ".",
    lang: Annotated[
        str | None,
        typer.Option(help="Language of the errors and progress lines: en or fr (default: LANG)."),
    ] = None,
) -> None:
    """The suppressed tables of Canada and of every province and territory as CSV files for the
    Government of Canada's open data portal, with their data dictionary in English and French."""
    from jobgrant.service.outcomes.report import source

    problems: list[str] = []
    language = _language(lang, problems)
    years = _years(language, fiscal_year or _default_years(), problems)
    problems += _out_problem(language, out)
    if problems:
        fail(problems)
    from jobgrant.service.commands import setup_django

    setup_django()
    from jobgrant.service.outcomes.report import opendata

    places: list[str | None] = [None, *source.CODES]
    reports = []
    label = "Données ouvertes" if language == "fr" else "Open data"
    with typer.progressbar(length=len(years) * len(places), label=label) as bar:
        for year in years:
            for place in places:
                reports.append(source.annual_report(place, year))
                bar.update(1)
    for path in opendata.write(reports, Path(out)):
        _echo(language, "wrote", path=path)


def _default_years() -> str:
    from jobgrant.service.outcomes.report.source import last_fiscal_year

    return f"2014-15:{last_fiscal_year()}"


def _years(language: str, text: str, problems: list[str]) -> list[str]:
    from jobgrant.service.outcomes.report import source

    first, _, last = text.partition(":")
    last = last or first
    for year in (first, last):
        found = source.fiscal_year_problem(year)
        if found is not None:
            problems += _option_problem(language, found)
            return []
    start, end = int(first[:4]), int(last[:4])
    if start > end:
        problems.append(
            _line(language, "--fiscal-year", _said(language, BAD["order"], first=first, last=last))
        )
        return []
    return [f"{y}-{(y + 1) % 100:02d}" for y in range(start, end + 1)]
