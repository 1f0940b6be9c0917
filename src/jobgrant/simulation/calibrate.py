"""Calibration: the simulator's figures beside the published ones (parameters/calibration.yaml).

`jobgrant simulate calibrate` prints each target, the model's figure (mean over the draws), the
error and whether it is within the tolerance; `--fit` first finds the national take-up shift
that meets the national reach, by bisection on the same seeds (the figure rises with the shift).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from jobgrant.rules.yamlio import load_yaml
from jobgrant.simulation.derive import SIZE_CLASSES
from jobgrant.simulation.montecarlo import Results, RunSpec, run
from jobgrant.simulation.year import PLACES, measures

TARGETS_FILE = Path(__file__).parent / "parameters" / "calibration.yaml"
SCENARIOS_DIR = Path(__file__).resolve().parents[3] / "scenarios"


@dataclass(frozen=True)
class Target:
    name: str
    description: str
    scenario: str
    jurisdiction: str
    years: tuple[str, ...]
    measure: str
    target: float
    tolerance: float | None
    source: str


@dataclass(frozen=True)
class Check:
    target: Target
    model: float

    @property
    def error(self) -> float:
        """Relative error; absolute for a share (a target between 0 and 1)."""
        if self._is_share:
            return self.model - self.target.target
        return (self.model - self.target.target) / self.target.target

    @property
    def _is_share(self) -> bool:
        return self.target.measure in (
            "exhausted",
            "small_share",
        ) or self.target.measure.startswith("exhausted_by:")

    @property
    def within(self) -> bool | None:
        if self.target.tolerance is None:
            return None
        return abs(self.error) <= self.target.tolerance


def targets() -> list[Target]:
    raw: dict[str, Any] = load_yaml(TARGETS_FILE)
    return [
        Target(
            name=name,
            description=str(t["description"]),
            scenario=str(t["scenario"]),
            jurisdiction=str(t["jurisdiction"]),
            years=tuple(str(y) for y in t["years"]),
            measure=str(t["measure"]),
            target=float(t["target"]),
            tolerance=None if t.get("informational") else float(t["tolerance"]),
            source=str(t["source"]),
        )
        for name, t in raw.items()
    ]


def model_figure(results: Results, target: Target) -> float:
    years = [results.spec.years.index(y) for y in target.years]
    place = PLACES.index(target.jurisdiction)
    names = measures()
    figures = results.figures[:, years, place, :]  # (draws, years, measures)

    def total(name: str) -> np.ndarray:
        summed: np.ndarray = figures[:, :, names.index(name)].sum(axis=1)
        return summed

    measure = target.measure
    if measure.startswith("exhausted_by:"):
        days = figures[:, :, names.index("exhaustion_day")]
        within = np.nan_to_num(days, nan=np.inf) <= float(measure.split(":")[1])
        return float(within.all(axis=1).mean())
    if measure == "exhausted":
        return float(figures[:, :, names.index("exhausted")].mean())
    if measure == "small_share":
        small = sum(total(f"employers_approved.size.{s}") for s in SIZE_CLASSES[:4])
        return float(np.mean(small / np.maximum(total("employers_approved"), 1)))
    if "/" in measure:
        top, bottom = measure.split("/")
        return float(np.mean(total(top) / np.maximum(total(bottom), 1)))
    return float(np.mean(total(measure)))


def calibrate(draws: int, seed: int, workers: int = 1) -> list[Check]:
    """Every target checked on `draws` draws of each scenario the targets name."""
    chosen = targets()
    results: dict[str, Results] = {}
    for target in chosen:
        if target.scenario not in results:
            years = sorted({y for t in chosen if t.scenario == target.scenario for y in t.years})
            path = str(SCENARIOS_DIR / target.scenario)
            results[target.scenario] = run(RunSpec(path, tuple(years), draws, seed), workers)
    return [Check(t, model_figure(results[t.scenario], t)) for t in chosen]


def table(checks: list[Check]) -> str:
    lines = [
        f"{'Target':<32} {'Where':<5} {'Years':<17} {'Published':>12} {'Model':>12} "
        f"{'Error':>8} {'Tolerance':>9}  OK"
    ]
    for c in checks:
        t = c.target
        share = c._is_share
        error = f"{c.error:+.2f}" if share else f"{c.error:+.1%}"
        tolerance = (
            "info"
            if t.tolerance is None
            else (f"±{t.tolerance:.2f}" if share else f"±{t.tolerance:.0%}")
        )
        ok = {None: "-", True: "yes", False: "NO"}[c.within]
        lines.append(
            f"{t.name:<32} {t.jurisdiction:<5} {'+'.join(t.years):<17} "
            f"{_figure(t.target):>12} {_figure(c.model):>12} {error:>8} {tolerance:>9}  {ok}"
        )
    return "\n".join(lines)


def _figure(value: float) -> str:
    return f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"


def fit_shift(draws: int, seed: int, workers: int = 1, rounds: int = 8) -> float:
    """The take-up shift that meets the national reach, by bisection over [-2, 2]."""
    national = next(t for t in targets() if t.name == "national-reach")
    path = str(SCENARIOS_DIR / national.scenario)
    low, high = -2.0, 2.0
    for _ in range(rounds):
        middle = (low + high) / 2
        spec = RunSpec(path, national.years, draws, seed, (("take_up.shift", middle),))
        if model_figure(run(spec, workers), national) < national.target:
            low = middle
        else:
            high = middle
    return round((low + high) / 2, 3)
