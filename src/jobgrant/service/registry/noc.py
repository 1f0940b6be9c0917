"""NOC 2021 (Statistics Canada), shipped as data: a participant's occupation before training."""

from __future__ import annotations

import csv
from functools import cache
from importlib import resources


@cache
def noc_unit_groups() -> dict[str, tuple[str, str]]:
    """The 516 five-digit unit groups of NOC 2021 v1.0, code -> (English title, French title)."""
    text = resources.files("jobgrant.data").joinpath("noc-2021-unit-groups.csv")
    rows = csv.DictReader(text.read_text("utf-8").splitlines())
    return {r["code"]: (r["title_en"], r["title_fr"]) for r in rows}
