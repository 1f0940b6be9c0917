"""Employer businesses by jurisdiction x size class x NAICS sector, derived from published totals.

Statistics Canada's Canadian Business Counts publish the full table, but it could not be read
from here; what could be read are figures of Key Small Business Statistics (August 2013): the
national small, medium and large counts, the share with 1-4 employees, and the small businesses
of Ontario, Quebec, British Columbia and Alberta. The table is therefore derived, exactly and
reproducibly, from `parameters/population.yaml` (each input sourced or marked as an assumption):

1. national count per size class: the published small-business total split by the size shares;
   the published medium count split by the medium split; the published large count;
2. each jurisdiction's small businesses: published for four provinces, the rest of the national
   total shared by the others' residents x businesses per 1,000; the small classes then filled
   with those row totals and the national class counts as column totals (`two_way`);
3. the medium and large classes apportioned across jurisdictions by residents x businesses per
   1,000;
4. each (jurisdiction, size class) apportioned across sectors by the sector shares.

Every apportionment is exact in integers (largest remainder), so the national, small, medium,
large and four provincial totals are the published figures to the business. `python -m
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
    medium, large = int(raw["national_medium"]["value"]), int(raw["national_large"]["value"])
    if small + medium + large != total:
        raise ValueError("population.yaml: small + medium + large must be the national total")
    shares = [_fraction(v) for v in raw["small_size_shares"]["value"].values()]
    first_four = apportion([total * s for s in shares])
    small_classes = [*first_four, small - sum(first_four)]
    split = _fraction(raw["medium_split"]["value"])
    first_medium = round(medium * split)
    return [*small_classes, first_medium, medium - first_medium, large]


def small_by_jurisdiction(weights: list[Fraction]) -> list[int]:
    """Each jurisdiction's small businesses: published where found, the rest of the national
    total shared by the others' weights."""
    raw = _inputs()
    published = {j: int(n) for j, n in raw["provincial_small"]["value"].items()}
    rest = int(raw["national_small"]["value"]) - sum(published.values())
    others = [j for j in JURISDICTION_CODES if j not in published]
    index = {j: i for i, j in enumerate(JURISDICTION_CODES)}
    shared = dict(zip(others, _split(rest, [weights[index[j]] for j in others]), strict=True))
    return [published.get(j, shared.get(j, 0)) for j in JURISDICTION_CODES]


def two_way(rows: list[int], columns: list[int]) -> list[list[int]]:
    """Integers with these row and column sums, each cell rounded from rows x columns / total:
    every cell floored, then the units still missing given, one at a time, to the cell of a row
    and a column that still miss one with the largest remainder."""
    total = sum(rows)
    exact = [[Fraction(r * c, total) for c in columns] for r in rows]
    cells = [[int(x) for x in row] for row in exact]
    left = [[x - int(x) for x in row] for row in exact]
    row_missing = [r - sum(row) for r, row in zip(rows, cells, strict=True)]
    column_missing = [
        c - sum(col) for c, col in zip(columns, zip(*cells, strict=True), strict=True)
    ]
    while any(row_missing):
        _, i, k = max(
            (left[i][k], i, k)
            for i, r in enumerate(row_missing)
            if r
            for k, c in enumerate(column_missing)
            if c
        )
        cells[i][k] += 1
        left[i][k] -= 1
        row_missing[i] -= 1
        column_missing[k] -= 1
    return cells


def derive() -> list[tuple[str, str, str, int]]:
    """(jurisdiction, size class, sector, businesses) for every cell."""
    raw = _inputs()
    residents = july_first_estimates()[POPULATION_YEAR]
    per_thousand = raw["businesses_per_thousand"]["value"]
    weights = [residents[j] * _fraction(per_thousand[j]) for j in JURISDICTION_CODES]
    sector_codes = sectors()
    sector_weights = [_fraction(v) for v in raw["sector_shares"]["value"].values()]
    national = national_by_size()
    # small classes: each jurisdiction's small total (published for four) by the national
    # class counts; medium and large classes: across jurisdictions by the weights
    small = two_way(small_by_jurisdiction(weights), national[:SMALL_CLASSES])
    larger = [_split(count, weights) for count in national[SMALL_CLASSES:]]
    rows: list[tuple[str, str, str, int]] = []
    for i, j in enumerate(JURISDICTION_CODES):
        counts = [*small[i], *(column[i] for column in larger)]
        for size, n in zip(SIZE_CLASSES, counts, strict=True):
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
