"""Compile the kernel's passes into Numba's disk cache at install, not at first use.

    python -m jobgrant.rules.precompile        # `make` runs it once compiled.py or the venv change

Numba compiles a pass the first time it meets a combination of constants (the rates' common
denominator, the in-kind denominators, which shares are paid) and of column types, and keeps
the machine code on disk beside compiled.py; a fresh checkout has none, so the first population
evaluated in it paid the compilation (3.4 s for one combination, more on a loaded machine).
This evaluates, with the compiled passes, under each shipped policy at each date on which one
of its values changes, one batch over every jurisdiction in each shape the kernel is given: a
general batch of int64 columns (requests, the simulator's mixed applications) and a population
of one trainee per application in narrow columns (population.one_trainee_applications). Every
later process loads the machine code from the cache instead of compiling it.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from jobgrant.rules import compiled
from jobgrant.rules.batch import QuoteBatch, rows_from_offsets
from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.evaluate import default_library, evaluate
from jobgrant.rules.population import OneTraineeColumns, one_trainee_applications


def population(n: int) -> OneTraineeColumns:
    """n applications spread over the jurisdictions, in the narrow types of a population."""
    rows = np.arange(n)
    cost = (rows % 7 * 100_000).astype(np.int32)
    return OneTraineeColumns(
        jurisdiction=(rows % len(JURISDICTION_CODES)).astype(np.int8),
        employees=(rows % 120 + 1).astype(np.int32),
        approved_this_fiscal_year=np.zeros(n, np.int32),
        lead_days=np.full(n, 45, np.int16),
        duration_days=np.full(n, 60, np.int16),
        hours=np.full(n, 4_000, np.int32),
        third_party=np.ones(n, np.bool_),
        setting=(rows % 3).astype(np.int8),
        status=(rows % 3).astype(np.int8),
        tuition=cost,
        student_fees=cost // 10,
        materials=cost // 20,
        exam_fees=cost // 50,
        wages_in_kind=cost // 4,
    )


def general(batch: QuoteBatch) -> QuoteBatch:
    """The same applications as a general batch: int64 columns, a date per row, offsets of
    their own (not the shared ones, so that nothing takes them for one trainee each)."""
    a, e, t = batch.applications, batch.employers, batch.trainees
    n = len(a)
    wide = np.int64
    offsets = np.arange(n + 1, dtype=np.int64)
    return QuoteBatch(
        type(a)(
            a.jurisdiction,
            np.full(n, -1, np.int16),
            np.full(n, -1, np.int8),
            np.array(a.application_date),
            a.start_date,
            a.end_date,
            a.hours.astype(wide),
            a.third_party,
            a.setting,
            offsets,
        ),
        type(e)(
            e.employees.astype(wide),
            e.approved_this_fiscal_year.astype(wide),
            offsets.copy(),
            rows_from_offsets(offsets),
        ),
        type(t)(
            t.tuition.astype(wide),
            t.student_fees.astype(wide),
            t.materials.astype(wide),
            t.exam_fees.astype(wide),
            np.array(t.wages_in_kind, dtype=wide),
            t.status,
            rows_from_offsets(offsets),
            rows_from_offsets(offsets),
        ),
    )


def main() -> None:
    started = time.perf_counter()
    library = default_library()
    columns = population(2 * 3 * len(JURISDICTION_CODES))
    for policy in library.policies.values():
        for on in library.breakpoints(policy):
            narrow = one_trainee_applications(columns, np.datetime64(on, "D"))
            for batch in (narrow, general(narrow)):
                evaluate(batch, policy, library=library, engine="compiled")
    made = len(compiled._ENTRY_POINTS)  # the passes loaded or compiled, one per combination
    seconds = time.perf_counter() - started
    sys.stderr.write(f"{made} compiled passes in Numba's disk cache ({seconds:.1f} s)\n")


if __name__ == "__main__":
    main()
