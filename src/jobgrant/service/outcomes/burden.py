"""The burden meter's figures: per step and firm size, how many steps were timed, the median time
from a step's first view to its submission, and how often a submitted step was sent back; and
the fields whose errors the forms showed most often.

One grouped statement per table kind, on SQLite and PostgreSQL alike: the timings of the scope's
files grouped by step, firm-size band (the KPIs' `kpi_sql.firm_band_sql`, on the lead employer's
employees as it applied) and whole minutes, so the median is exact from that histogram, as the
KPIs' days from claim to payment are. The figures take the KPIs' shape (`tables`) and their
small-cell suppression (`suppression.suppress`): a firm-size cell of fewer than 10 timed steps is
hidden, and so is the cell that would let it be worked out. ADR 0046.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field

from django.utils import timezone
from django.utils.translation import override

from jobgrant.rules.codes import fiscal_year_label
from jobgrant.service.errors import bad_input, problem
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.burden import BurdenStep, FieldErrorShown, StepTiming
from jobgrant.service.outcomes.kpi_columns import FIRM_SIZES, TOTAL
from jobgrant.service.outcomes.kpi_sql import _fetch, _table, firm_band_sql
from jobgrant.service.outcomes.suppression import suppress
from jobgrant.service.outcomes.tables import Column, Figure, KpiReport, Row, Table, Unit

#: The timing's firm size: the lead employer's employees as it applied.
EMPLOYEES = 't."employees"'

#: The most fields the table of errors lists (the most frequent first).
TOP_FIELDS = 15

TIMED = Column(
    "timed",
    "Steps timed",
    "Étapes chronométrées",
    Unit.COUNT,
    "Steps submitted on the pages whose first view was recorded.",
    "Étapes soumises dans les pages dont le premier affichage a été consigné.",
)
MEDIAN = Column(
    "median",
    "Median time, first view to submission",
    "Temps médian, du premier affichage à la soumission",
    Unit.MINUTES,
    "Whole minutes from the step's first page view to its first submission; the lower of the"
    " two middle values when their number is even. Time away from the page counts too.",
    "Minutes entières du premier affichage de l'étape à sa première soumission; la plus petite"
    " des deux valeurs du milieu quand leur nombre est pair. Le temps passé hors de la page"
    " compte aussi.",
)
SENT_BACK = Column(
    "sent-back",
    "Sent back",
    "Renvoyées",
    Unit.RATE,
    "Share of the submitted steps sent back at least once: a claim returned for more"
    " information, a change request denied because information was missing.",
    "Part des étapes soumises renvoyées au moins une fois : une demande de remboursement"
    " retournée pour complément, une demande de modification refusée faute de renseignements.",
)
ERRORS = Column(
    "errors",
    "Errors shown",
    "Erreurs affichées",
    Unit.COUNT,
    "Times a refused form showed this error on this field to an employer or a trainee.",
    "Nombre de fois qu'un formulaire refusé a affiché cette erreur sur ce champ à un employeur"
    " ou à un stagiaire.",
)


@dataclass
class _Cell:
    """A step's timings in one firm-size band: minutes -> steps, and how many were sent back."""

    minutes: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    sent_back: int = 0

    @property
    def timed(self) -> int:
        return sum(self.minutes.values())

    def add(self, other: _Cell) -> None:
        for minutes, count in other.minutes.items():
            self.minutes[minutes] += count
        self.sent_back += other.sent_back


def compute(jurisdiction: str | None, fiscal_year: str, *, suppressed: bool = True) -> KpiReport:
    """The burden figures of the fiscal year's files (of one jurisdiction, or Canada)."""
    fiscal_year_span(fiscal_year)  # a fiscal year, or 422
    cells = _timings(jurisdiction, fiscal_year)
    tables = [_step_table(step, cells.get(step, {})) for step in BurdenStep]
    tables.append(field_errors_table(fiscal_year))
    report = KpiReport(jurisdiction, fiscal_year, tuple(tables), suppressed=False)
    report = suppress(report) if suppressed else report
    return KpiReport(
        report.jurisdiction,
        report.fiscal_year,
        report.tables,
        suppressed=report.suppressed,
        threshold=report.threshold,
        as_of=timezone.now(),
    )


def _timings(jurisdiction: str | None, fiscal_year: str) -> dict[str, dict[str, _Cell]]:
    """step -> band -> cell, from one grouped statement over the scope's submitted timings."""
    where, params = 'a."fiscal_year" = %s', [fiscal_year]
    if jurisdiction is not None:
        where, params = where + ' AND a."jurisdiction" = %s', [*params, jurisdiction]
    sql = (
        f'SELECT t."step", {firm_band_sql(EMPLOYEES)},'
        ' t."seconds" / 60, COUNT(*), SUM(CASE WHEN t."sent_back" > 0 THEN 1 ELSE 0 END)'
        f" FROM {_table(StepTiming)} t"
        f' JOIN {_table(Application)} a ON a."id" = t."application_id"'
        f' WHERE {where} AND t."seconds" IS NOT NULL'
        " GROUP BY 1, 2, 3"
    )
    cells: dict[str, dict[str, _Cell]] = defaultdict(lambda: defaultdict(_Cell))
    for step, band, minutes, count, sent_back in _fetch(sql, params):
        cell = cells[str(step)][str(band)]
        cell.minutes[int(minutes)] += int(count)
        cell.sent_back += int(sent_back or 0)
    return cells


def _step_table(step: BurdenStep, bands: dict[str, _Cell]) -> Table:
    total = _Cell()
    rows = []
    for key, label_en, label_fr in FIRM_SIZES:
        cell = bands.get(key, _Cell())
        total.add(cell)
        rows.append(Row(key, label_en, label_fr, _figures(cell)))
    rows.append(Row(TOTAL[0], TOTAL[1], TOTAL[2], _figures(total)))
    with override("en"):
        title_en = str(step.label)
    with override("fr"):
        title_fr = str(step.label)
    return Table(
        f"step-{step.value}",
        title_en,
        title_fr,
        (TIMED, MEDIAN, SENT_BACK),
        tuple(rows),
        note_en="By the size of the lead employer when it applied.",
        note_fr="Selon la taille de l'employeur principal au moment de sa demande.",
    )


def _figures(cell: _Cell) -> dict[str, Figure]:
    timed = cell.timed
    return {
        "timed": Figure(Unit.COUNT, value=timed, people=timed),
        "median": Figure(Unit.MINUTES, value=median(cell.minutes), people=timed),
        "sent-back": Figure(Unit.RATE, numerator=cell.sent_back, denominator=timed, people=timed),
    }


def median(histogram: dict[int, int]) -> int | None:
    """The median of a histogram (value -> count): the lower middle value; None when empty."""
    count = sum(histogram.values())
    if not count:
        return None
    wanted, seen = (count - 1) // 2, 0
    for value in sorted(histogram):
        seen += histogram[value]
        if seen > wanted:
            return value
    raise AssertionError("unreachable: the counts add up to count")


def fiscal_year_span(fiscal_year: str) -> tuple[dt.datetime, dt.datetime]:
    """April 1 to the next April 1, midnight in Ottawa time; 422 for what is not a fiscal
    year (2026-27: two years that follow each other)."""
    start = int(fiscal_year[:4]) if fiscal_year[:4].isdigit() else 0
    if not 1900 <= start < 9999 or fiscal_year_label(start) != fiscal_year:
        raise bad_input(
            [
                problem(
                    "fiscal_year",
                    f"must be a fiscal year like 2026-27, not {fiscal_year!r}",
                    f"doit être un exercice comme 2026-27, et non {fiscal_year!r}",
                )
            ]
        )
    zone = timezone.get_default_timezone()
    return (
        dt.datetime(start, 4, 1, tzinfo=zone),
        dt.datetime(start + 1, 4, 1, tzinfo=zone),
    )


def field_errors_table(fiscal_year: str) -> Table:
    """The fields whose errors were shown most often in the fiscal year (all jurisdictions: an
    error is not tied to a file), each by form, field and error code."""
    since, until = fiscal_year_span(fiscal_year)
    sql = (
        f'SELECT "form", "field", "code", COUNT(*) FROM {_table(FieldErrorShown)}'
        ' WHERE "shown_at" >= %s AND "shown_at" < %s'
        ' GROUP BY "form", "field", "code" ORDER BY COUNT(*) DESC, "form", "field", "code"'
        f" LIMIT {TOP_FIELDS}"
    )
    rows = tuple(
        Row(
            f"{form}/{name}/{code}",
            f"{form}/{name}/{code}",
            f"{form}/{name}/{code}",
            {"errors": Figure(Unit.COUNT, value=int(count))},
        )
        for form, name, code, count in _fetch(sql, [since, until])
    )
    return Table(
        "field-errors",
        "The fields that cause the most errors",
        "Les champs qui causent le plus d'erreurs",
        (ERRORS,),
        rows,
        note_en="All jurisdictions: a form's error is not tied to a file. Nothing typed is kept.",
        note_fr="Toutes les administrations : une erreur de formulaire n'est liée à aucun"
        " dossier. Rien de ce qui a été tapé n'est conservé.",
    )
