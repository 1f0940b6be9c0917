"""A population evaluated chunk by chunk: how the simulator calls the kernel.

`evaluate` over a whole population holds every trainee's figures at once: about 120 bytes of
outputs and temporaries per one-trainee application, on top of the inputs. A simulator wants
the totals, so it evaluates a chunk of applications at a time and keeps only what it sums:
peak memory then stays that of one chunk however large the population, the chunk's columns stay
in the processor's cache, and freed chunk-sized arrays are reused instead of fresh pages being
mapped and zeroed by the operating system for each one. Chunked and whole evaluations give the
same figures (tests/rules/test_population.py): every rule of the kernel is per application or
within one (the per-employer cap counts an employer's trainees in that application and its
`approved_this_fiscal_year`), so cutting between applications changes nothing.

Most simulated applications have one or two trainees. `one_trainee_applications` builds the
batch of the commonest shape, one trainee of one employer per application, from per-row columns
without the five offset and row-number columns a general batch carries (they are the same for
every chunk of a size, so they are made once).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields, replace

import numpy as np

from jobgrant.rules.batch import (
    I8,
    I64,
    POLICY_DEFAULT_DELIVERY,
    Applications,
    Bool,
    Employers,
    Ints,
    QuoteBatch,
    Trainees,
    one_trainee_structure,
)
from jobgrant.rules.evaluate import Engine, evaluate
from jobgrant.rules.evaluation import TOTAL_FIELDS, Evaluation
from jobgrant.rules.memory import keep_freed_memory
from jobgrant.rules.policies import DEFAULT_POLICY, Policy, PolicyLibrary


@dataclass(frozen=True)
class OneTraineeColumns:
    """Per application: one employer with one trainee. Integer columns of any width that holds
    the values (int32 costs, int16 day counts); dates as days from the shared application date."""

    jurisdiction: I8  # index into JURISDICTION_CODES
    employees: Ints
    approved_this_fiscal_year: Ints  # cents
    lead_days: Ints  # training start minus the application date
    duration_days: Ints  # first to last day of training, inclusive
    hours: Ints  # hundredths of an hour
    third_party: Bool
    setting: I8  # index into SETTINGS
    status: I8  # index into STATUSES
    tuition: Ints
    student_fees: Ints
    materials: Ints
    exam_fees: Ints
    wages_in_kind: Ints | None = None  # None: no trainee counts wages in kind

    def __len__(self) -> int:
        return len(self.jurisdiction)

    def rows(self, start: int, stop: int) -> OneTraineeColumns:
        """Applications start:stop (views)."""
        part = slice(start, stop)
        columns = {f.name: getattr(self, f.name) for f in fields(self)}
        return replace(self, **{k: v[part] for k, v in columns.items() if v is not None})


def one_trainee_applications(
    columns: OneTraineeColumns, application_date: np.datetime64
) -> QuoteBatch:
    """The batch of these applications, all made on `application_date`. The shared date, the
    region and the delivery (the policy's) are broadcast views of one value, and the offsets and
    row numbers, the same for every batch of a size, are made once per size."""
    n = len(columns)
    offsets, rows = one_trainee_structure(n)
    date = application_date.astype("datetime64[D]")
    start = date + columns.lead_days  # days added as integers: no conversion pass
    end = start + columns.duration_days
    end -= 1  # the duration counts the first and the last day
    wages = columns.wages_in_kind
    return QuoteBatch(
        Applications(
            jurisdiction=columns.jurisdiction,
            region=np.broadcast_to(np.int16(-1), (n,)),
            delivery=np.broadcast_to(np.int8(POLICY_DEFAULT_DELIVERY), (n,)),
            application_date=np.broadcast_to(date, (n,)),
            start_date=start,
            end_date=end,
            hours=columns.hours,
            third_party=columns.third_party,
            setting=columns.setting,
            employer_offsets=offsets,
        ),
        Employers(
            employees=columns.employees,
            approved_this_fiscal_year=columns.approved_this_fiscal_year,
            trainee_offsets=offsets,
            application=rows,
        ),
        Trainees(
            tuition=columns.tuition,
            student_fees=columns.student_fees,
            materials=columns.materials,
            exam_fees=columns.exam_fees,
            wages_in_kind=np.broadcast_to(np.int32(0), (n,)) if wages is None else wages,
            status=columns.status,
            employer=rows,
            application=rows,
        ),
    )


def evaluate_in_chunks(
    batches: Iterable[QuoteBatch],
    policy: str | Policy = DEFAULT_POLICY,
    *,
    library: PolicyLibrary | None = None,
    engine: Engine = "auto",
    keep_freed: bool = True,
) -> Iterator[Evaluation]:
    """`evaluate` of each batch in turn (e.g. `chunks(population)`, or batches made one at a
    time so that the population is never whole in memory); keep what you need of each.

    The process is told to keep freed memory (jobgrant.rules.memory): otherwise glibc returns
    the chunk's temporaries to the operating system after each chunk and every chunk pays
    again for fresh pages, which more than doubled the time per application. What it keeps
    is one chunk's working set, so peak memory stays flat; but the setting lasts as long as the
    process, so a process that must give memory back afterwards (a web worker) passes
    `keep_freed=False`."""
    if keep_freed:
        keep_freed_memory()
    for batch in batches:
        yield evaluate(batch, policy, library=library, engine=engine)


#: The money PopulationTotals sums (Totals properties).
MONEY = ("direct_cost", "in_kind", "eligible_cost", "federal", "provincial", "employer")


@dataclass
class PopulationTotals:
    """Sums over the evaluations added: every trainee's money (eligible or not), and the money
    and count of the eligible applications. Exact integers (cents)."""

    applications: int = 0
    eligible_applications: int = 0
    trainees: int = 0
    all_trainees: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MONEY, 0))
    eligible: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MONEY, 0))

    def add(self, evaluation: Evaluation) -> None:
        """Add an evaluation's applications: four sums over its stored columns (and four over
        the eligible rows), the derived figures by difference; a share never paid is zero."""
        stored = evaluation.applications
        eligible = evaluation.eligible
        self.applications += len(eligible)
        self.eligible_applications += int(np.count_nonzero(eligible))
        self.trainees += len(evaluation.batch.trainees)
        for totals, where in ((self.all_trainees, None), (self.eligible, eligible)):
            sums = {name: _sum(getattr(stored, name), where) for name in TOTAL_FIELDS}
            figures = {
                "direct_cost": sums["eligible_cost"] - sums["in_kind"],
                "employer": sums["eligible_cost"] - sums["federal"] - sums["provincial"],
                **sums,
            }
            for name in MONEY:
                totals[name] += figures[name]


def _sum(column: I64, where: Bool | None) -> int:
    if column.strides == (0,):  # a read-only zero view: a share the policy never pays
        return int(column[0]) * (len(column) if where is None else int(np.count_nonzero(where)))
    if where is None:
        return int(column.sum(dtype=np.int64))
    # times 0 or 1, then summed: exact, and 35 times faster than numpy's sum(where=) (33 ns a
    # row); a block at a time into one buffer, not an int64 copy of a whole population's column
    block = min(len(column), SUM_BLOCK)
    products = np.empty(block, dtype=np.int64)
    total = 0
    for start in range(0, len(column), block):
        part = slice(start, start + block)
        size = len(column[part])
        np.multiply(column[part], where[part], out=products[:size], dtype=np.int64)
        total += int(products[:size].sum())
    return total


#: Rows multiplied and summed at a time by _sum (a 512 KiB buffer, reused).
SUM_BLOCK = 1 << 16
