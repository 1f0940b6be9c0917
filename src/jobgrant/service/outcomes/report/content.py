"""The report in the active language, as the page and the PDF both show it: the cover, the
summary in words, each table with its cells, notes and response rates, the suppression rule,
the symbols and the definitions. Built once from a KpiReport, so the page and the PDF say the
same thing (the tests compare them)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.utils.translation import gettext as _

from jobgrant.service.choices import Jurisdiction
from jobgrant.service.grants.core.quoting import policy_version
from jobgrant.service.language import (
    TIME_ZONE_NAME,
    current_language,
    in_language,
    long_moment,
)
from jobgrant.service.outcomes.report import cells
from jobgrant.service.outcomes.report.summary import Summary, summary
from jobgrant.service.outcomes.tables import Column, KpiReport, Row, Table


@dataclass(frozen=True)
class Cell:
    text: str
    response: str  # the response rate beside a survey figure, "" otherwise
    suppressed: bool


@dataclass(frozen=True)
class RowView:
    key: str
    label: str
    cells: tuple[Cell, ...]


#: The most figure columns a printed table holds beside its row labels: the PDF's page (US
#: letter, portrait) fits five of the widest figures ("$987,654,321.09", "1 234 567,89 $"); a
#: wider table is printed as several parts, each with the row labels again.
PRINTED_COLUMNS = 5


@dataclass(frozen=True)
class TablePart:
    """Some of a table's columns, with every row's label: how the PDF prints a wide table."""

    number: int
    of: int
    headers: tuple[str, ...]
    rows: tuple[RowView, ...]


@dataclass(frozen=True)
class TableView:
    id: str
    title: str
    note: str
    headers: tuple[str, ...]
    column_ids: tuple[str, ...]
    rows: tuple[RowView, ...]
    has_survey: bool
    has_suppressed: bool

    @property
    def parts(self) -> tuple[TablePart, ...]:
        """The table cut into parts of at most PRINTED_COLUMNS columns, as evenly as it goes
        (15 columns: three parts of five; 6: two of three)."""
        count = max(1, -(-len(self.headers) // PRINTED_COLUMNS))
        size = -(-len(self.headers) // count) if self.headers else 0
        return tuple(
            TablePart(
                number=n + 1,
                of=count,
                headers=self.headers[n * size : (n + 1) * size],
                rows=tuple(
                    RowView(r.key, r.label, r.cells[n * size : (n + 1) * size]) for r in self.rows
                ),
            )
            for n in range(count)
        )


@dataclass(frozen=True)
class Definition:
    id: str
    title: str
    description: str


@dataclass(frozen=True)
class ReportView:
    title: str
    place: str
    fiscal_year: str
    made: str
    rules_version: str
    summary: Summary
    suppression_rule: str
    symbols: tuple[tuple[str, str], ...]
    tables: tuple[TableView, ...]
    definitions: tuple[Definition, ...]
    notes: tuple[str, ...]


def place_name(jurisdiction: str | None) -> str:
    return _("Canada") if jurisdiction is None else str(Jurisdiction(jurisdiction).label)


def view(report: KpiReport, made: dt.datetime) -> ReportView:
    """The report in the active language (call under translation.override)."""
    return ReportView(
        title=_("Canada Job Grant: annual accountability report"),
        place=place_name(report.jurisdiction),
        fiscal_year=report.fiscal_year,
        made=f"{long_moment(made, current_language())} ({TIME_ZONE_NAME})",
        rules_version=policy_version(),
        summary=summary(report),
        suppression_rule=suppression_rule(report),
        symbols=symbols(),
        tables=tuple(table_view(t) for t in report.tables),
        definitions=definitions(report),
        notes=report.notes,
    )


def suppression_rule(report: KpiReport) -> str:
    if not report.suppressed:
        return _("No figure is suppressed: this copy is for auditors and is not for publication.")
    return _(
        "Any figure about fewer than %(threshold)s people is suppressed and shown as x, and so "
        "is a second figure that would let a suppressed one be worked out from a total."
    ) % {"threshold": report.threshold}


def symbols() -> tuple[tuple[str, str], ...]:
    return (
        (cells.SUPPRESSED, _("suppressed to protect the confidentiality of the people counted")),
        (cells.NOT_APPLICABLE, _("not applicable (a rate or an average over nobody)")),
        (cells.UNRELIABLE, _("too unreliable to be published (groups too small for a net figure)")),
    )


def table_view(table: Table) -> TableView:
    rows = tuple(row_view(table, row) for row in table.rows)
    return TableView(
        id=table.id,
        title=in_language(en=table.title_en, fr=table.title_fr),
        note=in_language(en=table.note_en, fr=table.note_fr),
        headers=tuple(in_language(en=c.title_en, fr=c.title_fr) for c in table.columns),
        column_ids=tuple(c.id for c in table.columns),
        rows=rows,
        has_survey=any(cell.response for row in rows for cell in row.cells),
        has_suppressed=any(cell.suppressed for row in rows for cell in row.cells),
    )


def row_view(table: Table, row: Row) -> RowView:
    found = [row.figures.get(column.id) for column in table.columns]
    return RowView(
        key=row.key,
        label=in_language(en=row.label_en, fr=row.label_fr),
        cells=tuple(
            Cell("", "", False)
            if figure is None
            else Cell(cells.text(figure), cells.response_text(figure), not figure.shown)
            for figure in found
        ),
    )


def definitions(report: KpiReport) -> tuple[Definition, ...]:
    """Each column once (the first table that has it), with its definition."""
    seen: dict[str, Column] = {}
    for table in report.tables:
        for column in table.columns:
            seen.setdefault(column.id, column)
    return tuple(
        Definition(
            column.id,
            in_language(en=column.title_en, fr=column.title_fr),
            in_language(en=column.description_en, fr=column.description_fr),
        )
        for column in seen.values()
    )
