"""The shape of GET /kpis: the KpiReport of `outcomes.tables`, field for field.

Each figure gives its value beside its terms: counts, days and minutes as integers; money as a
decimal string of dollars ("1400.00"), as everywhere else in the API; a rate as a decimal string
to four places ("0.6667") with its numerator and denominator; an average cost ("money-per") in
dollars to the cent with its numerator (dollars) and denominator (people); an average of days to
one decimal with its numerator and denominator. A rate or an average over nobody has no value. A
suppressed figure has every number null and says why (`suppressed`: small or complementary). A
survey figure carries its response rate."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from ninja import Field, Schema

from jobgrant.service.outcomes.tables import Unit

UnitName = Literal[
    "people",
    "files",
    "money",
    "days",
    "rate",
    "money-per",
    "days-per",
    "minutes",
    "count",
    "points",
]
SuppressionName = Literal["", "small", "complementary"]

#: The API's name of each unit: money is in dollars there, never in cents.
UNIT_NAMES: dict[Unit, str] = {
    Unit.PEOPLE: "people",
    Unit.FILES: "files",
    Unit.CENTS: "money",
    Unit.DAYS: "days",
    Unit.RATE: "rate",
    Unit.CENTS_PER: "money-per",
    Unit.DAYS_PER: "days-per",
    Unit.MINUTES: "minutes",
    Unit.COUNT: "count",
    Unit.POINTS: "points",
}
assert set(UNIT_NAMES) == set(Unit)
assert set(UNIT_NAMES.values()) == set(UnitName.__args__)  # type: ignore[attr-defined]


class FigureOut(Schema):
    unit: UnitName
    value: int | str | None = Field(
        None,
        description="The figure: people, files, days, minutes and counts as integers; money as a"
        ' decimal string of dollars ("1400.00"); a rate as a decimal string to four places'
        ' ("0.6667"); a'
        ' money-per as dollars to the cent ("23952.43"); a days-per to one decimal ("12.5");'
        " points (a net difference of"
        " percentages, or a bound of its 95 % interval) as a decimal string of percentage points"
        ' ("-4.57").'
        " Null when suppressed, or for a rate or an average over nobody. La valeur du chiffre.",
        examples=[17, "1400.00", "0.6667"],
    )
    numerator: int | str | None = Field(
        None,
        description="A rate's or an average's numerator: people or days as an integer, money"
        ' as a decimal string of dollars ("987654.32"). Le numérateur.',
    )
    denominator: int | None = Field(None, description="Its denominator. Le dénominateur.")
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
