"""The shipped employer counts and the synthetic employers drawn from them."""

from __future__ import annotations

import numpy as np
import polars as pl

from jobgrant.rules.batch import region_codes
from jobgrant.rules.codes import JURISDICTION_CODES, economic_regions
from jobgrant.simulation.derive import COUNTS_CSV, SIZE_BOUNDS, SIZE_CLASSES, counts_csv, sectors
from jobgrant.simulation.parameters import SimulationParameters
from jobgrant.simulation.population import cells, synthesize_employers

PUBLISHED_TOTAL = 1_107_540  # Key Small Business Statistics, August 2013
PUBLISHED_SMALL = 1_087_803


def shipped() -> pl.DataFrame:
    return pl.read_csv(COUNTS_CSV, schema_overrides={"sector": pl.Utf8})


def test_the_shipped_counts_add_up_to_the_published_totals() -> None:
    table = shipped()
    assert table["businesses"].sum() == PUBLISHED_TOTAL
    small = table.filter(pl.col("size_class").is_in(list(SIZE_CLASSES[:5])))
    assert small["businesses"].sum() == PUBLISHED_SMALL
    assert set(table["jurisdiction"]) == set(JURISDICTION_CODES)
    assert set(table["size_class"]) == set(SIZE_CLASSES)
    assert set(table["sector"]) == set(sectors())
    assert table.height == len(JURISDICTION_CODES) * len(SIZE_CLASSES) * len(sectors())


def test_the_shipped_counts_keep_every_other_published_figure() -> None:
    """Key Small Business Statistics, August 2013 (population.yaml): medium and large
    businesses nationally, and the small businesses of four provinces."""
    table = shipped()
    by_size = dict(table.group_by("size_class").agg(pl.col("businesses").sum()).iter_rows())
    assert by_size["100-199"] + by_size["200-499"] == 18_169
    assert by_size["500+"] == 1_568
    assert round(by_size["1-4"] / PUBLISHED_TOTAL, 3) == 0.551
    small = table.filter(pl.col("size_class").is_in(list(SIZE_CLASSES[:5])))
    per_province = dict(small.group_by("jurisdiction").agg(pl.col("businesses").sum()).iter_rows())
    published = {"ON": 381_001, "QC": 232_531, "BC": 169_178, "AB": 151_866}
    assert {j: per_province[j] for j in published} == published


def test_the_shipped_csv_is_what_the_derivation_gives() -> None:
    assert COUNTS_CSV.read_text(encoding="utf-8") == counts_csv()


def test_one_synthetic_employer_per_business_with_employees_in_its_class() -> None:
    values = SimulationParameters().draw(None)
    employers = synthesize_employers(np.random.Generator(np.random.PCG64(7)), values)
    assert len(employers) == PUBLISHED_TOTAL
    assert np.array_equal(np.bincount(employers.cell, minlength=len(cells())), cells().businesses)
    low = np.array([b[0] for b in SIZE_BOUNDS])[employers.size]
    high = np.array([b[1] for b in SIZE_BOUNDS])[employers.size]
    assert ((employers.employees >= low) & (employers.employees <= high)).all()
    regions = economic_regions()
    codes = region_codes()
    sample = np.random.default_rng(0).choice(len(employers), 5000, replace=False)
    for row in sample:
        region = regions[codes[employers.region[row]]]
        assert region.jurisdiction == JURISDICTION_CODES[employers.jurisdiction[row]]
