"""Scores: the points each application of a batch earns under a criteria set, and why.

The formulas work on columns, one row per application (an intake is one batch); parameters are
resolved once per economic region present. With `explain=True`, each application gets a trace
in the kernel's convention: per criterion its points, the formula, the inputs it read, and each
parameter read (name, effective date, value, layer, sources).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from jobgrant.rules.money import format_amount
from jobgrant.rules.policies import ResolvedValue
from jobgrant.rules.scoring.criteria import CRITERIA, CriteriaSet, unit_of
from jobgrant.rules.trace import parameter_read

I64 = npt.NDArray[np.int64]
Resolved = dict[str, ResolvedValue]
_Column = Callable[[str], I64]  # a parameter's value for each application

FORMULAS: dict[str, str] = {
    "small_business": "points when the lead employer's employees <= max_employees, else 0",
    "new_hires": "floor(points x new hires or unemployed trainees / trainees)",
    "under_represented": "floor(points x trainees from under-represented groups / trainees)",
    "regional_priority": "the points of the training's economic region (0 where not listed)",
    "first_time": "points when the employer has no earlier approved application, else 0",
    "cost_per_trainee": (
        "points when government cost / trainees <= full_points_up_to; floor(points / 2) when "
        "<= half_points_up_to; else 0"
    ),
}


@dataclass(frozen=True)
class ScoringInputs:
    """The columns a score reads, one row per application."""

    employees: I64  # the lead employer's, when it applied
    trainees: I64
    new_hires: I64  # trainees who are new hires or unemployed
    under_represented: I64  # trainees the employer declared from an under-represented group
    first_time: npt.NDArray[np.bool_]
    government_cents: I64  # federal + provincial share asked for
    regions: Sequence[str | None]  # the training's economic region (SGC 2016), if known

    def __len__(self) -> int:
        return len(self.employees)

    def cost_per_trainee(self) -> I64:
        return np.where(
            self.trainees > 0,
            self.government_cents // np.maximum(self.trainees, 1),
            self.government_cents,
        )


@dataclass(frozen=True)
class Scores:
    total: I64
    points: dict[str, I64]  # criterion -> points, per application
    explanations: list[list[dict[str, object]]] = field(default_factory=list)


def score(
    inputs: ScoringInputs,
    criteria: CriteriaSet,
    jurisdiction: str,
    on: dt.date,
    *,
    explain: bool = False,
) -> Scores:
    """Every application's points under `criteria`, with the parameters in force on `on`."""
    places = sorted({region or "" for region in inputs.regions})
    place_of = np.array([places.index(region or "") for region in inputs.regions], dtype=np.int64)
    resolved = [criteria.resolve(jurisdiction, place or None, on) for place in places]

    def column(name: str) -> I64:
        per_place = np.array([int(r[name].value or 0) for r in resolved], dtype=np.int64)
        return per_place[place_of] if len(place_of) else np.zeros(0, dtype=np.int64)

    points = {c: _POINTS[c](inputs, column) for c in criteria.criteria}
    total = (
        np.sum(list(points.values()), axis=0, dtype=np.int64)
        if points
        else np.zeros(len(inputs), np.int64)
    )
    explanations = (
        [_explain(inputs, points, resolved[int(place_of[row])], row) for row in range(len(inputs))]
        if explain
        else []
    )
    return Scores(np.asarray(total, dtype=np.int64), points, explanations)


def _proportional(points: I64, count: I64, trainees: I64) -> I64:
    return np.where(
        trainees > 0, points * np.minimum(count, trainees) // np.maximum(trainees, 1), 0
    )


def _small_business(inputs: ScoringInputs, column: _Column) -> I64:
    small = inputs.employees <= column("ranking.small_business.max_employees")
    return np.where(small, column("ranking.small_business.points"), 0)


def _cost_per_trainee(inputs: ScoringInputs, column: _Column) -> I64:
    cost = inputs.cost_per_trainee()
    points = column("ranking.cost_per_trainee.points")
    full = cost <= column("ranking.cost_per_trainee.full_points_up_to")
    half = cost <= column("ranking.cost_per_trainee.half_points_up_to")
    return np.where(full, points, np.where(half, points // 2, 0))


_POINTS: dict[str, Callable[[ScoringInputs, _Column], I64]] = {
    "small_business": _small_business,
    "new_hires": lambda i, c: _proportional(c("ranking.new_hires.points"), i.new_hires, i.trainees),
    "under_represented": lambda i, c: _proportional(
        c("ranking.under_represented.points"), i.under_represented, i.trainees
    ),
    "regional_priority": lambda i, c: c("ranking.regional_priority.points"),
    "first_time": lambda i, c: np.where(i.first_time, c("ranking.first_time.points"), 0),
    "cost_per_trainee": _cost_per_trainee,
}


def _explain(
    inputs: ScoringInputs, points: dict[str, I64], resolved: Resolved, row: int
) -> list[dict[str, object]]:
    steps: list[dict[str, object]] = [
        {
            "criterion": criterion,
            "points": int(values[row]),
            "formula": FORMULAS[criterion],
            "inputs": _inputs_of(criterion, inputs, row),
            "parameters": [parameter_read(resolved[n], unit_of(n)) for n in CRITERIA[criterion]],
        }
        for criterion, values in points.items()
    ]
    total = sum(int(values[row]) for values in points.values())
    steps.append(
        {
            "criterion": "total",
            "points": total,
            "formula": "sum of the criteria's points",
            "inputs": {},
            "parameters": [],
        }
    )
    return steps


def _inputs_of(criterion: str, inputs: ScoringInputs, row: int) -> dict[str, str]:
    trainees = str(int(inputs.trainees[row]))
    return {
        "small_business": lambda: {"employees": str(int(inputs.employees[row]))},
        "new_hires": lambda: {"new_hires": str(int(inputs.new_hires[row])), "trainees": trainees},
        "under_represented": lambda: {
            "under_represented": str(int(inputs.under_represented[row])),
            "trainees": trainees,
        },
        "regional_priority": lambda: {"region": inputs.regions[row] or ""},
        "first_time": lambda: {"first_time": "true" if inputs.first_time[row] else "false"},
        "cost_per_trainee": lambda: {
            "government": format_amount(int(inputs.government_cents[row])),
            "trainees": trainees,
            "cost_per_trainee": format_amount(int(inputs.cost_per_trainee()[row])),
        },
    }[criterion]()
