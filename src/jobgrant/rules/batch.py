"""The kernel's input: applications, employers and trainees as columns (numpy arrays).

One application is a batch of one. Trainees are stored grouped by employer and employers grouped
by application (offsets in CSR style), so totals per employer and per application are segment
sums, never a loop over rows. Money is int64 cents; hours are int64 hundredths of an hour.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    hours: I64  # hundredths of an hour
    third_party: Bool
    setting: I8  # index into SETTINGS
    employer_offsets: I64  # employers of application a: employer_offsets[a]:employer_offsets[a+1]

    def __len__(self) -> int:
        return len(self.jurisdiction)


@dataclass(frozen=True)
class Employers:
    employees: I64
    approved_this_fiscal_year: I64  # cents of government money already approved
    trainee_offsets: I64  # trainees of employer e: trainee_offsets[e]:trainee_offsets[e+1]
    application: I32  # row in Applications

    def __len__(self) -> int:
        return len(self.employees)


@dataclass(frozen=True)
class Trainees:
    tuition: I64
    student_fees: I64
    materials: I64
    exam_fees: I64
    wages_in_kind: I64
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


def rows_from_offsets(offsets: I64) -> I32:
    """The owner row of each member: [0, 2, 3] -> [0, 0, 1]."""
    counts = np.diff(offsets)
    return np.repeat(np.arange(len(counts), dtype=np.int32), counts)


def segment_sum(values: I64, offsets: I64) -> I64:
    """Sum of values[offsets[i]:offsets[i+1]] for every segment, exactly, in int64.

    A running total read at the segment ends: one pass, three times faster than
    np.add.reduceat on short segments, and right for empty segments.
    """
    running = np.empty(len(values) + 1, dtype=np.int64)
    running[0] = 0
    np.cumsum(values, out=running[1:])
    ends = np.take(running, offsets)
    sums: I64 = ends[1:] - ends[:-1]
    return sums


class ChunkedSegmentSums:
    """Per-segment sums of several columns, accumulated chunk by chunk while they are hot.

    Keeps the running total of each column at every segment end; the sums are the differences.
    Exact in int64, right for empty segments, and no pass over the whole arrays afterwards.
    """

    def __init__(self, offsets: I64, n_columns: int) -> None:
        self.offsets = offsets
        self.running_at_offsets = np.zeros((n_columns, len(offsets)), dtype=np.int64)
        self.carry = np.zeros(n_columns, dtype=np.int64)

    def add(self, start: int, columns: list[I64]) -> None:
        """Add the chunk of rows start:start+len(columns[0])."""
        stop = start + len(columns[0])
        first = int(np.searchsorted(self.offsets, start, side="right"))
        last = int(np.searchsorted(self.offsets, stop, side="right"))
        positions = self.offsets[first:last] - start - 1
        for i, column in enumerate(columns):
            running = np.cumsum(column)
            self.running_at_offsets[i, first:last] = self.carry[i] + running[positions]
            self.carry[i] += running[-1]

    def sums(self) -> list[I64]:
        return [np.diff(row) for row in self.running_at_offsets]


def segment_any(flags: Bool, offsets: I64) -> Bool:
    """Whether any of flags[offsets[i]:offsets[i+1]] is true, for every segment."""
    found: Bool = segment_sum(flags.view(np.int8).astype(np.int64), offsets) > 0
    return found
