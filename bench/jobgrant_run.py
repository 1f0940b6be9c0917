"""One jobgrant run of bench/simulate.py: `python bench/jobgrant_run.py DATA OUT [--whole]`.

Its own small program, as OpenFisca's is (openfisca_cjg/run.py), so that neither process
imports what only the benchmark's driver needs. It reads the synthetic trainees the driver wrote
in DATA (.npy columns) a chunk of applications at a time, evaluates each chunk under the 2013 and
the 2014 split with `jobgrant.rules.population`, and writes the totals, a sample of trainees'
shares and its peak memory to OUT (JSON).

With --whole it does what OpenFisca's run does instead: every column read whole, and the whole
population evaluated by one `evaluate` call per split (the kernel's entry point, which chunks a
population itself), each evaluation summed and dropped before the next.
"""

from __future__ import annotations

import json
import sys
from dataclasses import fields
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np

from jobgrant.rules.chunks import CHUNK_APPLICATIONS
from jobgrant.rules.evaluate import evaluate
from jobgrant.rules.population import (
    OneTraineeColumns,
    PopulationTotals,
    evaluate_in_chunks,
    one_trainee_applications,
)

POLICY = "cjg-2014"
SHARES = ("federal", "provincial", "employer")
#: OneTraineeColumns fields whose file has another name.
COLUMN_FILES = {"approved_this_fiscal_year": "approved"}


class ColumnFiles:
    """The .npy columns of a folder, read a chunk of rows at a time: the population is never
    whole in memory (as a simulator drawing it chunk by chunk would not hold it)."""

    def __init__(self, folder: Path, names: tuple[str, ...]) -> None:
        self.columns: dict[str, tuple[Any, np.dtype[Any], int]] = {}
        for name in names:
            file = (folder / f"{name}.npy").open("rb")
            version = np.lib.format.read_magic(file)
            read_header = getattr(np.lib.format, f"read_array_header_{version[0]}_{version[1]}")
            shape, _, dtype = read_header(file)
            self.columns[name] = (file, dtype, file.tell())
            self.n = shape[0]

    def rows(self, start: int, stop: int) -> dict[str, np.ndarray]:
        read = {}
        for name, (file, dtype, offset) in self.columns.items():
            file.seek(offset + start * dtype.itemsize)
            # the bytes read, seen as the column (read-only): faster than np.fromfile
            read[name] = np.frombuffer(file.read((stop - start) * dtype.itemsize), dtype)
        return read


def main(data: Path, out: Path) -> None:
    """The population read, evaluated under both splits and summed a chunk of applications at
    a time; the totals, the sampled trainees' shares and the peak memory written to OUT."""
    names = tuple(f.name for f in fields(OneTraineeColumns) if f.name != "wages_in_kind")
    files = ColumnFiles(data, tuple(COLUMN_FILES.get(name, name) for name in names))
    sample = np.load(data / "sample.npy")
    starts = range(0, files.n, CHUNK_APPLICATIONS)

    def chunk(start: int) -> OneTraineeColumns:
        read = files.rows(start, min(start + CHUNK_APPLICATIONS, files.n))
        return OneTraineeColumns(**{name: read[COLUMN_FILES.get(name, name)] for name in names})

    # Each chunk read once and evaluated under both splits, one after the other.
    splits = json.loads((data / "splits.json").read_text())  # {"2013": ["2014-01-15", ...]}
    days = [np.datetime64(date) for date, _ in splits.values()]
    batches = (
        one_trainee_applications(columns, day) for columns in map(chunk, starts) for day in days
    )
    totals = {split: PopulationTotals() for split in splits}
    shares = {split: {share: [] for share in SHARES} for split in splits}
    evaluations = evaluate_in_chunks(batches, POLICY)
    for (start, split), evaluation in zip(product(starts, splits), evaluations, strict=True):
        totals[split].add(evaluation)
        rows = sample[(sample >= start) & (sample < start + CHUNK_APPLICATIONS)] - start
        for share, values in shares[split].items():
            values.extend(getattr(evaluation.trainees, share)[rows].tolist())
    write_result(out, totals, shares)


def main_whole(data: Path, out: Path) -> None:
    """The population read whole and evaluated by one `evaluate` call per split."""
    names = tuple(f.name for f in fields(OneTraineeColumns) if f.name != "wages_in_kind")
    columns = OneTraineeColumns(
        **{name: np.load(data / f"{COLUMN_FILES.get(name, name)}.npy") for name in names}
    )
    sample = np.load(data / "sample.npy")
    splits = json.loads((data / "splits.json").read_text())
    totals = {split: PopulationTotals() for split in splits}
    shares: dict[str, dict[str, list[int]]] = {}
    for split, (date, _) in splits.items():
        evaluation = evaluate(one_trainee_applications(columns, np.datetime64(date)), POLICY)
        totals[split].add(evaluation)
        # the sampled rows' figures (`employer` over the whole population would be a column)
        figures = [evaluation.trainees.at(int(row)) for row in sample]
        shares[split] = {share: [f[share] for f in figures] for share in SHARES}
        del evaluation  # as a user keeping the totals: the next split's figures replace it
    write_result(out, totals, shares)


def write_result(
    out: Path, totals: dict[str, PopulationTotals], shares: dict[str, dict[str, list[int]]]
) -> None:
    result: dict[str, object] = {
        split: {
            "totals": {share: totals[split].all_trainees[share] for share in SHARES},
            "sample": shares[split],
            "eligible": totals[split].eligible_applications,
        }
        for split in totals
    }
    result["peak"] = peak_memory()
    out.write_text(json.dumps(result))


def peak_memory() -> int:
    """This process's peak resident memory in bytes since it started its program (VmHWM).
    Not the parent's ru_maxrss of the child, which counts the parent's own memory, copied
    into the child between fork and exec, when that is the larger."""
    status = Path("/proc/self/status").read_text()
    line = next(line for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(line.split()[1]) * 1024


if __name__ == "__main__":
    (main_whole if "--whole" in sys.argv[3:] else main)(Path(sys.argv[1]), Path(sys.argv[2]))
