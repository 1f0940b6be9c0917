"""Monte Carlo: draws of the whole simulation, their mean and 5-95% band, in parallel if asked.

Each draw has its own seed, spawned from the run's seed (`SeedSequence(seed).spawn(draws)`), and
a PCG64 generator: a draw's figures depend on its seed only, never on which process ran it or in
what order, so `--workers N` (local processes) and `--cluster ADDRESS` (a Dask distributed
scheduler; its workers need jobgrant installed and the scenario files at the same paths) give
exactly the figures of one process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from jobgrant.simulation.scenario import Scenario, load_scenario
from jobgrant.simulation.year import PLACES, measures, simulate_year

F64 = npt.NDArray[np.float64]
DEFAULT_SEED = 2013


@dataclass(frozen=True)
class RunSpec:
    scenario_file: str
    years: tuple[str, ...]
    draws: int
    seed: int = DEFAULT_SEED
    #: parameter values over the scenario's (name, value): how calibration tries values
    overrides: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Results:
    spec: RunSpec
    scenario: str
    figures: F64  # (draws, years, places, measures)

    def band(self) -> tuple[F64, F64, F64]:
        """Mean, 5th and 95th percentiles over the draws, (years, places, measures) each;
        NaN (an intake that never closed) is left out, and stays NaN where every draw has it."""
        with np.errstate(all="ignore"):
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                mean = np.nanmean(self.figures, axis=0)
                low, high = np.nanpercentile(self.figures, [5, 95], axis=0)
        return mean, low, high


@cache
def _scenario(path: str, overrides: tuple[tuple[str, float], ...] = ()) -> Scenario:
    scenario = load_scenario(Path(path))
    if not overrides:
        return scenario
    values = {**scenario.parameter_values, **dict(overrides)}
    return Scenario(scenario.name, scenario.funding_file, values)


def draw_seed(spec: RunSpec, draw: int) -> np.random.SeedSequence:
    seed: np.random.SeedSequence = np.random.SeedSequence(spec.seed).spawn(spec.draws)[draw]
    return seed


def run_draw(spec: RunSpec, draw: int, keep_freed: bool = True) -> F64:
    """Every year of one draw: (years, places, measures). `keep_freed=False` in a process that
    must give memory back afterwards (the service's worker)."""
    scenario = _scenario(spec.scenario_file, spec.overrides)
    rng = np.random.Generator(np.random.PCG64(draw_seed(spec, draw)))
    values = scenario.parameters.draw(rng)
    return np.stack([simulate_year(rng, scenario, year, values, keep_freed) for year in spec.years])


def _run_chunk(spec: RunSpec, draws: list[int]) -> list[F64]:
    return [run_draw(spec, d) for d in draws]


def run(
    spec: RunSpec,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    cluster: str | None = None,
) -> Results:
    """All the draws; `progress(k)` is told each time k more draws are done."""
    scenario = _scenario(spec.scenario_file, spec.overrides)
    shape = (spec.draws, len(spec.years), len(PLACES), len(measures()))
    figures = np.empty(shape, np.float64)
    if cluster is None and workers <= 1:
        for d in range(spec.draws):
            figures[d] = run_draw(spec, d)
            if progress:
                progress(1)
        return Results(spec, scenario.name, figures)
    chunks = [list(range(d, min(d + 2, spec.draws))) for d in range(0, spec.draws, 2)]
    done = _on_cluster(spec, chunks, cluster) if cluster else _in_processes(spec, chunks, workers)
    for chunk, results in done:
        for d, result in zip(chunk, results, strict=True):
            figures[d] = result
        if progress:
            progress(len(chunk))
    return Results(spec, scenario.name, figures)


def _in_processes(
    spec: RunSpec, chunks: list[list[int]], workers: int
) -> Iterator[tuple[list[int], list[F64]]]:
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [(chunk, pool.submit(_run_chunk, spec, chunk)) for chunk in chunks]
        for chunk, future in futures:
            yield chunk, future.result()


def _on_cluster(
    spec: RunSpec, chunks: list[list[int]], address: str
) -> Iterator[tuple[list[int], list[F64]]]:
    from distributed import Client  # imported only for a cluster run

    with Client(address) as client:  # type: ignore[no-untyped-call]
        futures = client.map(_run_chunk, [spec] * len(chunks), chunks, pure=False)
        for chunk, future in zip(chunks, futures, strict=True):
            yield chunk, future.result()
