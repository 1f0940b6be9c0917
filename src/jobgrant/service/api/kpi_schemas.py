"""The shape of GET /kpis: the KpiReport of `outcomes.tables`, field for field.

Counts, cents and days are integers; a rate or an average is its numerator and denominator
(exact: the reader divides). A suppressed figure has every number null and says why
(`suppressed`: small or complementary). A survey figure carries its response rate."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from ninja import Field, Schema

from jobgrant.service.outcomes.tables import Unit

UnitName = Literal["people", "files", "cents", "days", "rate", "cents-per", "days-per"]
SuppressionName = Literal["", "small", "complementary"]

assert {str(unit) for unit in Unit} == set(UnitName.__args__)  # type: ignore[attr-defined]


class FigureOut(Schema):
    unit: UnitName
    value: int | None = None
    numerator: int | None = None
    denominator: int | None = None
    people: int | None = None
    suppressed: SuppressionName = ""
    response: FigureOut | None = None


class ColumnOut(Schema):
    id: str
    title_en: str
    title_fr: str
    unit: UnitName
    description_en: str
    description_fr: str


class RowOut(Schema):
    key: str
    label_en: str
    label_fr: str
    figures: dict[str, FigureOut]


class TableOut(Schema):
    id: str
    title_en: str
    title_fr: str
    columns: list[ColumnOut]
    rows: list[RowOut]
    note_en: str
    note_fr: str


class KpiReportOut(Schema):
    jurisdiction: str | None
    fiscal_year: str
    suppressed: bool
    threshold: int
    as_of: dt.datetime | None = Field(
        None,
        description="When the records behind the figures were read (the figures are as of then;"
        " Canada: its oldest jurisdiction's). Les chiffres sont en date de ce moment.",
    )
    tables: list[TableOut]
