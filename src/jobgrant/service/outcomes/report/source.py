"""Where the report's figures come from: the stored KPI cells (`outcomes.snapshots.read`, which
adds them up as `outcomes.kpis.compute` does), always with suppression on (the report is
published). The one place that calls it, so the CLI, the page and the open data read the same
figures; and the check of a report's options, shared by the CLI and the page, so both refuse the
same things in the same words."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from jobgrant.rules.codes import JURISDICTIONS, fiscal_year_label, fiscal_year_start
from jobgrant.service.outcomes.tables import KpiReport

NATIONAL = "CA"  # the national report: every jurisdiction summed, federal-direct files apart
CODES = tuple(j.code for j in JURISDICTIONS)
FISCAL_YEAR = re.compile(r"^(\d{4})-(\d{2})$")
OTTAWA = ZoneInfo("America/Toronto")
FIRST_YEAR = 2014  # the Canada Job Grant began in 2014-15


@dataclass(frozen=True)
class Problem:
    """A bad option: which one, and what is wrong with it in English and in French."""

    field: str
    en: str
    fr: str


def jurisdiction_problem(value: str | None) -> Problem | None:
    if value is None or value.upper() in (*CODES, NATIONAL):
        return None
    codes = ", ".join((*CODES, NATIONAL))
    return Problem(
        "jurisdiction",
        f"must be a province or territory code ({codes}), not {value!r}",
        f"doit être le code d'une province ou d'un territoire ({codes}), et non {value!r}",
    )


def fiscal_year_problem(value: str | None) -> Problem | None:
    if not value:
        return Problem(
            "fiscal_year",
            "required (a fiscal year like 2015-16)",
            "obligatoire (un exercice comme 2015-16)",
        )
    match = FISCAL_YEAR.match(value)
    # Up to the fiscal year under way: a later one has no records (and reading it would store
    # empty KPI cells for nothing).
    current = fiscal_year_start(dt.datetime.now(OTTAWA).date())
    start = int(match[1]) if match else 0
    if match and FIRST_YEAR <= start <= current and (start + 1) % 100 == int(match[2]):
        return None
    last = fiscal_year_label(current)
    return Problem(
        "fiscal_year",
        f"must be a fiscal year like 2015-16, from 2014-15 to {last}, not {value!r}",
        f"doit être un exercice comme 2015-16, de 2014-15 à {last}, et non {value!r}",
    )


def last_fiscal_year(today: dt.date | None = None) -> str:
    """The last fiscal year (April 1 to March 31) that has ended by `today` (by default today
    in Ottawa's time zone)."""
    day = today or dt.datetime.now(OTTAWA).date()
    return fiscal_year_label(fiscal_year_start(day) - 1)


def jurisdiction_of(value: str | None) -> str | None:
    """The KPIs' jurisdiction: None for the national report (no option, or CA)."""
    if value is None or value.upper() == NATIONAL:
        return None
    return value.upper()


def annual_report(jurisdiction: str | None, fiscal_year: str) -> KpiReport:
    """The suppressed KPIs of one jurisdiction (None: Canada) for one fiscal year, and the
    decisions taken against an intake's ranking (report/integrity.py: counts of files, read
    from the records, never about people)."""
    from jobgrant.service.outcomes import snapshots
    from jobgrant.service.outcomes.report.integrity import with_out_of_rank

    return with_out_of_rank(snapshots.read(jurisdiction, fiscal_year, suppress=True))
