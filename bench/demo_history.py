"""Benchmark of the demonstration history (`make run`'s worker loads it once on a fresh
database): how long the walk of its files through the service's actions takes.

    python bench/demo_history.py [--files-per-year ON=2,PE=1] [--seed N]

It prepares a fresh SQLite database in a temporary directory (migrated, demonstration data),
then loads the history (by default the whole one of data/demo-history.yaml) and prints the
files, trainees and steps, the wall and CPU seconds, and the load average before and after
(other work on a shared machine changes the wall time most).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path


def _sizes(text: str) -> dict[str, int] | None:
    if not text:
        return None
    return {code: int(count) for code, count in (part.split("=") for part in text.split(","))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files-per-year", default="")
    parser.add_argument("--seed", type=int, default=None)
    arguments = parser.parse_args()
    var = Path(tempfile.mkdtemp(prefix="jobgrant-bench-history-"))
    os.environ["JOBGRANT_VAR_DIR"] = str(var)
    os.environ["JOBGRANT_DATABASE_URL"] = f"sqlite:///{var / 'bench.sqlite3'}"
    os.environ.setdefault("JOBGRANT_ENV", "development")
    from jobgrant.service.commands import prepare_database

    prepare_database(with_demo=True)
    from jobgrant.service.demo_history.load import seed_history

    before = os.getloadavg()
    loaded = seed_history(arguments.seed, files_per_year=_sizes(arguments.files_per_year))
    after = os.getloadavg()
    assert loaded is not None
    print(
        f"history: {loaded.files} files, {loaded.trainees} trainees, {loaded.refused} refused "
        f"files (the comparison group), {loaded.steps} steps "
        f"(seed {loaded.seed})\n"
        f"wall {loaded.seconds:.1f} s, CPU {loaded.cpu_seconds:.1f} s "
        f"({loaded.cpu_seconds / loaded.steps * 1000:.0f} ms of CPU a step)\n"
        f"load average before {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}, "
        f"after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}"
    )


if __name__ == "__main__":
    main()
