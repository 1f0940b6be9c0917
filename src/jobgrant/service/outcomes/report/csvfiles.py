"""The report's tables as CSV: one file per table, UTF-8, the columns' stable ids as headers,
money as decimal strings ("1234.56"), a rate as its numerator, denominator and percentage, a
survey figure with its response rate beside it.

A suppressed figure is "x" in each of its fields, and the file ends, after a blank line, with
the symbols' legend and the table's note in English and in French, as Statistics Canada's
"download as displayed" CSV files do. (The open data, for machines, marks suppression in a
status column instead: opendata.py.)
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from jobgrant.service.outcomes.report import cells
from jobgrant.service.outcomes.tables import Column, Figure, KpiReport, Table, Unit

LEAD = ("fiscal_year", "jurisdiction", "row", "row_label_en", "row_label_fr")
LEGEND = (
    ("Symbol legend", "Légende des symboles"),
    (
        "x: suppressed to protect the confidentiality of the people counted (fewer than "
        "{threshold} people, or a figure that would let such a one be worked out)",
        "x : confidentiel, pour protéger les personnes comptées (moins de {threshold} personnes, "
        "ou un chiffre qui permettrait d'en déduire un tel)",
    ),
    (
        "...: not applicable (a rate or an average over nobody)",
        "... : n'ayant pas lieu de figurer (un taux ou une moyenne sur personne)",
    ),
    (
        "F: too unreliable to be published (groups too small for a net figure)",
        "F : trop peu fiable pour être publié (groupes trop petits pour un chiffre net)",
    ),
)


def survey_columns(table: Table) -> set[str]:
    """The columns whose figures come from a survey (they carry a response rate)."""
    return {
        column.id
        for column in table.columns
        for row in table.rows
        if (f := row.figures.get(column.id)) is not None and f.response is not None
    }


def figure_fields(column: Column, survey: bool) -> list[str]:
    fields = cells.csv_fields(column.id, column.unit)
    if survey:
        fields += cells.csv_fields(f"{column.id}_response", Unit.RATE)
    return fields


def header(table: Table) -> list[str]:
    survey = survey_columns(table)
    fields = list(LEAD)
    for column in table.columns:
        fields += figure_fields(column, column.id in survey)
    return fields


def figure_values(figure: Figure | None, column: Column, survey: bool, blank: str) -> list[str]:
    if figure is None:
        return [""] * len(figure_fields(column, survey))
    values = cells.csv_values(figure, blank=blank)
    if survey:
        response = figure.response if figure.shown else None
        values += (
            cells.csv_values(response, blank=blank)
            if response is not None
            else [blank if not figure.shown else ""] * 3
        )
    return values


def place_code(report: KpiReport) -> str:
    return report.jurisdiction or "CA"


def rows(report: KpiReport, table: Table, blank: str = cells.SUPPRESSED) -> list[list[str]]:
    survey = survey_columns(table)
    lines = []
    for row in table.rows:
        line = [report.fiscal_year, place_code(report), row.key, row.label_en, row.label_fr]
        for column in table.columns:
            found = row.figures.get(column.id)
            line += figure_values(found, column, column.id in survey, blank)
        lines.append(line)
    return lines


def table_csv(report: KpiReport, table: Table) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header(table))
    writer.writerows(rows(report, table))
    writer.writerow([])
    for english, french in LEGEND:
        writer.writerow([english.format(threshold=report.threshold)])
        writer.writerow([french.format(threshold=report.threshold)])
    if table.note_en or table.note_fr:
        writer.writerow([f"Note: {table.note_en}"])
        writer.writerow([f"Note : {table.note_fr}"])
    return buffer.getvalue()


def file_name(report: KpiReport, part: str, suffix: str = "csv") -> str:
    """ "annual-report-ON-2015-16-headline.csv" (a table's id) or "...-en.pdf" (a language)."""
    return f"annual-report-{place_code(report)}-{report.fiscal_year}-{part}.{suffix}"


def write_tables(report: KpiReport, out: Path) -> list[Path]:
    """Every table of the report as its own CSV file in `out`; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for table in report.tables:
        path = out / file_name(report, table.id)
        path.write_text(table_csv(report, table), encoding="utf-8", newline="")
        written.append(path)
    return written
