"""The applications of one year: who applies (take-up), when, with which trainees and costs.

Everything is drawn with numpy from the draw's generator, column by column; the result is a
`QuoteBatch` for the rules kernel, in the order the applications arrive.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from jobgrant.rules.batch import (
    COST_CATEGORIES,
    SETTINGS,
    STATUSES,
    Applications,
    Employers,
    QuoteBatch,
    Trainees,
)
from jobgrant.simulation.population import _employees, _regions, _skip_regions, cells
from jobgrant.simulation.takeup import cell_median_cost

I64 = npt.NDArray[np.int64]
MIN_HOURS = 25  # at least the highest minimum of the shipped rules (Alberta's)
MAX_DURATION_DAYS = 300  # within every shipped limit (52 weeks)
SMALL_BUSINESS = 50  # employees: wages count in kind up to here (the kernel applies the rule)


@dataclass(frozen=True)
class YearApplications:
    batch: QuoteBatch
    size: npt.NDArray[np.int8]  # per employer row
    sector: npt.NDArray[np.int8]  # per employer row


def draw_applications(
    rng: np.random.Generator,
    probability: npt.NDArray[np.float64],
    year_start: dt.date,
    opening: npt.NDArray[np.datetime64],
    delivery: npt.NDArray[np.int8],
    values: dict[str, Any],
    regions: bool = True,
) -> YearApplications:
    table = cells()
    # Each business applies with its cell's probability: the count per cell is binomial.
    applying = rng.binomial(table.businesses, probability)
    cell = np.repeat(np.arange(len(table), dtype=np.int32), applying)
    jurisdiction, size = table.jurisdiction[cell], table.size[cell]
    employees = _employees(rng, size, float(values["employees.pareto_shape"]))
    # the regions' random numbers are drawn even when unused, so a draw's other figures do not
    # depend on whether the policy has regional rules
    region = _regions(rng, jurisdiction) if regions else _skip_regions(rng, jurisdiction)
    arrival = _arrival(rng, jurisdiction, year_start, opening, values)
    # arrival order, ties at random: the day plus a fraction sorts as (day, random) would
    order = np.argsort(arrival.astype(np.int64) + rng.random(len(cell)))
    cell, jurisdiction, size = cell[order], jurisdiction[order], size[order]
    employees, region, arrival = employees[order], region[order], arrival[order]
    application = _consortia(rng, jurisdiction, float(values["consortium.share"]))
    grouped = np.argsort(application, kind="stable")  # employers grouped by application
    cell, size, employees = cell[grouped], size[grouped], employees[grouped]
    owner = application[grouped]
    n_apps = int(owner[-1]) + 1 if len(owner) else 0
    # first employer of each application: owner is sorted and numbers every application
    lead = np.flatnonzero(np.concatenate(([True], owner[1:] != owner[:-1])))
    counts = 1 + rng.poisson(np.array(values["trainees.extra_by_size"], np.float64)[size])
    counts = np.minimum(counts, np.maximum(employees, 1))
    first = grouped[lead]  # the lead employers' rows in arrival order
    apps = _application_columns(
        rng,
        jurisdiction[first],
        region[first] if regions else None,
        arrival[first],
        delivery,
        owner,
        n_apps,
        values,
    )
    trainee_offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    trainees = _trainees(rng, cell, employees, counts, owner, apps.hours, values)
    employer_rows = Employers(
        employees=employees,
        approved_this_fiscal_year=np.zeros(len(cell), np.int64),
        trainee_offsets=trainee_offsets,
        application=owner.astype(np.int32),
    )
    return YearApplications(QuoteBatch(apps, employer_rows, trainees), size, table.sector[cell])


def _choice(
    rng: np.random.Generator, shares: npt.NDArray[np.float64], n: int
) -> npt.NDArray[np.int8]:
    """n draws of an index with probabilities `shares` (normalized); faster than rng.choice."""
    cumulative = np.cumsum(shares) / shares.sum()
    u = rng.random(n)
    last = len(shares) - 1
    if last > 3:
        return np.minimum(np.searchsorted(cumulative, u, side="right"), last).astype(np.int8)
    # a few choices: count the bounds at or below u (what searchsorted's side="right" finds)
    picks = np.zeros(n, np.int8)
    for bound in cumulative[:last]:
        picks += u >= bound
    return picks


def _arrival(
    rng: np.random.Generator,
    jurisdiction: npt.NDArray[np.int8],
    year_start: dt.date,
    opening: npt.NDArray[np.datetime64],
    values: dict[str, Any],
) -> npt.NDArray[np.datetime64]:
    """Application dates: a month by the monthly weights from the intake's opening, a day at
    random within it (never before the opening)."""
    n_j, n = len(opening), len(jurisdiction)
    months = np.datetime64(year_start, "M") + np.arange(13)
    month_starts = months.astype("datetime64[D]")
    first = np.maximum(opening, np.datetime64(year_start, "D"))  # per jurisdiction
    weights = np.array(values["arrival.monthly_weights"], np.float64)
    # months before the opening get no weight; rows j of `cumulative` run from 0 to 1, shifted by
    # j, so one searchsorted over the flattened table picks every row's month at once
    open_months = np.where(month_starts[None, 1:] > first[:, None], weights[None, :], 0.0)
    cumulative = np.cumsum(open_months, axis=1) / open_months.sum(axis=1, keepdims=True)
    shifted = (cumulative + np.arange(n_j)[:, None]).ravel()
    j = jurisdiction.astype(np.int64)
    picks = np.searchsorted(shifted, rng.random(n) + j, side="right") - j * 12
    m = np.clip(picks, 0, 11)
    low = np.maximum(month_starts[m], first[j])
    span = (month_starts[m + 1] - low).astype(np.int64)
    arrival: npt.NDArray[np.datetime64] = low + (rng.random(n) * span).astype(np.int64)
    return arrival


def _consortia(rng: np.random.Generator, jurisdiction: npt.NDArray[np.int8], share: float) -> I64:
    """Application number of each employer (in arrival order): a consortium joiner applies
    with the next joiner of its jurisdiction, on the earlier one's application."""
    n = len(jurisdiction)
    joiner = np.flatnonzero(rng.random(n) < share)
    joiner = joiner[np.argsort(jurisdiction[joiner], kind="stable")]
    # within each jurisdiction's run of joiners, pairs (0, 1), (2, 3), ...: the second of each
    # pair joins the first's application (an odd one out at the end of a run applies alone)
    k = np.arange(len(joiner))
    starts = np.concatenate(([True], jurisdiction[joiner[1:]] != jurisdiction[joiner[:-1]]))
    run_start = np.maximum.accumulate(np.where(starts, k, 0))
    second = (k - run_start) % 2 == 1
    partner_of = np.full(n, -1, np.int64)
    partner_of[joiner[second]] = joiner[k[second] - 1]
    lead = np.where(partner_of >= 0, partner_of, np.arange(n))
    is_lead = partner_of < 0
    number = np.cumsum(is_lead) - 1
    application: I64 = number[lead]
    return application


def _application_columns(
    rng: np.random.Generator,
    jurisdiction: npt.NDArray[np.int8],
    region: npt.NDArray[np.int16] | None,
    applied: npt.NDArray[np.datetime64],
    delivery: npt.NDArray[np.int8],
    owner: I64,
    n: int,
    values: dict[str, Any],
) -> Applications:
    low, high = values["arrival.lead_days"]
    lead = rng.integers(int(low), int(high) + 1, n)
    hours = np.maximum(
        np.round(float(values["course.median_hours"]) * np.exp(rng.normal(0, 0.7, n))), MIN_HOURS
    ).astype(np.int64)
    weeks = np.ceil(hours / float(values["course.hours_per_week"])).astype(np.int64)
    duration = np.minimum(weeks * 7, MAX_DURATION_DAYS)
    start = applied + lead.astype("timedelta64[D]")
    shares = np.array([values["course.setting"][s] for s in SETTINGS], np.float64)
    return Applications(
        jurisdiction=jurisdiction,
        region=np.full(n, -1, np.int16) if region is None else region,
        delivery=delivery[jurisdiction],
        application_date=applied,
        start_date=start,
        end_date=start + (duration - 1).astype("timedelta64[D]"),
        hours=hours * 100,
        third_party=np.ones(n, np.bool_),
        setting=_choice(rng, shares, n),
        employer_offsets=np.concatenate(([0], np.cumsum(np.bincount(owner, minlength=n)))),
    )


def _trainees(
    rng: np.random.Generator,
    cell: npt.NDArray[np.int32],
    employees: I64,
    counts: I64,
    owner: I64,
    hours: I64,
    values: dict[str, Any],
) -> Trainees:
    employer = np.repeat(np.arange(len(cell), dtype=np.int32), counts)
    n = len(employer)
    status_shares = np.array([values["trainees.status"][s] for s in STATUSES], np.float64)
    status = _choice(rng, status_shares, n)
    # cents, lognormal around the cell's median (the log of the median per employer, repeated)
    log_median = np.log(cell_median_cost(values) * 100)[cell]
    drawn = rng.standard_normal(n)
    drawn *= float(values["course.cost_sigma"])
    drawn += np.repeat(log_median, counts)
    np.exp(drawn, out=drawn)
    np.minimum(drawn, float(values["course.max_cost"]) * 100, out=drawn)
    cents = np.rint(drawn).astype(np.int64)
    split = values["course.cost_split"]
    # each part rounded down in whole cents; tuition takes the rest, so the four add up
    parts = [(cents * round(float(split[c]) * 10_000)) // 10_000 for c in COST_CATEGORIES[1:]]
    tuition = cents - parts[0] - parts[1] - parts[2]
    application = owner[employer].astype(np.int32)
    claims = (
        (employees[employer] <= SMALL_BUSINESS)
        & (status == STATUSES.index("existing-employee"))
        & (rng.random(n) < float(values["in_kind.claim_share"]))
    )
    wage = round(float(values["in_kind.hourly_wage"]) * 100)
    wages = np.zeros(n, np.int64)
    claiming = np.flatnonzero(claims)  # a few trainees: their wages only
    wages[claiming] = hours[application[claiming]] // 100 * wage
    return Trainees(tuition, parts[0], parts[1], parts[2], wages, status, employer, application)
