"""Simulator benchmarks: one national fiscal year, and 6 years x 100 draws.

    python bench/simulate_population.py [--draws 100] [--workers 2]

Prints wall time, CPU time and peak memory (this process and its worker processes, from
getrusage). Targets: one national year <= 1 s; 2014-15 to 2019-20 x 100 draws <= 30 s on the
2-core machine. Figures, never assertions: the machine's speed varies with its load.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

import numpy as np

from jobgrant.funding.years import MODEL_YEARS
from jobgrant.simulation.montecarlo import RunSpec, run
from jobgrant.simulation.population import synthesize_employers
from jobgrant.simulation.scenario import load_scenario
from jobgrant.simulation.year import simulate_year

SCENARIO = Path(__file__).parents[1] / "scenarios" / "final-deal-2014.yaml"


def peak_mib() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def one_year() -> None:
    scenario = load_scenario(SCENARIO)
    values = scenario.parameters.draw(None)
    times = []
    for seed in range(6):  # the first includes the year's one-off kernel quotes of the cells
        rng = np.random.Generator(np.random.PCG64(seed))
        start = time.perf_counter()
        simulate_year(rng, scenario, "2017-18", values)
        times.append(time.perf_counter() - start)
    print(
        f"one national year (2017-18, {SCENARIO.stem}, 1,107,540 employers): "
        f"first {times[0]:.3f} s, then median {np.median(times[1:]):.3f} s"
    )
    start = time.perf_counter()
    employers = synthesize_employers(np.random.Generator(np.random.PCG64(0)), values)
    print(
        f"  every employer drawn as a row ({len(employers):,}): "
        f"{time.perf_counter() - start:.3f} s (the run draws only those who apply)"
    )
    del employers


def many_years(draws: int, workers: int) -> None:
    spec = RunSpec(str(SCENARIO), MODEL_YEARS, draws)
    cpu = time.process_time()
    start = time.perf_counter()
    results = run(spec, workers)
    wall = time.perf_counter() - start
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    own, child_peak = peak_mib()
    print(
        f"{len(MODEL_YEARS)} years x {draws} draws, {workers} worker(s): {wall:.1f} s wall, "
        f"{time.process_time() - cpu + children.ru_utime + children.ru_stime:.1f} s CPU, "
        f"peak memory {own:.0f} MiB (this process), {child_peak:.0f} MiB (largest worker); "
        f"figures {results.figures.nbytes / 2**20:.1f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    one_year()
    many_years(args.draws, args.workers)


if __name__ == "__main__":
    main()
