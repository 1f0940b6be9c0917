"""The fiscal years the funding model covers: the six Canada Job Fund years, 2014-15 to 2019-20."""

from __future__ import annotations

import datetime as dt
import re

from jobgrant.rules.codes import fiscal_year_label

FIRST_YEAR = 2014  # the renewed LMA / Canada Job Fund starts on 1 April 2014
LAST_YEAR = 2019  # the six-year agreements end on 31 March 2020
FULL_IMPLEMENTATION = "2017-18"  # Budget 2013: $300M a year "on full implementation in 2017-18"
MODEL_YEARS: tuple[str, ...] = tuple(
    fiscal_year_label(year) for year in range(FIRST_YEAR, LAST_YEAR + 1)
)
_LABEL = re.compile(r"^(\d{4})-(\d{2})$")


class FiscalYearError(ValueError):
    """A fiscal year that is malformed or outside the model."""


def start_year(label: str) -> int:
    """2017 for "2017-18"; FiscalYearError names the problem otherwise."""
    match = _LABEL.match(label)
    if match is None or (int(match.group(1)) + 1) % 100 != int(match.group(2)):
        raise FiscalYearError(f"{label!r} is not a fiscal year written like 2017-18")
    if label not in MODEL_YEARS:
        raise FiscalYearError(
            f"{label} is outside the model, which covers {MODEL_YEARS[0]} to {MODEL_YEARS[-1]}"
        )
    return int(match.group(1))


def first_day(label: str) -> dt.date:
    """April 1 of the fiscal year: the day on which its parameters are read."""
    return dt.date(start_year(label), 4, 1)
