"""Simulation runs: an analyst asks for one; the worker runs it a slice of draws per task.

Every slice is its own django-tasks task (`run_simulation_slice`), which stores its draws
and hands the next slice to the worker when it commits: the worker's other tasks (the outbox)
wait at most one slice, and the page counts the draws stored. A slice is stored once (its first
draw is unique per run), so a task run twice after a crash changes nothing. Each state change
(asked, finished, failed) is audited.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_tasks import task

from jobgrant.funding.years import MODEL_YEARS
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.analysis.models import RunState, SimulationRun, SimulationSlice
from jobgrant.service.analysis.scenarios import scenario_file, simulation_scenarios
from jobgrant.service.audit.chain import record
from jobgrant.simulation.montecarlo import Results, RunSpec, run_draw

log = logging.getLogger("jobgrant.analysis")
MAX_DRAWS = 200
#: About this many draw-years per task (a draw-year costs some 50 ms of CPU); the setting
#: JOBGRANT_SIMULATION_DRAW_YEARS_PER_SLICE changes it (the tests make slices of one draw).
DRAW_YEARS_PER_SLICE = 60


class RunRequestError(ValueError):
    """A run that cannot be asked for; each problem names the field (for the form's errors)."""

    def __init__(self, problems: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in problems.items()))
        self.problems = problems


@dataclass(frozen=True)
class RunRequest:
    scenario: str
    first_year: str
    last_year: str
    draws: int
    seed: int

    def problems(self) -> dict[str, str]:
        found = {}
        if self.scenario not in simulation_scenarios():
            found["scenario"] = f"unknown scenario {self.scenario!r}"
        for name in ("first_year", "last_year"):
            if getattr(self, name) not in MODEL_YEARS:
                found[name] = f"not a fiscal year of the model: {getattr(self, name)!r}"
        if not found and MODEL_YEARS.index(self.first_year) > MODEL_YEARS.index(self.last_year):
            found["last_year"] = "comes before the first year"
        if not 1 <= self.draws <= MAX_DRAWS:
            found["draws"] = f"must be 1 to {MAX_DRAWS}"
        if not 0 <= self.seed < 2**31:
            found["seed"] = "must be a whole number from 0 to 2147483647"
        return found


def years_of(run: SimulationRun) -> tuple[str, ...]:
    first, last = MODEL_YEARS.index(run.first_year), MODEL_YEARS.index(run.last_year)
    return tuple(MODEL_YEARS[first : last + 1])


def spec_of(run: SimulationRun) -> RunSpec:
    return RunSpec(str(scenario_file(run.scenario)), years_of(run), run.draws, run.seed)


def slice_size(run: SimulationRun) -> int:
    per_slice = getattr(settings, "JOBGRANT_SIMULATION_DRAW_YEARS_PER_SLICE", DRAW_YEARS_PER_SLICE)
    return max(1, int(per_slice) // len(years_of(run)))


def request_run(user: User, asked: RunRequest) -> SimulationRun:
    """Queue a run for the worker (its first slice is handed over when this commits)."""
    if user.role != Role.ANALYST:
        raise PermissionError("only a policy analyst runs simulations")
    problems = asked.problems()
    if problems:
        raise RunRequestError(problems)
    with transaction.atomic():
        run = SimulationRun.objects.create(
            requested_by=user,
            scenario=asked.scenario,
            first_year=asked.first_year,
            last_year=asked.last_year,
            draws=asked.draws,
            seed=asked.seed,
        )
        record(user.username, "simulation.request", "simulation", run.pk, _summary(run))
        _hand_over_on_commit(run.pk, 0)
    return run


def _summary(run: SimulationRun, **also: object) -> dict[str, object]:
    return {
        "scenario": run.scenario,
        "years": f"{run.first_year}:{run.last_year}",
        "draws": run.draws,
        "seed": run.seed,
        "state": run.state,
        **also,
    }


def _hand_over_on_commit(run_id: int, first_draw: int) -> None:
    def hand_over() -> None:
        run_simulation_slice.enqueue(run_id, first_draw)

    transaction.on_commit(hand_over, robust=True)


@task()
def run_simulation_slice(run_id: int, first_draw: int) -> str:
    """The worker's task: compute draws first_draw.. of the slice, store them, hand over the
    next slice or finish the run. Returns what happened: "stored", "finished", "failed" or
    "skipped" (the run is finished or the slice already stored)."""
    run = SimulationRun.objects.filter(pk=run_id).first()
    if run is None or run.finished:
        return "skipped"
    count = min(slice_size(run), run.draws - first_draw)
    try:
        figures = _compute(run, first_draw, count)
    except Exception as error:  # a scenario file changed or broke since it was asked for
        log.exception("simulation %s: draws from %s failed", run_id, first_draw)
        _fail(run_id, f"{type(error).__name__}: {error}"[:255])
        return "failed"
    return _store(run_id, first_draw, count, figures)


def _compute(run: SimulationRun, first_draw: int, count: int) -> bytes:
    spec = spec_of(run)
    # the worker goes on with other tasks: it gives the draws' memory back (keep_freed=False)
    draws = range(first_draw, first_draw + count)
    figures = np.stack([run_draw(spec, d, keep_freed=False) for d in draws])
    buffer = io.BytesIO()
    np.save(buffer, figures, allow_pickle=False)
    return buffer.getvalue()


def _store(run_id: int, first_draw: int, count: int, figures: bytes) -> str:
    with transaction.atomic():
        run = SimulationRun.objects.select_for_update().get(pk=run_id)
        if run.finished or run.slices.filter(first_draw=first_draw).exists():
            return "skipped"
        SimulationSlice.objects.create(run=run, first_draw=first_draw, count=count, figures=figures)
        run.draws_done += count
        now = timezone.now()
        run.started_at = run.started_at or now
        if run.draws_done < run.draws:
            run.state = RunState.RUNNING
            run.save(update_fields=["draws_done", "started_at", "state"])
            _hand_over_on_commit(run.pk, first_draw + count)
            return "stored"
        run.state, run.finished_at = RunState.DONE, now
        run.save(update_fields=["draws_done", "started_at", "state", "finished_at"])
        record("worker", "simulation.finish", "simulation", run.pk, _summary(run))
    return "finished"


def _fail(run_id: int, reason: str) -> None:
    with transaction.atomic():
        run = SimulationRun.objects.select_for_update().get(pk=run_id)
        if run.finished:
            return
        run.state, run.error, run.finished_at = RunState.FAILED, reason, timezone.now()
        run.save(update_fields=["state", "error", "finished_at"])
        record("worker", "simulation.fail", "simulation", run.pk, _summary(run, error=reason))


def results(run: SimulationRun) -> Results:
    """A finished run's figures, as the simulator's own Results (tables, bands and plots)."""
    if run.state != RunState.DONE:
        raise ValueError(f"simulation {run.pk} is {run.state}, not done")
    slices = run.slices.order_by("first_draw")
    figures = np.concatenate(
        [np.load(io.BytesIO(bytes(s.figures)), allow_pickle=False) for s in slices]
    )
    spec = spec_of(run)
    return Results(spec, run.scenario, figures)
