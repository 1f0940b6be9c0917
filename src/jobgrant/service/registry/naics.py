"""NAICS Canada 2022 (Statistics Canada), shipped as data: employers carry a 6-digit code."""

from __future__ import annotations

import csv
from functools import cache
from importlib import resources

CANADIAN_INDUSTRY_LEVEL = "5"


@cache
def canadian_industries() -> dict[str, str]:
    """The 923 six-digit Canadian industries of NAICS Canada 2022, code -> English title."""
    text = resources.files("jobgrant.data").joinpath("naics-2022-structure-en.csv")
    rows = csv.DictReader(text.read_text("utf-8").splitlines())
    return {r["code"]: r["title_en"] for r in rows if r["level"] == CANADIAN_INDUSTRY_LEVEL}
