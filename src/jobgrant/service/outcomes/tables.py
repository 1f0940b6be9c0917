"""The shape every KPI figure takes, from the SQL that computes it to the page, the API, the PDF,
the CSV and the open data that show it. Pure data: no Django, no database.

A figure is exact: counts and cents are integers; a rate or an average is kept as its numerator
and denominator (a completion rate is 412 / 530 people; a cost per trainee is 2,061,250,000 cents
/ 530 trainees), and only the edges round it for people to read. A figure knows how many people
it is about, so that suppression (fewer than 10 people, and the complementary cell that would let
a suppressed one be worked out) can hide it; a survey figure carries its response rate.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from enum import StrEnum


class Unit(StrEnum):
    PEOPLE = "people"  # value: a count of people
    FILES = "files"  # value: a count of applications (files)
    CENTS = "cents"  # value: money in cents
    DAYS = "days"  # value: a number of days
    RATE = "rate"  # numerator / denominator, shown as a percentage
    CENTS_PER = "cents-per"  # numerator cents / denominator people, shown as money
    DAYS_PER = "days-per"  # numerator days / denominator payments, shown as days (an average)
    MINUTES = "minutes"  # value: a number of whole minutes (a median time)
    COUNT = "count"  # value: a count of things done (steps timed, errors shown)
    POINTS = "points"  # value: hundredths of a percentage point (a net difference, a bound)


class Suppression(StrEnum):
    SHOWN = ""
    SMALL = "small"  # about fewer than the threshold of people
    COMPLEMENTARY = "complementary"  # would let a suppressed cell be worked out


@dataclass(frozen=True)
class Figure:
    unit: Unit
    value: int | None = None  # PEOPLE, FILES, CENTS, DAYS
    numerator: int | None = None  # RATE, CENTS_PER, DAYS_PER
    denominator: int | None = None
    people: int | None = None  # how many people it is about; None: not about people (money)
    suppressed: Suppression = Suppression.SHOWN
    response: Figure | None = None  # a survey figure's response rate (a RATE figure)

    @property
    def shown(self) -> bool:
        return self.suppressed is Suppression.SHOWN


@dataclass(frozen=True)
class Column:
    id: str  # stable: the CSV header, the API key, the open data's field name
    title_en: str
    title_fr: str
    unit: Unit
    description_en: str = ""  # the data dictionary's definition
    description_fr: str = ""


@dataclass(frozen=True)
class Row:
    key: str  # stable: "ON", "1-49", "woman", "total"
    label_en: str
    label_fr: str
    figures: dict[str, Figure]  # by Column.id


@dataclass(frozen=True)
class Table:
    id: str  # stable: "headline", "by-firm-size", "by-gender", ...
    title_en: str
    title_fr: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    note_en: str = ""
    note_fr: str = ""


@dataclass(frozen=True)
class KpiReport:
    """The KPIs of one jurisdiction (or of Canada: jurisdiction None) for one fiscal year."""

    jurisdiction: str | None
    fiscal_year: str
    tables: tuple[Table, ...]
    suppressed: bool = True  # False only for auditors: every cell shown
    threshold: int = 10
    notes: tuple[str, ...] = field(default=())
    #: When the records were read: the stored cells' time (the oldest, for Canada), or None
    #: for a report computed from the records just now (`kpis.compute`).
    as_of: dt.datetime | None = None

    def table(self, table_id: str) -> Table:
        return next(table for table in self.tables if table.id == table_id)
