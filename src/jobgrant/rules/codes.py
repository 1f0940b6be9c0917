"""Code lists the rules depend on: jurisdictions, economic regions, fiscal years."""

from __future__ import annotations

import csv
import datetime as dt
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class Jurisdiction:
    code: str
    sgc: str
    name_en: str
    name_fr: str


#: Provinces and territories in the Statistics Canada order (GC data reference standard, D4).
JURISDICTIONS: tuple[Jurisdiction, ...] = (
    Jurisdiction("NL", "10", "Newfoundland and Labrador", "Terre-Neuve-et-Labrador"),
    Jurisdiction("PE", "11", "Prince Edward Island", "Île-du-Prince-Édouard"),
    Jurisdiction("NS", "12", "Nova Scotia", "Nouvelle-Écosse"),
    Jurisdiction("NB", "13", "New Brunswick", "Nouveau-Brunswick"),
    Jurisdiction("QC", "24", "Quebec", "Québec"),
    Jurisdiction("ON", "35", "Ontario", "Ontario"),
    Jurisdiction("MB", "46", "Manitoba", "Manitoba"),
    Jurisdiction("SK", "47", "Saskatchewan", "Saskatchewan"),
    Jurisdiction("AB", "48", "Alberta", "Alberta"),
    Jurisdiction("BC", "59", "British Columbia", "Colombie-Britannique"),
    Jurisdiction("YT", "60", "Yukon", "Yukon"),
    Jurisdiction("NT", "61", "Northwest Territories", "Territoires du Nord-Ouest"),
    Jurisdiction("NU", "62", "Nunavut", "Nunavut"),
)
JURISDICTION_CODES: tuple[str, ...] = tuple(j.code for j in JURISDICTIONS)
JURISDICTION_INDEX: dict[str, int] = {code: i for i, code in enumerate(JURISDICTION_CODES)}
TERRITORIES: frozenset[str] = frozenset({"YT", "NT", "NU"})


@dataclass(frozen=True)
class EconomicRegion:
    code: str
    jurisdiction: str
    name: str

    @property
    def display_name(self) -> str:
        """Statistics Canada writes compound names with "--"; people read an en dash."""
        return self.name.replace("--", "–")


@cache
def economic_regions() -> dict[str, EconomicRegion]:
    """The 76 economic regions of the 2016 SGC, keyed by their 4-digit code."""
    text = resources.files("jobgrant.data").joinpath("economic-regions.csv").read_text("utf-8")
    rows = csv.DictReader(text.splitlines())
    return {r["er_code"]: EconomicRegion(r["er_code"], r["province"], r["name"]) for r in rows}


def fiscal_year_start(day: dt.date) -> int:
    """The calendar year in which the fiscal year containing `day` begins (April 1)."""
    return day.year if day.month >= 4 else day.year - 1


def fiscal_year_label(start_year: int) -> str:
    """2014 -> "2014-15"."""
    return f"{start_year}-{(start_year + 1) % 100:02d}"


def fiscal_year(day: dt.date) -> str:
    """The fiscal year (April 1 to March 31) containing `day`, written "2014-15"."""
    return fiscal_year_label(fiscal_year_start(day))
