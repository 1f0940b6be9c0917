"""Benchmark: jobgrant's `evaluate` against the OpenFisca engine on the same synthetic trainees.

    make bench                              # 10^5, 10^6 and 10^7 trainees, 3 runs each
    python bench/simulate.py --exponents 5 6 --repeat 5

The workload is the simulator's commonest application: one trainee per application (one
employer), all over the country, each trainee quoted under the 2013 split (application date
2014-01-15: a third each, $5,000 caps) and under the 2014 split (2015-01-15: two thirds up to
$10,000, no provincial share; no grant in Quebec) of the policy cjg-2014. The trainees are drawn
once from a seed and written as .npy columns, each in the narrowest integer type that holds its
values (the same files for both engines); each engine then runs in a process of its own,
which reads them, computes and writes its totals and a sample of trainees' shares:

- jobgrant, whole: every column read whole, and the whole population evaluated by one
  `evaluate` call per split (shares, totals and every eligibility check of each application;
  `evaluate` itself goes a chunk of applications at a time into output columns made once),
  summed, and dropped before the next split: what OpenFisca's run does;
- jobgrant, chunks: `jobgrant.rules.population`: the columns read and evaluated a chunk of
  applications at a time (`evaluate_in_chunks`), summed, and dropped, so that the population
  is never whole in memory (how the simulator runs);
- OpenFisca: openfisca-core from PyPI, installed by this benchmark in its own virtual
  environment (.tools/openfisca-venv, never a dependency of jobgrant), running the small
  country package bench/openfisca_cjg (the same shares and caps, dated parameters; the shares
  only), one simulation over every trainee for the two months, as OpenFisca computes.

For each N it prints, for each engine, the median over the runs of the whole-process wall time
(starting Python included), of its processor time (user + system: the machine is shared, and
the processor time is less shaken by the others' load than the wall time) and of its peak
memory (VmHWM, read by each process at its end), and the ratios jobgrant / OpenFisca, after
checking that the engines agree to the cent on the totals of each split and on every
trainee of a sample. The runs alternate between the engines, so that a slow moment of the
machine falls on each. If openfisca-core cannot be installed (no network), it says so and stops;
`--openfisca-up-to 6` leaves OpenFisca out of the larger populations (its memory grows with N).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
#: Where openfisca-core is installed (JOBGRANT_OPENFISCA_VENV: another place, e.g. outside a
#: checkout whose .tools is shared).
OPENFISCA_VENV = Path(
    os.environ.get("JOBGRANT_OPENFISCA_VENV") or ROOT / ".tools" / "openfisca-venv"
)
JOBGRANT_RUN = ROOT / "bench" / "jobgrant_run.py"  # OpenFisca's: bench/openfisca_cjg/run.py
OPENFISCA_REQUIREMENT = "openfisca-core==46.0.1"
UV = ROOT / ".tools" / "bin" / "uv"
POLICY = "cjg-2014"
#: Each split: its jobgrant application date and OpenFisca month.
SPLITS = {"2013": ("2014-01-15", "2014-01"), "2014": ("2015-01-15", "2015-01")}
SAMPLE = 1_000  # trainees whose shares are compared one by one


def write_trainees(n: int, seed: int, folder: Path) -> None:
    """The synthetic trainees, one column per .npy file, in the narrowest exact type."""
    rng = np.random.default_rng(seed)
    columns: dict[str, np.ndarray] = {
        "jurisdiction": rng.integers(0, 13, n, dtype=np.int8),
        "status": rng.choice(np.array([0, 1, 2], np.int8), n, p=[0.7, 0.2, 0.1]),
        "tuition": rng.integers(0, 1_800_000, n, dtype=np.int32),
        "student_fees": rng.integers(0, 20_000, n, dtype=np.int32).astype(np.int16),
        "materials": rng.integers(0, 50_000, n, dtype=np.int32),
        "exam_fees": rng.integers(0, 30_000, n, dtype=np.int32).astype(np.int16),
        # what only jobgrant reads: the employer and the training, for the eligibility checks
        "employees": rng.integers(1, 500, n, dtype=np.int32).astype(np.int16),
        "approved": rng.integers(0, 30_000_000, n, dtype=np.int32),  # cents already approved
        "lead_days": rng.integers(-5, 200, n, dtype=np.int16),  # application to start
        "duration_days": rng.integers(1, 400, n, dtype=np.int16),
        "hours": rng.integers(1_000, 20_000, n, dtype=np.int32).astype(np.int16),  # 1/100 h
        "setting": rng.integers(0, 3, n, dtype=np.int8),
        "third_party": rng.random(n) < 0.98,
        "sample": np.sort(rng.choice(n, min(SAMPLE, n), replace=False)),
    }
    for name, values in columns.items():
        np.save(folder / f"{name}.npy", values)
    (folder / "splits.json").write_text(json.dumps(SPLITS))  # {"2013": [date, month], ...}


def openfisca_python() -> Path | None:
    """OpenFisca's interpreter, installing openfisca-core from PyPI into its own virtual
    environment the first time (on the same CPython as jobgrant); None when it cannot be."""
    python = OPENFISCA_VENV / "bin" / "python"
    marker = OPENFISCA_VENV / ".installed"
    if marker.exists() and marker.read_text() == OPENFISCA_REQUIREMENT:
        return python
    base = (
        Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    )
    commands = [
        [str(UV), "venv", "--quiet", "--python", str(base), str(OPENFISCA_VENV)],
        # bytecode compiled at install, as jobgrant's is (PYTHONDONTWRITEBYTECODE may be set)
        [str(UV), "pip", "install", "--quiet", "--compile-bytecode", "--python", str(python)],
    ]
    commands[1].append(OPENFISCA_REQUIREMENT)
    for command in commands:
        if subprocess.run(command, check=False).returncode != 0:
            return None
    marker.write_text(OPENFISCA_REQUIREMENT)
    return python


@dataclass(frozen=True)
class Run:
    wall: float  # seconds, from start to exit of the process
    cpu: float  # seconds of processor time (user and system): less shaken by the machine's load
    peak: int  # bytes, the process's peak resident memory (VmHWM, as the process reports it)
    result: dict[str, Any]


def run_child(command: list[str], out: Path, env: dict[str, str] | None = None) -> Run:
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{command[0]} … failed with exit code {process.returncode}")
    cpu = usage.ru_utime + usage.ru_stime
    result = json.loads(out.read_text())
    return Run(wall, cpu, result.pop("peak"), result)


def check_agreement(n: int, jobgrant: dict[str, Any], openfisca: dict[str, Any]) -> None:
    for split in SPLITS:
        ours, theirs = jobgrant[split], openfisca[split]
        if ours["totals"] != theirs["totals"]:
            raise SystemExit(f"N={n}, {split} split: totals differ: {ours} against {theirs}")
        if ours["sample"] != theirs["sample"]:
            raise SystemExit(f"N={n}, {split} split: the sampled trainees' shares differ")


#: The runs of each N: jobgrant's whole population in one `evaluate` per split (what OpenFisca's
#: run does), jobgrant's population read and evaluated a chunk at a time, and OpenFisca.
ENGINES = ("jobgrant, whole", "jobgrant, chunks", "OpenFisca")


def bench(exponent: int, repeat: int, seed: int, python: Path, openfisca: bool) -> None:
    n = 10**exponent
    with tempfile.TemporaryDirectory(prefix="jobgrant-simbench-") as folder:
        data = Path(folder)
        write_trainees(n, seed, data)
        out = data / "out.json"
        env = {**os.environ, "PYTHONPATH": str(ROOT / "bench")}
        ours = [sys.executable, str(JOBGRANT_RUN), str(data), str(out)]
        commands = {
            "jobgrant, whole": ([*ours, "--whole"], None),
            "jobgrant, chunks": (ours, None),
            "OpenFisca": ([str(python), "-m", "openfisca_cjg.run", str(data), str(out)], env),
        }
        if not openfisca:
            del commands["OpenFisca"]
        runs: dict[str, list[Run]] = {engine: [] for engine in commands}
        for _ in range(repeat):
            for engine, (command, environment) in commands.items():
                runs[engine].append(run_child(command, out, environment))
            last = {engine: rs[-1].result for engine, rs in runs.items()}
            reference = last.get("OpenFisca", last["jobgrant, chunks"])
            for engine in ("jobgrant, whole", "jobgrant, chunks"):
                check_agreement(n, last[engine], reference)
    median = {
        engine: Run(
            statistics.median(r.wall for r in rs),
            statistics.median(r.cpu for r in rs),
            int(statistics.median(r.peak for r in rs)),
            rs[0].result,
        )
        for engine, rs in runs.items()
    }
    theirs = median.get("OpenFisca")
    for engine, run in median.items():
        ratios = "(OpenFisca not run at this N)"
        if theirs is not None:
            wall, cpu, peak = run.wall / theirs.wall, run.cpu / theirs.cpu, run.peak / theirs.peak
            ratios = f"{wall:5.2f} {cpu:5.2f} {peak:6.2f}"
        print(f"10^{exponent}  {engine:17s} {_figures(run)}   {ratios}", flush=True)


def _figures(run: Run) -> str:
    return f"{run.wall:6.2f} s {run.cpu:6.2f} s {run.peak / 2**20:6.0f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exponents", type=int, nargs="+", default=[5, 6, 7])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2013)
    parser.add_argument(
        "--openfisca-up-to",
        type=int,
        default=7,
        help="the largest exponent OpenFisca is run at (its memory grows with N)",
    )
    args = parser.parse_args()
    python = openfisca_python()
    # Bytecode compiled beforehand for both engines' modules, as `make` and uv install it
    # (PYTHONDONTWRITEBYTECODE may be set: each run would compile the sources again).
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "src")], check=True)
    if python is not None:
        package = str(ROOT / "bench" / "openfisca_cjg")
        subprocess.run([str(python), "-m", "compileall", "-q", package], check=True)
    if python is None:
        shutil.rmtree(OPENFISCA_VENV, ignore_errors=True)
        print(f"SKIPPED: {OPENFISCA_REQUIREMENT} could not be installed from PyPI (offline?)")
        return
    version = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('openfisca-core'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    today = dt.datetime.now(dt.UTC).date()
    print(f"jobgrant against openfisca-core {version}, one trainee per application, {today}")
    print(f"both splits of {POLICY} per trainee; whole process, median of {args.repeat} runs")
    print(f"load average {os.getloadavg()[0]:.2f} (other work on the machine slows every figure)")
    print("                          jobgrant / OpenFisca")
    print("N     run               wall     CPU      peak memory   wall  CPU   memory")
    for exponent in args.exponents:
        bench(exponent, args.repeat, args.seed, python, exponent <= args.openfisca_up_to)
    print("the runs agree to the cent on both splits' totals and on each sampled trainee")


if __name__ == "__main__":
    main()
