"""One fiscal year of one draw: take-up, the applications, the kernel, the budgets.

Budgets are spent first come, first served within each jurisdiction's intake: applications the
kernel finds eligible are approved in the order they arrive while the federal and the provincial
budget both cover their shares; the intake closes at the first one they cannot cover (the
exhaustion date), and every later application is turned away. Nothing is ever overspent.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from jobgrant.funding.years import FIRST_YEAR
from jobgrant.rules.batch import QuoteBatch
from jobgrant.rules.chunks import chunks
from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.population import evaluate_in_chunks
from jobgrant.simulation.applications import draw_applications
from jobgrant.simulation.derive import SIZE_CLASSES, sectors
from jobgrant.simulation.scenario import Scenario, first_day
from jobgrant.simulation.takeup import employer_cash_share, take_up_probability

F64 = npt.NDArray[np.float64]
NATIONAL = "CA"
PLACES = (*JURISDICTION_CODES, NATIONAL)
MONTHS = 12
APPROVED, TURNED_AWAY, REFUSED = 0, 1, 2  # an application's outcome
OUTCOMES = 3


#: The figures that are money: computed in exact integer cents (`_figures`, `_budgets`), put in
#: the figures (float64 dollars) by one division each, so that the nearest cent of a figure is
#: always its exact amount; the CSV writes them as cents with two decimals (`output`).
MONEY_MEASURES = (
    "federal",
    "provincial",
    "government",
    "employer",
    "in_kind",
    "budget_federal",
    "budget_provincial",
    "left_federal",
    "left_provincial",
)


def measures() -> tuple[str, ...]:
    """The figures reported for every jurisdiction and year, in column order."""
    base = (
        "applications",
        "applications_approved",
        "applications_turned_away",
        "applications_refused_by_rules",
        "employers_approved",
        "employers_turned_away",
        "trainees_approved",
        "trainees_turned_away",
        "federal",
        "provincial",
        "government",
        "employer",
        "in_kind",
        "budget_federal",
        "budget_provincial",
        "left_federal",
        "left_provincial",
        "exhausted",
        "exhaustion_day",
    )
    by_size = [f"employers_approved.size.{s}" for s in SIZE_CLASSES]
    by_size += [f"employers_turned_away.size.{s}" for s in SIZE_CLASSES]
    by_size += [f"take_up.size.{s}" for s in SIZE_CLASSES]
    by_sector = [f"employers_approved.sector.{s}" for s in sectors()]
    by_sector += [f"employers_turned_away.sector.{s}" for s in sectors()]
    months = [f"spent_share.month.{m:02d}" for m in range(1, MONTHS + 1)]
    return (*base, *by_size, *by_sector, *months)


def opening_days(year: str, values: dict[str, Any]) -> npt.NDArray[np.datetime64]:
    start = first_day(year)
    first = values["arrival.first_intake"]
    days = [
        max(_date(first[j]), start) if start.year == 2014 else start for j in JURISDICTION_CODES
    ]
    return np.array(days, "datetime64[D]")


def _date(value: object) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value))


@dataclass(frozen=True)
class Money:
    """Per application, int64 cents."""

    federal: npt.NDArray[np.int64]
    provincial: npt.NDArray[np.int64]
    government: npt.NDArray[np.int64]
    employer: npt.NDArray[np.int64]
    in_kind: npt.NDArray[np.int64]


@dataclass(frozen=True)
class Quoted:
    """What the figures need of the kernel's evaluation: per application, eligible and money."""

    eligible: npt.NDArray[np.bool_]
    applications: Money


def quote(scenario: Scenario, batch: QuoteBatch, keep_freed: bool = True) -> Quoted:
    """The kernel over the year's applications a chunk at a time (jobgrant.rules.population):
    the same figures as one evaluation of the whole batch, in a chunk's working set."""
    parts = list(
        evaluate_in_chunks(
            chunks(batch),
            scenario.policy,
            library=scenario.library,
            engine="numpy",
            keep_freed=keep_freed,
        )
    )

    def joined(column: Any) -> Any:
        pieces = [column(p) for p in parts]
        return np.concatenate(pieces) if pieces else np.zeros(0, np.int64)

    money = Money(
        *(joined(lambda p, n=name: getattr(p.applications, n)) for name in fields_of_money())
    )
    return Quoted(joined(lambda p: p.eligible).astype(np.bool_), money)


def fields_of_money() -> tuple[str, ...]:
    return ("federal", "provincial", "government", "employer", "in_kind")


def simulate_year(
    rng: np.random.Generator,
    scenario: Scenario,
    year: str,
    values: dict[str, Any],
    keep_freed: bool = True,
) -> F64:
    """(len(PLACES), len(measures())) figures for one year; money in dollars. `keep_freed`:
    the process keeps freed memory for the next chunk (jobgrant.rules.memory); a process that
    does other work afterwards (the service's worker) passes False."""
    opening = opening_days(year, values)
    share, offered = _shares(scenario, year)
    program_year = first_day(year).year - FIRST_YEAR
    probability = take_up_probability(share, offered, values, program_year)
    delivery = np.array(scenario.delivery(year), np.int8)
    start = first_day(year)
    regions = scenario.uses_regions
    drawn = draw_applications(rng, probability, start, opening, delivery, values, regions)
    batch = drawn.batch
    result = quote(scenario, batch, keep_freed)
    apps = batch.applications
    federal, provincial = result.applications.federal, result.applications.provincial
    approved, closed_on = _first_come_first_served(
        apps.jurisdiction, result.eligible, federal, provincial, scenario.budgets(year)
    )
    turned_away = result.eligible & ~approved
    return _figures(scenario, year, drawn, result, approved, turned_away, closed_on, probability)


_SHARES: dict[tuple[int, str], tuple[F64, npt.NDArray[np.bool_]]] = {}


def _shares(scenario: Scenario, year: str) -> tuple[F64, npt.NDArray[np.bool_]]:
    """The employer cash share per cell, from the scenario's central parameter values: the same
    in every draw of the year (a draw's cost level moves it by far less than its take-up noise)."""
    key = (id(scenario), year)
    if key not in _SHARES:
        central = scenario.parameters.draw(None)
        _SHARES[key] = employer_cash_share(scenario, year, opening_days(year, central), central)
    return _SHARES[key]


def _first_come_first_served(
    jurisdiction: npt.NDArray[np.int8],
    eligible: npt.NDArray[np.bool_],
    federal: npt.NDArray[np.int64],
    provincial: npt.NDArray[np.int64],
    budgets: list[Any],
) -> tuple[npt.NDArray[np.bool_], list[int | None]]:
    """Which applications are approved (they arrive in order), and where each intake closed."""
    approved = np.zeros(len(jurisdiction), np.bool_)
    closed_at: list[int | None] = []
    for j, budget in enumerate(budgets):
        rows = np.flatnonzero((jurisdiction == j) & eligible)
        fits = (np.cumsum(federal[rows]) <= budget.federal) & (
            np.cumsum(provincial[rows]) <= budget.provincial
        )
        first_miss = int(np.argmin(fits)) if len(rows) and not fits.all() else len(rows)
        approved[rows[:first_miss]] = True
        closed_at.append(int(rows[first_miss]) if first_miss < len(rows) else None)
    return approved, closed_at


def _figures(
    scenario: Scenario,
    year: str,
    drawn: Any,
    result: Any,
    approved: npt.NDArray[np.bool_],
    turned_away: npt.NDArray[np.bool_],
    closed_at: list[int | None],
    probability: F64,
) -> F64:
    batch = drawn.batch
    apps, employers = batch.applications, batch.employers
    names = measures()
    out = np.zeros((len(PLACES), len(names)), np.float64)
    column = {name: i for i, name in enumerate(names)}
    j_app = apps.jurisdiction.astype(np.int64)
    n_j = len(JURISDICTION_CODES)

    # Each application is approved, turned away or refused by the rules: one bincount per
    # column over (jurisdiction, outcome) sums every outcome at once, in the order of the rows
    # (the same sums as one bincount per outcome).
    outcome = np.where(approved, APPROVED, np.where(turned_away, TURNED_AWAY, REFUSED))
    key = j_app * OUTCOMES + outcome

    def by_outcome(weights: Any = None, keys: Any = key) -> F64:
        counts = np.bincount(keys, weights=weights, minlength=n_j * OUTCOMES)
        return counts.reshape(n_j, OUTCOMES).astype(np.float64)

    app_trainees = np.diff(employers.trainee_offsets[apps.employer_offsets]).astype(np.float64)
    totals = result.applications
    count, trainees = by_outcome(), by_outcome(app_trainees)
    rows = np.flatnonzero(approved)
    cents = {
        name: _sum_cents(j_app[rows], getattr(totals, name)[rows], n_j)
        for name in fields_of_money()
    }
    set_ = {
        "applications": count.sum(axis=1),
        "applications_approved": count[:, APPROVED],
        "applications_turned_away": count[:, TURNED_AWAY],
        "applications_refused_by_rules": count[:, REFUSED],
        "trainees_approved": trainees[:, APPROVED],
        "trainees_turned_away": trainees[:, TURNED_AWAY],
    }
    employer_app = employers.application.astype(np.int64)
    e_approved, e_turned = approved[employer_app], turned_away[employer_app]
    employers_by = by_outcome(keys=key[employer_app])
    set_["employers_approved"] = employers_by[:, APPROVED]
    set_["employers_turned_away"] = employers_by[:, TURNED_AWAY]
    for name, values in set_.items():
        out[:n_j, column[name]] = values
    _by_group(
        out, column, "size", SIZE_CLASSES, drawn.size, j_app[employer_app], e_approved, e_turned
    )
    _by_group(
        out, column, "sector", sectors(), drawn.sector, j_app[employer_app], e_approved, e_turned
    )
    cents |= _budgets(out, column, scenario, year, apps, approved, totals, closed_at, cents)
    out[n_j] = out[:n_j].sum(axis=0)
    for name, amounts in cents.items():  # money: exact cents, one division to dollars each
        out[:n_j, column[name]] = amounts / 100
        out[n_j, column[name]] = int(amounts.sum()) / 100
    _national_ratios(out, column, n_j, closed_at)
    _take_up(out, column, probability)
    return out


def _sum_cents(
    jurisdiction: npt.NDArray[np.int64], cents: npt.NDArray[np.int64], n_j: int
) -> npt.NDArray[np.int64]:
    """Cents summed by jurisdiction, exactly: integer sums (numpy adds int64 without rounding)."""
    summed = np.zeros(n_j, np.int64)
    np.add.at(summed, jurisdiction, cents.astype(np.int64, copy=False))
    return summed


def _by_group(
    out: F64,
    column: dict[str, int],
    kind: str,
    labels: tuple[str, ...],
    group: npt.NDArray[np.int8],
    jurisdiction: npt.NDArray[np.int64],
    approved: npt.NDArray[np.bool_],
    turned: npt.NDArray[np.bool_],
) -> None:
    n_j, n_g = len(JURISDICTION_CODES), len(labels)
    key = jurisdiction * n_g + group
    for name, rows in (("employers_approved", approved), ("employers_turned_away", turned)):
        counts = np.bincount(key[rows], minlength=n_j * n_g).reshape(n_j, n_g)
        first = column[f"{name}.{kind}.{labels[0]}"]
        out[:n_j, first : first + n_g] = counts


def _budgets(
    out: F64,
    column: dict[str, int],
    scenario: Scenario,
    year: str,
    apps: Any,
    approved: npt.NDArray[np.bool_],
    totals: Any,
    closed_at: list[int | None],
    cents: dict[str, npt.NDArray[np.int64]],
) -> dict[str, npt.NDArray[np.int64]]:
    """The budgets, what is left of them (exact cents, returned by measure) and the share of the
    budget spent by each month's end."""
    start = np.datetime64(first_day(year), "D")
    month = (apps.application_date.astype("datetime64[M]") - start.astype("datetime64[M]")).astype(
        np.int64
    )
    month = np.clip(month, 0, MONTHS - 1)
    j_app = apps.jurisdiction.astype(np.int64)
    spent = np.bincount(
        j_app[approved] * MONTHS + month[approved],
        weights=totals.government[approved] / 100,
        minlength=len(JURISDICTION_CODES) * MONTHS,
    ).reshape(-1, MONTHS)
    first_month = column["spent_share.month.01"]
    budgets = scenario.budgets(year)
    money = {
        "budget_federal": np.array([int(b.federal) for b in budgets], np.int64),
        "budget_provincial": np.array([int(b.provincial) for b in budgets], np.int64),
    }
    money["left_federal"] = money["budget_federal"] - cents["federal"]
    money["left_provincial"] = money["budget_provincial"] - cents["provincial"]
    for j, budget in enumerate(budgets):
        total = (budget.federal + budget.provincial) / 100
        cumulative = np.cumsum(spent[j]) / total if total > 0 else np.zeros(MONTHS)
        out[j, first_month : first_month + MONTHS] = cumulative
        closed = closed_at[j]
        out[j, column["exhausted"]] = 0.0 if closed is None else 1.0
        day = (
            np.nan
            if closed is None
            else float((apps.application_date[closed] - start).astype(np.int64))
        )
        out[j, column["exhaustion_day"]] = day
    return money


def _national_ratios(
    out: F64, column: dict[str, int], n_j: int, closed_at: list[int | None]
) -> None:
    """National rows of what does not add up: shares and the exhaustion day."""
    budget = out[n_j, column["budget_federal"]] + out[n_j, column["budget_provincial"]]
    first = column["spent_share.month.01"]
    national_spent = (
        out[:n_j, first : first + MONTHS]
        * (out[:n_j, column["budget_federal"]] + out[:n_j, column["budget_provincial"]])[:, None]
    )
    out[n_j, first : first + MONTHS] = national_spent.sum(axis=0) / budget if budget else 0.0
    out[n_j, column["exhausted"]] = out[:n_j, column["exhausted"]].mean()
    out[n_j, column["exhaustion_day"]] = np.nan


def _take_up(out: F64, column: dict[str, int], probability: F64) -> None:
    """Expected share of businesses applying, by size class, per jurisdiction and nationally."""
    from jobgrant.simulation.population import cells

    table = cells()
    n_j, n_s = len(JURISDICTION_CODES), len(SIZE_CLASSES)
    key = table.jurisdiction.astype(np.int64) * n_s + table.size
    expected = np.bincount(key, table.businesses * probability, n_j * n_s).reshape(n_j, n_s)
    counts = np.bincount(key, table.businesses, n_j * n_s).reshape(n_j, n_s)
    first = column[f"take_up.size.{SIZE_CLASSES[0]}"]
    out[:n_j, first : first + n_s] = expected / np.maximum(counts, 1)
    out[n_j, first : first + n_s] = expected.sum(axis=0) / np.maximum(counts.sum(axis=0), 1)
