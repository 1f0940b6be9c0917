"""Take-up: the probability that an employer applies in a year, by jurisdiction, size class and
sector, as a function of the employer's cash share of the training cost.

The share is the rules kernel's: for every cell it quotes a typical application (one trainee at
the cell's median cost, existing employee, the year's first intake day) under the scenario's
policy and delivery, once without and once with wages counted in kind, and blends the two by the
share of small-business trainees who count wages. Where the kernel finds no grant (Quebec under
the 2014 agreements), nobody applies.

    log-odds = size_logit[size] + sector_logit[sector] + jurisdiction logits + shift
               + ramp[program year] + share_slope x (employer cash share - reference share)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from jobgrant.rules.batch import (
    SETTINGS,
    STATUSES,
    Applications,
    Employers,
    QuoteBatch,
    Trainees,
)
from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.evaluate import evaluate
from jobgrant.simulation.derive import SIZE_BOUNDS, sectors
from jobgrant.simulation.population import cells
from jobgrant.simulation.scenario import Scenario

F64 = npt.NDArray[np.float64]


def cell_median_cost(values: dict[str, Any]) -> F64:
    """Median direct cost of one trainee in each cell, in dollars."""
    factor = values["course.sector_factor"]
    by_sector = np.array([factor[s] for s in sectors()], np.float64)
    cost: F64 = float(values["course.median_cost"]) * by_sector[cells().sector]
    return cost


def employer_cash_share(
    scenario: Scenario, year: str, opening: npt.NDArray[np.datetime64], values: dict[str, Any]
) -> tuple[F64, npt.NDArray[np.bool_]]:
    """Per cell: the employer's cash share of the direct cost, and whether a grant is offered."""
    table = cells()
    cost = np.round(cell_median_cost(values) * 100).astype(np.int64)
    hours = int(values["course.median_hours"]) * 100
    wages = np.round(float(values["in_kind.hourly_wage"]) * int(values["course.median_hours"]))
    applied = opening[table.jurisdiction]
    employees = np.array([b[0] for b in SIZE_BOUNDS], np.int64)[table.size]
    delivery = np.array(scenario.delivery(year), np.int8)[table.jurisdiction]
    shares = []
    for wages_in_kind in (0, int(wages) * 100):
        batch = _one_trainee_batch(table.jurisdiction, delivery, applied, hours, employees, cost)
        batch = _with_wages(batch, wages_in_kind)
        result = evaluate(batch, scenario.policy, library=scenario.library, engine="numpy")
        paid = result.trainees
        cash = paid.employer - paid.in_kind
        # a grant is offered where government pays a share (the typical application may still
        # fail a rule, e.g. Nova Scotia's $5,000 minimum: applications below it are refused)
        shares.append((cash / np.maximum(cost, 1), paid.government > 0))
    claim = float(values["in_kind.claim_share"])
    small = table.size < 4  # 1-49 employees: small business under every shipped rule
    blended = np.where(small, (1 - claim) * shares[0][0] + claim * shares[1][0], shares[0][0])
    return blended, shares[0][1]


def _one_trainee_batch(
    jurisdiction: npt.NDArray[np.int8],
    delivery: npt.NDArray[np.int8],
    applied: npt.NDArray[np.datetime64],
    hours: int,
    employees: npt.NDArray[np.int64],
    cost: npt.NDArray[np.int64],
) -> QuoteBatch:
    n = len(jurisdiction)
    rows = np.arange(n, dtype=np.int32)
    offsets = np.arange(n + 1, dtype=np.int64)
    start = applied + np.timedelta64(60, "D")
    zeros = np.zeros(n, np.int64)
    return QuoteBatch(
        Applications(
            jurisdiction=jurisdiction,
            region=np.full(n, -1, np.int16),
            delivery=delivery,
            application_date=applied,
            start_date=start,
            end_date=start + np.timedelta64(30, "D"),
            hours=np.full(n, hours, np.int64),
            third_party=np.ones(n, np.bool_),
            setting=np.full(n, SETTINGS.index("off-site"), np.int8),
            employer_offsets=offsets,
        ),
        Employers(employees, zeros, offsets, rows),
        Trainees(
            tuition=cost,
            student_fees=zeros,
            materials=zeros,
            exam_fees=zeros,
            wages_in_kind=zeros,
            status=np.full(n, STATUSES.index("existing-employee"), np.int8),
            employer=rows,
            application=rows,
        ),
    )


def _with_wages(batch: QuoteBatch, cents: int) -> QuoteBatch:
    if cents == 0:
        return batch
    t = batch.trainees
    wages = np.full(len(t), cents, np.int64)
    trainees = Trainees(
        t.tuition,
        t.student_fees,
        t.materials,
        t.exam_fees,
        wages,
        t.status,
        t.employer,
        t.application,
    )
    return QuoteBatch(batch.applications, batch.employers, trainees)


def take_up_probability(
    share: F64, offered: npt.NDArray[np.bool_], values: dict[str, Any], program_year: int = 2
) -> F64:
    """Per cell; `program_year` counts the grant's fiscal years from 0 (2014-15)."""
    table = cells()
    size_logit = np.array(values["take_up.size_logit"], np.float64)[table.size]
    sector_effect = values["take_up.sector_logit"]
    sector_logit = np.array([sector_effect[s] for s in sectors()], np.float64)[table.sector]
    slope, reference = (
        float(values["take_up.share_slope"]),
        float(values["take_up.reference_share"]),
    )
    ramp = values["take_up.ramp"]
    shift = float(values["take_up.shift"]) + float(ramp[min(program_year, len(ramp) - 1)])
    place = [float(values["take_up.jurisdiction_logit"][j]) for j in JURISDICTION_CODES]
    if program_year == 0:
        first = values["take_up.first_year_jurisdiction_logit"]
        place = [p + float(first[j]) for p, j in zip(place, JURISDICTION_CODES, strict=True)]
    place_logit = np.array(place, np.float64)[table.jurisdiction]
    logit = size_logit + sector_logit + place_logit + shift + slope * (share - reference)
    probability: F64 = np.where(offered, 1 / (1 + np.exp(-logit)), 0.0)
    return probability
