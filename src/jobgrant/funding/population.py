"""Statistics Canada's July 1 population estimates by province and territory (see data/SOURCES.md).

The July 1 2013 preliminary estimates (the figures of the 2013 dispute) come from their own file;
July 1 2011 and 2012 come from the quarterly table. The funding model allocates by the year named
in the `funding.population_year` parameter.
"""

from __future__ import annotations

import csv
from functools import cache
from importlib import resources

from jobgrant.rules.codes import JURISDICTION_CODES

FILES = ("population-quarterly-2011-2013.csv", "population-july-1-2013.csv")
SOURCE = {
    "title": (
        "Statistics Canada, July 1 population estimates by province and territory "
        "(91-215-X 2013 for 2013, 91-002-X Table 1-1 for 2011-2012); see data/SOURCES.md"
    ),
    "href": "https://www150.statcan.gc.ca/n1/pub/91-215-x/2013002/part-partie1-eng.htm",
}


@cache
def july_first_estimates() -> dict[int, dict[str, int]]:
    """{year: {jurisdiction code: population on July 1 of that year}} for every year shipped."""
    estimates: dict[int, dict[str, int]] = {}
    for name in FILES:
        text = resources.files("jobgrant.data").joinpath(name).read_text("utf-8")
        for row in csv.DictReader(text.splitlines()):
            if row["date"].endswith("-07-01"):
                estimates[int(row["date"][:4])] = {j: int(row[j]) for j in JURISDICTION_CODES}
    return estimates


def published_canada_totals() -> dict[int, int]:
    """The Canada column as published, to check that the jurisdictions add up to it."""
    totals: dict[int, int] = {}
    for name in FILES:
        text = resources.files("jobgrant.data").joinpath(name).read_text("utf-8")
        for row in csv.DictReader(text.splitlines()):
            if row["date"].endswith("-07-01"):
                totals[int(row["date"][:4])] = int(row["Canada"])
    return totals
