"""The synthetic employers: every employer business of the shipped counts, drawn from a seed.

Each draw keeps the shipped counts exactly (one employer per business in each jurisdiction x size
class x sector cell) and draws what the counts do not say: employees within the size class, and
the economic region within the jurisdiction (in proportion to the regions' weights).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from jobgrant.rules.batch import region_codes
from jobgrant.rules.codes import JURISDICTION_CODES, JURISDICTION_INDEX
from jobgrant.simulation.derive import COUNTS_CSV, DATA_DIR, SIZE_BOUNDS, SIZE_CLASSES, sectors

REGION_WEIGHTS_CSV = DATA_DIR / "economic-region-weights.csv"
I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Cells:
    """The shipped counts: one row per jurisdiction x size class x sector cell."""

    jurisdiction: npt.NDArray[np.int8]  # index into JURISDICTION_CODES
    size: npt.NDArray[np.int8]  # index into SIZE_CLASSES
    sector: npt.NDArray[np.int8]  # index into sectors()
    businesses: I64

    def __len__(self) -> int:
        return len(self.businesses)


@cache
def cells() -> Cells:
    sector_index = {code: i for i, code in enumerate(sectors())}
    size_index = {code: i for i, code in enumerate(SIZE_CLASSES)}
    with COUNTS_CSV.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return Cells(
        jurisdiction=np.array([JURISDICTION_INDEX[r["jurisdiction"]] for r in rows], np.int8),
        size=np.array([size_index[r["size_class"]] for r in rows], np.int8),
        sector=np.array([sector_index[r["sector"]] for r in rows], np.int8),
        businesses=np.array([int(r["businesses"]) for r in rows], np.int64),
    )


@cache
def region_tables() -> tuple[tuple[npt.NDArray[np.int16], npt.NDArray[np.float64]], ...]:
    """Per jurisdiction (JURISDICTION_CODES order): its region indexes and cumulative weights."""
    index = {code: i for i, code in enumerate(region_codes())}
    by_jurisdiction: dict[str, list[tuple[int, float]]] = {j: [] for j in JURISDICTION_CODES}
    with REGION_WEIGHTS_CSV.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            weight = float(row["population_thousands"])
            by_jurisdiction[row["province"]].append((index[row["er_code"]], weight))
    tables = []
    for j in JURISDICTION_CODES:
        regions = np.array([r for r, _ in by_jurisdiction[j]], np.int16)
        weights = np.array([w for _, w in by_jurisdiction[j]], np.float64)
        tables.append((regions, np.cumsum(weights) / weights.sum()))
    return tuple(tables)


@dataclass(frozen=True)
class Employers:
    """One row per employer business."""

    cell: npt.NDArray[np.int32]  # row in cells()
    jurisdiction: npt.NDArray[np.int8]
    size: npt.NDArray[np.int8]
    sector: npt.NDArray[np.int8]
    employees: I64
    region: npt.NDArray[np.int16]  # index into region_codes()

    def __len__(self) -> int:
        return len(self.cell)


def synthesize_employers(rng: np.random.Generator, values: dict[str, Any]) -> Employers:
    table = cells()
    cell = np.repeat(np.arange(len(table), dtype=np.int32), table.businesses)
    size = table.size[cell]
    return Employers(
        cell=cell,
        jurisdiction=table.jurisdiction[cell],
        size=size,
        sector=table.sector[cell],
        employees=_employees(rng, size, float(values["employees.pareto_shape"])),
        region=_regions(rng, table.jurisdiction[cell]),
    )


def _employees(rng: np.random.Generator, size: npt.NDArray[np.int8], shape: float) -> I64:
    """Log-uniform within the class bounds; a Pareto tail (cut at its upper bound) for 500+."""
    low = np.array([b[0] for b in SIZE_BOUNDS], np.float64)[size]
    high = np.array([b[1] for b in SIZE_BOUNDS], np.float64)[size] + 1
    u = rng.random(len(size))
    drawn = np.exp(np.log(low) + u * (np.log(high) - np.log(low)))
    largest = len(SIZE_BOUNDS) - 1
    tail = size == largest
    if tail.any():
        cut = 1 - (low[tail] / high[tail]) ** shape  # inverse CDF of the truncated Pareto
        drawn[tail] = low[tail] / (1 - u[tail] * cut) ** (1 / shape)
    employees: I64 = np.minimum(np.floor(drawn), high - 1).astype(np.int64)
    return employees


def _regions(rng: np.random.Generator, jurisdiction: npt.NDArray[np.int8]) -> npt.NDArray[np.int16]:
    region = np.empty(len(jurisdiction), np.int16)
    u = rng.random(len(jurisdiction))
    for j, (regions, cumulative) in enumerate(region_tables()):
        rows = np.flatnonzero(jurisdiction == j)
        picks = np.searchsorted(cumulative, u[rows], side="right")
        region[rows] = regions[np.minimum(picks, len(regions) - 1)]
    return region


def _skip_regions(
    rng: np.random.Generator, jurisdiction: npt.NDArray[np.int8]
) -> npt.NDArray[np.int16]:
    """No region (-1), with the generator moved on as `_regions` moves it."""
    rng.random(len(jurisdiction))
    return np.full(len(jurisdiction), -1, np.int16)
