"""Employer businesses by jurisdiction x size class x NAICS sector, derived from published totals.

Statistics Canada's Canadian Business Counts publish the full table, but it could not be read
from here; what could be read are the national totals of Key Small Business Statistics (August
2013). The table is therefore derived, exactly and reproducibly, from `parameters/population.yaml`
(each input sourced or marked as an assumption):

1. national count per size class: the published small-business total split by the size shares,
   the rest (medium and large) split by the large share and the medium split;
2. each size class apportioned across jurisdictions by residents x businesses per 1,000;
3. each (jurisdiction, size class) apportioned across sectors by the sector shares.

Every apportionment is exact in integers (largest remainder), so the national total and the
small-business total are the published figures to the business. `python -m
jobgrant.simulation.derive` rewrites `data/employer-businesses-2013.csv`.
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from jobgrant.funding.apportion import apportion
from jobgrant.funding.population import july_first_estimates
from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.yamlio import load_yaml

SIZE_CLASSES: tuple[str, ...] = (
    "1-4",
    "5-9",
    "10-19",
    "20-49",
    "50-99",
    "100-199",
    "200-499",
    "500+",
)
#: Lowest and highest employees of each class (the 500+ upper bound is where the tail is cut).
SIZE_BOUNDS: tuple[tuple[int, int], ...] = (
    (1, 4),
    (5, 9),
    (10, 19),
    (20, 49),
    (50, 99),
    (100, 199),
    (200, 499),
    (500, 20000),
)
SMALL_CLASSES = 5  # 1-4 to 50-99: fewer than 100 employees
DATA_DIR = Path(__file__).resolve().parents[1] / "data"
COUNTS_CSV = DATA_DIR / "employer-businesses-2013.csv"
INPUTS = Path(__file__).parent / "parameters" / "population.yaml"
POPULATION_YEAR = 2013


@cache
def sectors() -> tuple[str, ...]:
    """The NAICS sector codes, in the order of the classification."""
    return tuple(_inputs()["sector_shares"]["value"])


def _inputs() -> dict[str, Any]:
    raw: dict[str, Any] = load_yaml(INPUTS)
    return raw


def _fraction(value: object) -> Fraction:
    return Fraction(Decimal(str(value)))


def national_by_size() -> list[int]:
    raw = _inputs()
    total, small = int(raw["national_total"]["value"]), int(raw["national_small"]["value"])
    shares = [_fraction(v) for v in raw["small_size_shares"]["value"].values()]
    first_four = apportion([total * s for s in shares])
    small_classes = [*first_four, small - sum(first_four)]
    rest = total - small
    large = round(rest and total * _fraction(raw["large_share"]["value"]))
    medium = rest - large
    split = _fraction(raw["medium_split"]["value"])
    first_medium = round(medium * split)
    return [*small_classes, first_medium, medium - first_medium, large]


def derive() -> list[tuple[str, str, str, int]]:
    """(jurisdiction, size class, sector, businesses) for every cell."""
    raw = _inputs()
    residents = july_first_estimates()[POPULATION_YEAR]
    per_thousand = raw["businesses_per_thousand"]["value"]
    weights = [residents[j] * _fraction(per_thousand[j]) for j in JURISDICTION_CODES]
    sector_codes = sectors()
    sector_weights = [_fraction(v) for v in raw["sector_shares"]["value"].values()]
    rows: list[tuple[str, str, str, int]] = []
    by_jurisdiction: dict[str, list[int]] = {j: [] for j in JURISDICTION_CODES}
    for count in national_by_size():
        for j, n in zip(JURISDICTION_CODES, _split(count, weights), strict=True):
            by_jurisdiction[j].append(n)
    for j in JURISDICTION_CODES:
        for size, n in zip(SIZE_CLASSES, by_jurisdiction[j], strict=True):
            for sector, m in zip(sector_codes, _split(n, sector_weights), strict=True):
                rows.append((j, size, sector, m))
    return rows


def _split(count: int, weights: list[Fraction]) -> list[int]:
    total = sum(weights, Fraction(0))
    return apportion([count * w / total for w in weights])


def counts_csv() -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["jurisdiction", "size_class", "sector", "businesses"])
    writer.writerows(derive())
    return out.getvalue()


def main() -> None:
    COUNTS_CSV.write_text(counts_csv(), encoding="utf-8")


if __name__ == "__main__":
    main()
