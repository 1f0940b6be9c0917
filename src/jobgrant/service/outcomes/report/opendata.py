"""The open data: the suppressed tables of every jurisdiction and of Canada as CSV for the
Government of Canada's open data portal (open.canada.ca), with a data dictionary in English and
in French.

The portal's resources are UTF-8 CSV files, one table per file, a header row of field names and
nothing else: the names are stable ids (the same in both languages), the row labels are given in
both languages (row_label_en, row_label_fr), and the data dictionary gives each field's name,
type, and title and definition in English and in French. A suppressed figure is an empty value
with "x" in the figure's status field, as Statistics Canada's full-table CSV files put the
symbol in a STATUS column beside an empty VALUE; a net figure withheld because its groups are too
small is an empty value with "F", their symbol for "too unreliable to be published".
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from jobgrant.service.outcomes.report import cells, csvfiles
from jobgrant.service.outcomes.tables import Column, Figure, KpiReport, Table, Unit

DICTIONARY = "data-dictionary.csv"
DICTIONARY_HEADER = (
    "resource_name",
    "field_name",
    "data_type",
    "title_en",
    "title_fr",
    "description_en",
    "description_fr",
)
LEAD_FIELDS = (
    (
        "fiscal_year",
        "text",
        "Fiscal year",
        "Exercice",
        "The fiscal year, April 1 to March 31, as 2015-16.",
        "L'exercice, du 1er avril au 31 mars, p. ex. 2015-16.",
    ),
    (
        "jurisdiction",
        "text",
        "Jurisdiction",
        "Province ou territoire",
        "The province or territory's two-letter code; CA for Canada as a whole.",
        "Le code à deux lettres de la province ou du territoire; CA pour l'ensemble du Canada.",
    ),
    (
        "row",
        "text",
        "Row",
        "Ligne",
        "The row's stable key (e.g. a firm size class, or total).",
        "La clé stable de la ligne (p. ex. une taille d'entreprise, ou total).",
    ),
    (
        "row_label_en",
        "text",
        "Row label (English)",
        "Libellé de la ligne (anglais)",
        "What the row counts, in English.",
        "Ce que compte la ligne, en anglais.",
    ),
    (
        "row_label_fr",
        "text",
        "Row label (French)",
        "Libellé de la ligne (français)",
        "What the row counts, in French.",
        "Ce que compte la ligne, en français.",
    ),
)
PARTS = {  # suffix -> (type, English, French) said of a figure's field
    "numerator": ("integer", "numerator", "numérateur"),
    "denominator": ("integer", "denominator", "dénominateur"),
    "percent": ("decimal", "percentage, to one decimal", "pourcentage, à une décimale"),
    "average": (
        "decimal",
        "average (numerator / denominator)",
        "moyenne (numérateur / dénominateur)",
    ),
    "status": (
        "text",
        'status: "x" when suppressed, "F" when too unreliable to be published (a net figure'
        " whose groups are too small), empty otherwise",
        "statut : « x » si le chiffre est confidentiel, « F » s'il est trop peu fiable pour être"
        " publié (un chiffre net dont les groupes sont trop petits), vide sinon",
    ),
}
UNIT_TYPES = {
    Unit.CENTS: "decimal",
    Unit.CENTS_PER: "decimal",
    Unit.DAYS_PER: "decimal",
    Unit.POINTS: "decimal",
}


@dataclass(frozen=True)
class Field:
    name: str
    data_type: str
    title_en: str
    title_fr: str
    description_en: str
    description_fr: str


def resource_name(table_id: str, fiscal_years: tuple[str, ...]) -> str:
    years = fiscal_years[0] if len(fiscal_years) == 1 else f"{fiscal_years[0]}_{fiscal_years[-1]}"
    return f"cjg-{table_id}-{years}.csv"


def figure_fields(column: Column, survey: bool) -> list[Field]:
    """A column's fields: its value (or numerator, denominator, percentage), its status, and
    for a survey figure the response rate's numerator, denominator and percentage."""
    fields = [_part(column, name) for name in cells.csv_fields(column.id, column.unit)]
    fields.append(_part(column, f"{column.id}_status"))
    if survey:
        for name in cells.csv_fields(f"{column.id}_response", Unit.RATE):
            fields.append(_part(column, name, response=True))
    return fields


def _part(column: Column, name: str, response: bool = False) -> Field:
    suffix = name.rsplit("_", 1)[-1]
    if name == column.id:
        kind = "decimal" if column.unit is Unit.CENTS else "integer"
        money = column.unit is Unit.CENTS
        return Field(
            name,
            kind,
            column.title_en,
            column.title_fr,
            column.description_en + (" In dollars." if money else ""),
            column.description_fr + (" En dollars." if money else ""),
        )
    kind, part_en, part_fr = PARTS[suffix]
    if suffix == "average":
        kind = UNIT_TYPES.get(column.unit, "decimal")
    of_en = "response rate, " if response else ""
    of_fr = "taux de réponse, " if response else ""
    return Field(
        name,
        kind,
        f"{column.title_en} ({of_en}{part_en})",
        f"{column.title_fr} ({of_fr}{part_fr})",
        column.description_en,
        column.description_fr,
    )


def row_values(report: KpiReport, table: Table, survey: set[str]) -> Iterable[list[str]]:
    for row in table.rows:
        line = [
            report.fiscal_year,
            csvfiles.place_code(report),
            row.key,
            row.label_en,
            row.label_fr,
        ]
        for column in table.columns:
            figure = row.figures.get(column.id)
            width = len(figure_fields(column, column.id in survey))
            if figure is None:
                line += [""] * width
                continue
            values = csvfiles.figure_values(figure, column, column.id in survey, blank="")
            status = _status(figure)
            if status == cells.UNRELIABLE:  # a decimal field holds no symbol: the status says it
                values = ["" if value == cells.UNRELIABLE else value for value in values]
            size = len(cells.csv_fields(column.id, column.unit))
            line += [*values[:size], status, *values[size:]]
        yield line


def _status(figure: Figure) -> str:
    if not figure.shown:
        return cells.SUPPRESSED
    return cells.UNRELIABLE if cells.unreliable(figure) else ""


def write(reports: list[KpiReport], out: Path) -> list[Path]:
    """One CSV per table id (every report's rows in it) and the data dictionary; paths written."""
    for report in reports:
        if not report.suppressed:
            raise ValueError("the open data is made from suppressed figures only")
    out.mkdir(parents=True, exist_ok=True)
    years = tuple(sorted({r.fiscal_year for r in reports}))
    shapes: dict[str, Table] = {}
    for report in reports:
        for table in report.tables:
            shapes.setdefault(table.id, table)
    written, dictionary = [], []
    for table_id, shape in shapes.items():
        name = resource_name(table_id, years)
        survey = set().union(
            *(csvfiles.survey_columns(t) for r in reports for t in r.tables if t.id == table_id)
        )
        table_fields = _fields_with(shape, survey)
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\r\n")
        writer.writerow([f.name for f in table_fields])
        for report in reports:
            for table in report.tables:
                if table.id == table_id:
                    writer.writerows(row_values(report, table, survey))
        (out / name).write_text(buffer.getvalue(), encoding="utf-8", newline="")
        written.append(out / name)
        dictionary += [(name, f) for f in table_fields]
    written += write_dictionaries(dictionary, out)
    return written


def _fields_with(table: Table, survey: set[str]) -> list[Field]:
    found = [Field(*lead) for lead in LEAD_FIELDS]
    for column in table.columns:
        found += figure_fields(column, column.id in survey)
    return found


#: The one-language dictionaries: their header, and which of a field's texts they take.
SINGLE_LANGUAGE = {
    "en": (("resource_name", "field_name", "data_type", "title", "description"), "en"),
    "fr": (("nom_ressource", "nom_champ", "type_donnees", "titre", "description"), "fr"),
}
TYPE_FR = {"integer": "entier", "decimal": "décimal", "text": "texte"}


def write_dictionaries(entries: list[tuple[str, Field]], out: Path) -> list[Path]:
    """The bilingual dictionary, and one in English and one in French with headers in their
    language (data-dictionary-en.csv, data-dictionary-fr.csv)."""
    written = [write_dictionary(entries, out / DICTIONARY)]
    for language, (head, _) in SINGLE_LANGUAGE.items():
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\r\n")
        writer.writerow(head)
        for resource, f in entries:
            english = language == "en"
            kind = f.data_type if english else TYPE_FR[f.data_type]
            title = f.title_en if english else f.title_fr
            description = f.description_en if english else f.description_fr
            writer.writerow([resource, f.name, kind, title, description])
        path = out / f"data-dictionary-{language}.csv"
        path.write_text(buffer.getvalue(), encoding="utf-8", newline="")
        written.append(path)
    return written


def write_dictionary(entries: list[tuple[str, Field]], path: Path) -> Path:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(DICTIONARY_HEADER)
    for resource, f in entries:
        writer.writerow(
            [
                resource,
                f.name,
                f.data_type,
                f.title_en,
                f.title_fr,
                f.description_en,
                f.description_fr,
            ]
        )
    path.write_text(buffer.getvalue(), encoding="utf-8", newline="")
    return path
