"""Benchmark of the rules kernel: trainees per second, peak memory, ratio to hand-written numpy.

    make bench                       # N = 10^4 ... 10^7
    python bench/kernel.py --max-exponent 6 --repeat 3

For each N, a synthetic batch of N trainees is spread over the 13 jurisdictions (applications
of one or two employers, each with one to four trainees; some unemployed hires, some in-kind
wages), evaluated under cjg-2014 on 2017-06-01 (every provincial rule in force). It prints the
median time of `evaluate` (no explanation), trainees per second, the peak memory the evaluation
allocates per trainee (tracemalloc: numpy reports its buffers, and the compiled passes allocate
nothing themselves), and the ratio to a hand-written numpy version of the same formulas that
reads a (jurisdiction x parameter) table for that date. `evaluate` picks its engine by size
(the numpy formulas for an application, the compiled passes for a population, since this
process has loaded Numba: a process that has not evaluates a population a chunk at a time with
the numpy formulas, ADR 0038); from that size the numpy formulas are timed too, for
comparison. Both engines must produce the hand-written figures; the benchmark checks that
before it times anything.

Each N is timed twice. First as a one-off process, where glibc hands every large array back to
the operating system when it is freed, so each evaluation pays again for mapping and zeroing
its output pages (the "system" figure; on a virtual machine it varies a lot from run to run).
Then as a long-running process that keeps freed memory (jobgrant.rules.memory), which is what a
simulator evaluating one scenario after another sees: the same arithmetic, no page faults.
It also times the JSON path (`jobgrant quote` for one application of 10,000 and 20,000
trainees), in the process and as the command a user runs, and prints the ratio, which should be
about 2 (linear), never 4.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from jobgrant.rules.batch import (
    Applications,
    Employers,
    QuoteBatch,
    Trainees,
    rows_from_offsets,
)
from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.evaluate import COMPILED_FROM, Engine, default_library, evaluate
from jobgrant.rules.formulas.key_rules import NOT_SET, rule_columns
from jobgrant.rules.memory import keep_freed_memory
from jobgrant.rules.quote import cycle_collection_paused, quote
from jobgrant.rules.table import table_for

POLICY = "cjg-2014"
APPLICATION_DATE = np.datetime64("2017-06-01")


def synthetic_batch(n_trainees: int, seed: int = 2013) -> QuoteBatch:
    rng = np.random.default_rng(seed)
    per_employer = rng.integers(1, 5, size=n_trainees // 2 + 1)
    trainee_offsets = np.concatenate(([0], np.cumsum(per_employer)))
    n_employers = int(np.searchsorted(trainee_offsets, n_trainees))
    trainee_offsets = trainee_offsets[: n_employers + 1]
    trainee_offsets[-1] = n_trainees
    per_application = rng.integers(1, 3, size=n_employers)
    employer_offsets = np.concatenate(([0], np.cumsum(per_application)))
    n_applications = int(np.searchsorted(employer_offsets, n_employers))
    employer_offsets = employer_offsets[: n_applications + 1]
    employer_offsets[-1] = n_employers
    employer = rows_from_offsets(trainee_offsets)
    return QuoteBatch(
        _applications(rng, n_applications, employer_offsets),
        Employers(
            employees=rng.integers(1, 200, size=n_employers),
            approved_this_fiscal_year=rng.integers(0, 5_000_000, size=n_employers),
            trainee_offsets=trainee_offsets.astype(np.int64),
            application=rows_from_offsets(employer_offsets),
        ),
        _trainees(rng, n_trainees, employer, rows_from_offsets(employer_offsets)[employer]),
    )


def _applications(rng: np.random.Generator, n: int, employer_offsets: np.ndarray) -> Applications:
    start = APPLICATION_DATE + rng.integers(-5, 200, size=n).astype("timedelta64[D]")
    return Applications(
        jurisdiction=rng.integers(0, len(JURISDICTION_CODES), size=n).astype(np.int8),
        region=np.full(n, -1, dtype=np.int16),
        delivery=np.full(n, -1, dtype=np.int8),
        application_date=np.full(n, APPLICATION_DATE),
        start_date=start,
        end_date=start + rng.integers(0, 400, size=n).astype("timedelta64[D]"),
        hours=rng.integers(1_000, 20_000, size=n),
        third_party=rng.random(n) < 0.98,
        setting=rng.integers(0, 3, size=n).astype(np.int8),
        employer_offsets=employer_offsets.astype(np.int64),
    )


def _trainees(
    rng: np.random.Generator, n: int, employer: np.ndarray, application: np.ndarray
) -> Trainees:
    wages = np.where(rng.random(n) < 0.2, rng.integers(0, 500_000, size=n), 0)
    return Trainees(
        tuition=rng.integers(0, 1_800_000, size=n),
        student_fees=rng.integers(0, 20_000, size=n),
        materials=rng.integers(0, 50_000, size=n),
        exam_fees=rng.integers(0, 30_000, size=n),
        wages_in_kind=wages.astype(np.int64),
        status=rng.choice(np.array([0, 1, 2], dtype=np.int8), size=n, p=[0.7, 0.2, 0.1]),
        employer=employer.astype(np.int32),
        application=application.astype(np.int32),
    )


def jurisdiction_table(batch: QuoteBatch) -> tuple[dict[str, np.ndarray], int]:
    """(jurisdiction x parameter) arrays for the date, for the baseline (built untimed)."""
    library = default_library()
    table = table_for(library, library.get(POLICY))
    probe = QuoteBatch(
        Applications(
            jurisdiction=np.arange(len(JURISDICTION_CODES), dtype=np.int8),
            region=np.full(13, -1, dtype=np.int16),
            delivery=np.full(13, -1, dtype=np.int8),
            application_date=np.full(13, APPLICATION_DATE),
            start_date=np.full(13, APPLICATION_DATE),
            end_date=np.full(13, APPLICATION_DATE),
            hours=np.zeros(13, dtype=np.int64),
            third_party=np.ones(13, dtype=np.bool_),
            setting=np.zeros(13, dtype=np.int8),
            employer_offsets=np.zeros(14, dtype=np.int64),
        ),
        batch.employers,
        batch.trainees,
    )
    period = table.periods(probe.applications)
    keys = table.keys(probe.applications, period, table.delivery(probe.applications, period))
    rules = rule_columns(table, keys)
    return {name: column[keys] for name, column in rules.columns.items()}, rules.denominator


def handwritten(batch: QuoteBatch, p: dict[str, np.ndarray], den: int) -> dict[str, np.ndarray]:
    """The same formulas as the kernel, written out plainly over whole arrays."""
    t, e, a = batch.trainees, batch.employers, batch.applications
    j = a.jurisdiction[t.application]
    direct = t.tuition + t.student_fees + t.materials + t.exam_fees
    size = e.employees[t.employer]
    unemployed = (t.status == 2) & (p["unemployed_rate"][j] != NOT_SET)
    unemployed &= size <= p["unemployed_max_employees"][j]
    below = direct * p["in_kind_uncapped_numerator"][j] // p["in_kind_uncapped_denominator"][j]
    above = np.maximum(direct - p["government_cap"][j], 0) * p["in_kind_capped_numerator"][j]
    above //= p["in_kind_capped_denominator"][j]
    small = (size <= p["in_kind_max_employees"][j]) & ~unemployed
    in_kind = np.where(small, np.minimum(t.wages_in_kind, np.maximum(below, above)), 0)
    eligible = direct + in_kind
    rate = np.where(unemployed, p["unemployed_rate"][j], p["federal_rate"][j])
    cap = np.where(unemployed, p["unemployed_cap"][j], p["federal_cap"][j])
    federal = np.minimum(eligible * rate // den, cap)
    provincial = np.minimum(eligible * p["provincial_rate"][j] // den, p["provincial_cap"][j])
    starts = e.trainee_offsets[:-1]
    employer_federal = np.add.reduceat(federal, starts)
    employer_provincial = np.add.reduceat(provincial, starts)
    employer_eligible = np.add.reduceat(eligible, starts)
    ja = a.jurisdiction
    lead = (a.start_date - a.application_date).astype(np.int64)
    duration = (a.end_date - a.start_date).astype(np.int64) + 1
    app_direct = np.add.reduceat(np.add.reduceat(direct, starts), a.employer_offsets[:-1])
    failing = (p["grant_available"][ja] == 0) | (
        (p["third_party_required"][ja] == 1) & ~a.third_party
    )
    failing |= (lead <= 0) | ((lead > 0) & (lead < p["min_lead_days"][ja]))
    failing |= (lead > p["max_lead_days"][ja]) | (duration > p["max_duration_days"][ja])
    failing |= (a.hours < p["min_hours"][ja]) | (app_direct < p["minimum_cost"][ja])
    employer_app = np.repeat(np.arange(len(a)), np.diff(a.employer_offsets))
    over = employer_federal + employer_provincial + e.approved_this_fiscal_year
    over_cap = over > p["employer_cap"][ja][employer_app]
    failing |= np.logical_or.reduceat(over_cap, a.employer_offsets[:-1])
    failing |= np.logical_or.reduceat(direct == 0, e.trainee_offsets[a.employer_offsets[:-1]])
    return {
        "federal": federal,
        "provincial": provincial,
        "in_kind": in_kind,
        "employer_eligible": employer_eligible,
        "eligible": ~failing,
    }


def kernel(batch: QuoteBatch, engine: Engine = "auto") -> dict[str, np.ndarray]:
    ev = evaluate(batch, POLICY, engine=engine)
    return {
        "federal": ev.trainees.federal,
        "provincial": ev.trainees.provincial,
        "in_kind": ev.trainees.in_kind,
        "employer_eligible": ev.employers.eligible_cost,
        "eligible": ev.eligible,
    }


@dataclass(frozen=True)
class Timing:
    wall: float  # median seconds
    system: float  # median seconds of system time (the kernel mapping and zeroing pages)


def timed(run: Callable[[], Any], repeat: int) -> Timing:
    walls, systems = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_stime
        started = time.perf_counter()
        run()
        walls.append(time.perf_counter() - started)
        systems.append(resource.getrusage(resource.RUSAGE_SELF).ru_stime - before)
    return Timing(statistics.median(walls), statistics.median(systems))


def peak_bytes(run: Callable[[], Any]) -> int:
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def bench_arrays(exponent: int, repeat: int, memory: bool = True) -> None:
    n = 10**exponent
    batch = synthetic_batch(n)
    parameters, denominator = jurisdiction_table(batch)
    engine = "compiled" if n >= COMPILED_FROM else "numpy"  # what evaluate's "auto" picks
    check_against_baseline(batch, parameters, denominator)
    kernel_t = timed(lambda: kernel(batch), repeat)
    baseline_t = timed(lambda: handwritten(batch, parameters, denominator), repeat)
    peak = f"  peak {peak_bytes(lambda: kernel(batch)) / n:6.1f} B/trainee" if memory else ""
    rate, ratio = n / kernel_t.wall / 1e6, kernel_t.wall / baseline_t.wall
    numpy_engine = ""
    if engine == "compiled":  # the numpy formulas on the same batch, for comparison
        numpy_t = timed(lambda: kernel(batch, "numpy"), repeat)
        numpy_engine = f"  (numpy formulas {numpy_t.wall * 1e3:7.1f} ms)"
    print(
        f"N=10^{exponent:<2} {engine:8} {kernel_t.wall * 1e3:8.1f} ms  {rate:5.1f} M trainees/s"
        f"  (system {kernel_t.system * 1e3:5.1f} ms){peak}"
        f"  hand-written {baseline_t.wall * 1e3:8.1f} ms  ratio {ratio:4.2f}{numpy_engine}",
        flush=True,
    )


def check_against_baseline(batch: QuoteBatch, parameters: dict[str, np.ndarray], den: int) -> None:
    """Both engines must give the hand-written figures before anything is timed."""
    theirs = handwritten(batch, parameters, den)
    for engine in ("numpy", "compiled"):
        ours = kernel(batch, engine)
        for name, values in theirs.items():
            if not np.array_equal(ours[name], values):
                raise SystemExit(f"{engine} and hand-written disagree on {name} at N={len(values)}")


def compiled_passes_ready() -> float:
    """Seconds to make the compiled passes ready in this process (loaded from Numba's disk
    cache, or compiled when it is empty: the first run after a checkout)."""
    started = time.perf_counter()
    kernel(synthetic_batch(1_000), "compiled")
    return time.perf_counter() - started


def json_request(n_trainees: int) -> dict[str, Any]:
    employers = [{"id": f"e{i}", "employees": 40} for i in range(10)]
    trainee = {
        "status": "existing-employee",
        "costs": {
            "tuition": "1500.00",
            "student_fees": "10.00",
            "materials": "25.50",
            "exam_fees": "0.00",
        },
    }
    return {
        "policy": POLICY,
        "jurisdiction": "AB",
        "application_date": "2017-06-01",
        "employers": employers,
        "training": {
            "setting": "off-site",
            "start_date": "2017-08-01",
            "end_date": "2017-09-30",
            "hours": 40,
            "provider": {"name": "NAIT", "third_party": True},
        },
        "trainees": [{**trainee, "employer_id": f"e{i % 10}"} for i in range(n_trainees)],
    }


def bench_json(repeat: int) -> None:
    """Times the two sizes alternately (after one untimed run of each), so that a slow moment
    of the machine falls on both and the ratio stays comparable."""
    texts = {n: json.dumps(json_request(n)) for n in (10_000, 20_000)}
    times: dict[int, list[float]] = {n: [] for n in texts}
    for round_ in range(repeat + 1):
        for n, text in texts.items():
            started = time.perf_counter()
            with cycle_collection_paused():  # as `jobgrant quote` reads and quotes
                quote(json.loads(text))
            if round_:
                times[n].append(time.perf_counter() - started)
    timings = {n: statistics.median(values) for n, values in times.items()}
    for n, seconds in timings.items():
        print(f"JSON quote, {n} trainees: {seconds * 1e3:7.1f} ms (parse, validate, evaluate)")
    print(f"JSON path ratio 20,000 / 10,000 trainees: {timings[20_000] / timings[10_000]:.2f}")
    bench_command(texts, repeat)


def bench_command(texts: dict[int, str], repeat: int) -> None:
    """The whole `jobgrant quote FILE` as a user runs it: a new process that starts Python,
    imports, reads the parameters, quotes and prints the JSON (median wall time)."""
    with tempfile.TemporaryDirectory() as folder:
        for n, text in texts.items():
            path = Path(folder) / f"quote-{n}.json"
            path.write_text(text)
            command = [sys.executable, "-m", "jobgrant.cli", "quote", str(path)]
            walls = []
            for _ in range(repeat):
                started = time.perf_counter()
                subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
                walls.append(time.perf_counter() - started)
            print(f"`jobgrant quote` of {n} trainees: {statistics.median(walls):5.2f} s wall")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-exponent", type=int, default=4)
    parser.add_argument("--max-exponent", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    today = dt.datetime.now(dt.UTC).date()
    exponents = range(args.min_exponent, args.max_exponent + 1)
    print(f"rules kernel, {POLICY} on {APPLICATION_DATE}, one core, measured {today}")
    print(f"load average {os.getloadavg()[0]:.2f} (other work on the machine slows every figure)")
    print(f"compiled passes ready in {compiled_passes_ready():.2f} s (once per process)")
    print(
        f"evaluate runs the numpy formulas below {COMPILED_FROM:,} trainees, compiled passes above"
    )
    print("as a one-off process: freed memory goes back to the operating system")
    for exponent in exponents:
        bench_arrays(exponent, args.repeat if exponent < 7 else 3)
    bench_json(max(args.repeat, 7))  # before the allocator is told to keep memory, as the CLI runs
    if keep_freed_memory():
        print("as a long-running process that keeps freed memory (jobgrant.rules.memory)")
        for exponent in exponents:
            bench_arrays(exponent, args.repeat if exponent < 7 else 3, memory=False)


if __name__ == "__main__":
    main()
