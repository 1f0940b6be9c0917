"""The report's summary in words, made from the headline figures (the first table's total row),
in the active language: an opening sentence, one item per headline figure (shown as a list),
and a closing sentence on what was suppressed. It says only what the tables say: a suppressed
figure is named as suppressed, never guessed at."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from jobgrant.service.choices import Jurisdiction
from jobgrant.service.language import in_language
from jobgrant.service.outcomes.report import cells
from jobgrant.service.outcomes.tables import Figure, KpiReport, Row, Table

TOTAL_KEYS = ("total", "CA", "canada")


@dataclass(frozen=True)
class Summary:
    opening: str  # what the report is about, and "In all:" before the figures
    figures: tuple[str, ...]  # "applications: 1,234", one per headline figure
    closing: str  # what was suppressed


def summary(report: KpiReport) -> Summary:
    place = _("Canada") if report.jurisdiction is None else Jurisdiction(report.jurisdiction).label
    opening = _(
        "This report gives the Canada Job Grant's results in %(place)s for the fiscal "
        "year %(year)s."
    ) % {"place": place, "year": report.fiscal_year}
    figures = headline_figures(report.tables[0]) if report.tables else ()
    if figures:
        opening += " " + _("In all:")
    return Summary(opening, figures, suppressed_sentence(report))


def total_row(table: Table) -> Row | None:
    return next(
        (r for r in table.rows if r.key in TOTAL_KEYS), table.rows[0] if table.rows else None
    )


def headline_figures(table: Table) -> tuple[str, ...]:
    row = total_row(table)
    if row is None:
        return ()
    return tuple(
        phrase(in_language(en=c.title_en, fr=c.title_fr), row.figures[c.id])
        for c in table.columns
        if c.id in row.figures
    )


def phrase(title: str, figure: Figure) -> str:
    if not figure.shown:
        return _("%(title)s suppressed") % {"title": title.lower()}
    said = _("%(title)s %(value)s") % {"title": title.lower(), "value": cells.text(figure)}
    if figure.response is not None:
        said += " " + _("(response rate %(rate)s)") % {"rate": cells.text(figure.response)}
    return said


def suppressed_sentence(report: KpiReport) -> str:
    figures = [f for t in report.tables for r in t.rows for f in r.figures.values()]
    hidden = sum(1 for f in figures if not f.shown)
    if not hidden:
        return _("No figure had to be suppressed.")
    return _(
        "%(hidden)s of the report's %(total)s figures are suppressed to protect the people "
        "they count."
    ) % {"hidden": cells.whole(hidden), "total": cells.whole(len(figures))}
