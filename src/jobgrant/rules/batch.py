"""The kernel's input: applications, employers and trainees as columns (numpy arrays).

One application is a batch of one. Trainees are stored grouped by employer and employers grouped
by application (offsets in CSR style), so totals per employer and per application are segment
sums, never a loop over rows. Money is integer cents and hours integer hundredths of an hour;
input columns may be any signed integer type that holds them (int32 or int16 where the values
fit: a population's columns are half as big), since every formula computes in int64. A column
that is the same for every row may be a read-only broadcast view of one value (numpy's
`broadcast_to`): a population's shared application date then takes no memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from jobgrant.rules.codes import JURISDICTION_CODES, economic_regions

SETTINGS: tuple[str, ...] = ("on-site", "off-site", "online")
STATUSES: tuple[str, ...] = ("existing-employee", "new-hire", "unemployed")
DELIVERIES: tuple[str, ...] = ("provincial", "federal-direct", "separate-agreement")
COST_CATEGORIES: tuple[str, ...] = ("tuition", "student_fees", "materials", "exam_fees")
UNEMPLOYED = STATUSES.index("unemployed")
PROVINCIAL = DELIVERIES.index("provincial")
#: Delivery code meaning "the policy's default for the jurisdiction".
POLICY_DEFAULT_DELIVERY = -1

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
I8 = npt.NDArray[np.int8]
Bool = npt.NDArray[np.bool_]
Days = npt.NDArray[np.datetime64]
#: An input column of integers: int64, or narrower where the values fit (computed in int64).
Ints = npt.NDArray[np.signedinteger[Any]]


def region_codes() -> tuple[str, ...]:
    """Economic region codes in index order (the region column holds indexes into this)."""
    return tuple(sorted(economic_regions()))


@dataclass(frozen=True)
class Applications:
    jurisdiction: I8  # index into JURISDICTION_CODES
    region: npt.NDArray[np.int16]  # index into region_codes(), -1 when none is given
    delivery: I8  # index into DELIVERIES, or POLICY_DEFAULT_DELIVERY
    application_date: Days
    start_date: Days
    end_date: Days
    hours: Ints  # hundredths of an hour
    third_party: Bool
    setting: I8  # index into SETTINGS
    employer_offsets: I64  # employers of application a: employer_offsets[a]:employer_offsets[a+1]

    def __len__(self) -> int:
        return len(self.jurisdiction)


@dataclass(frozen=True)
class Employers:
    employees: Ints
    approved_this_fiscal_year: Ints  # cents of government money already approved
    trainee_offsets: I64  # trainees of employer e: trainee_offsets[e]:trainee_offsets[e+1]
    application: I32  # row in Applications

    def __len__(self) -> int:
        return len(self.employees)


@dataclass(frozen=True)
class Trainees:
    tuition: Ints
    student_fees: Ints
    materials: Ints
    exam_fees: Ints
    wages_in_kind: Ints
    status: I8  # index into STATUSES
    employer: I32  # row in Employers
    application: I32  # row in Applications

    def __len__(self) -> int:
        return len(self.tuition)


@dataclass(frozen=True)
class QuoteBatch:
    applications: Applications
    employers: Employers
    trainees: Trainees

    def jurisdiction_code(self, application: int) -> str:
        return JURISDICTION_CODES[int(self.applications.jurisdiction[application])]

    def region_code(self, application: int) -> str | None:
        index = int(self.applications.region[application])
        return region_codes()[index] if index >= 0 else None

    @cached_property
    def one_trainee_each(self) -> bool:
        """Whether each application has one employer with one trainee (the simulator's
        commonest case): every sum per employer or application is then the trainee's figure."""
        n = len(self.trainees)
        if not len(self.applications) == len(self.employers) == n:
            return False
        offsets, _ = one_trainee_structure(n)
        employer_offsets, trainee_offsets = (
            self.applications.employer_offsets,
            self.employers.trainee_offsets,
        )
        if employer_offsets is offsets and trainee_offsets is offsets:
            return True  # made by one_trainee_structure: no need to compare
        return bool(np.array_equal(employer_offsets, offsets)) and bool(
            np.array_equal(trainee_offsets, offsets)
        )


@lru_cache(maxsize=4)  # a population in chunks has two sizes: the chunk's and the last one's
def one_trainee_structure(n: int) -> tuple[I64, I32]:
    """For n applications of one employer with one trainee: the offsets 0..n and the row
    numbers 0..n-1, made once per size and read-only, since every such batch shares them."""
    offsets, rows = np.arange(n + 1, dtype=np.int64), np.arange(n, dtype=np.int32)
    offsets.setflags(write=False)
    rows.setflags(write=False)
    return offsets, rows


def rows_from_offsets(offsets: I64) -> I32:
    """The owner row of each member: [0, 2, 3] -> [0, 0, 1]."""
    counts = np.diff(offsets)
    return np.repeat(np.arange(len(counts), dtype=np.int32), counts)


class ChunkedSegmentSums:
    """Per-segment sums of several columns, accumulated chunk by chunk while they are hot.

    Keeps the running total of each column at every segment end; the sums are the differences.
    Exact in int64, right for empty segments, and no pass over the whole arrays afterwards.
    """

    def __init__(self, offsets: I64, n_columns: int) -> None:
        self.offsets = offsets
        self.running_at_offsets = np.zeros((n_columns, len(offsets)), dtype=np.int64)
        self.carry = np.zeros(n_columns, dtype=np.int64)
        self.scratch = np.empty(0, dtype=np.int64)

    def add(self, start: int, columns: list[I64]) -> None:
        """Add the chunk of rows start:start+len(columns[0])."""
        size = len(columns[0])
        if len(self.scratch) < size:
            self.scratch = np.empty(size, dtype=np.int64)
        running = self.scratch[:size]  # reused: stays in the CPU cache from chunk to chunk
        first = int(np.searchsorted(self.offsets, start, side="right"))
        last = int(np.searchsorted(self.offsets, start + size, side="right"))
        positions = self.offsets[first:last] - (start + 1)
        for i, column in enumerate(columns):
            np.cumsum(column, out=running)
            at_ends = self.running_at_offsets[i, first:last]
            np.take(running, positions, out=at_ends, mode="clip")  # positions are in the chunk
            at_ends += self.carry[i]
            self.carry[i] += running[-1]

    def sums(self, groups: I64 | None = None) -> list[I64]:
        """The sum of each segment; with `groups` (offsets into the segments, CSR style), the
        sum of each group of consecutive segments."""
        running = self.running_at_offsets
        if groups is not None:
            running = np.take(running, groups, axis=1, mode="clip")  # groups index the segments
        return [row[1:] - row[:-1] for row in running]
