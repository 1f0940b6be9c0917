"""The trainee formulas compiled to machine code, for batches of hundreds of thousands of trainees.

The numpy formulas (formulas/shares.py) are the definition: readable, chunked, and what every
small batch (a quote, an application in the service) runs. For a whole population they pay for
going over memory once per operation, about twenty passes per trainee. This module computes the
same figures in one pass per trainee with Numba: each trainee's costs are read once, every share
is computed while they are in registers, and the employer and application totals are added as
it goes. Tests check that both give the same figures, to the cent, on generated batches
(tests/rules/test_compiled_engine.py); docs/adr/0005-compiled-trainee-pass.md says why.

Every division is by a constant the compiler knows (`numba.literally`): the rates' common
denominator and the two in-kind denominators brought to common denominators. A machine division
by a value only known at run time costs tens of cycles; by a constant it is a multiplication.
Money stays int64 cents throughout; nothing here uses floats.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import numba
import numpy as np
from numba.misc.special import literally  # numba.literally, where mypy can see it

from jobgrant.rules.batch import I64, UNEMPLOYED, Bool, QuoteBatch
from jobgrant.rules.formulas.key_rules import NOT_SET, RuleColumns

F = TypeVar("F", bound=Callable[..., Any])

#: The rule columns the pass reads, one row each of the table it is given (index = position).
RULES = (
    "federal_rate", "federal_cap", "provincial_rate", "provincial_cap", "unemployed_rate",
    "unemployed_cap", "unemployed_max_employees", "in_kind_max_employees", "government_cap",
    "in_kind_uncapped", "in_kind_capped",
)  # fmt: skip
(
    FEDERAL_RATE, FEDERAL_CAP, PROVINCIAL_RATE, PROVINCIAL_CAP, UNEMPLOYED_RATE, UNEMPLOYED_CAP,
    UNEMPLOYED_MAX_EMPLOYEES, IN_KIND_MAX_EMPLOYEES, GOVERNMENT_CAP, IN_KIND_UNCAPPED,
    IN_KIND_CAPPED,
) = range(len(RULES))  # fmt: skip

ONE = np.uint64(1)  # adding a signed 1 would make a row number signed again

#: Largest in-kind common denominator the pass accepts: above it, the scaled numerators could
#: overflow int64 on the largest amounts the input allows, and the numpy formulas are used.
MAX_IN_KIND_DENOMINATOR = 1_000


def _compiled(function: F) -> F:
    """Compile with Numba, keeping the machine code on disk between processes."""
    return cast(F, numba.njit(cache=True, nogil=True)(function))


@dataclass(frozen=True)
class CompiledRules:
    """The rule columns as one int64 table (row = key, column = RULES entry), with the in-kind
    multipliers over common denominators."""

    table: I64
    denominator: int
    in_kind_uncapped_denominator: int
    in_kind_capped_denominator: int


def compiled_rules(rules: RuleColumns) -> CompiledRules | None:
    """The table for the pass, or None when the in-kind fractions need too large a common
    denominator (the numpy formulas handle that case)."""
    present = rules.present
    uncapped = _common(rules, "in_kind_uncapped", present)
    capped = _common(rules, "in_kind_capped", present)
    if uncapped is None or capped is None:
        return None
    scaled = {
        "in_kind_uncapped": _over(rules, "in_kind_uncapped", uncapped),
        "in_kind_capped": _over(rules, "in_kind_capped", capped),
    }
    columns = [scaled[name] if name in scaled else rules[name] for name in RULES]
    table = np.ascontiguousarray(np.stack(columns, axis=1))  # one key's rules side by side
    return CompiledRules(table, rules.denominator, uncapped, capped)


def _common(rules: RuleColumns, fraction: str, present: I64) -> int | None:
    denominators = rules[f"{fraction}_denominator"][present]
    common = math.lcm(*(int(d) for d in denominators)) if len(denominators) else 1
    return common if common <= MAX_IN_KIND_DENOMINATOR else None


def _over(rules: RuleColumns, fraction: str, common: int) -> I64:
    """The fraction's numerator over `common` (keys without values keep a zero)."""
    numerator, denominator = rules[f"{fraction}_numerator"], rules[f"{fraction}_denominator"]
    factor = np.where(denominator > 0, common // np.maximum(denominator, 1), 0)
    scaled: I64 = numerator * factor
    return scaled


@dataclass(frozen=True)
class PassResult:
    """Trainee columns (None: zero for every trainee), the same summed per employer and per
    application (rows: in kind, eligible cost, federal, provincial), where the unemployed rule
    applied and which trainees have no direct cost."""

    in_kind: I64 | None
    eligible_cost: I64
    federal: I64
    provincial: I64 | None
    employer_sums: I64  # shape (4, employers)
    application_sums: I64  # shape (4, applications)
    unemployed: Bool
    without_costs: Bool


def trainee_pass(
    batch: QuoteBatch, key: I64, rules: CompiledRules, in_kind: bool, provincial: bool
) -> PassResult:
    """Run the pass; `in_kind` and `provincial` say whether those columns can be non-zero."""
    t, n = batch.trainees, len(batch.trainees)
    columns = [np.empty(n if kept else 0, dtype=np.int64) for kept in (in_kind, 1, 1, provincial)]
    # running totals over the batch, at each employer's and each application's last trainee
    employer_running = np.empty((4, len(batch.employers) + 1), dtype=np.int64)
    application_running = np.empty((4, len(batch.applications) + 1), dtype=np.int64)
    unemployed, without_costs = np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.bool_)
    constants = (
        rules.denominator, rules.in_kind_uncapped_denominator, rules.in_kind_capped_denominator,
        in_kind, provincial,
    )  # fmt: skip
    _run(_pass, constants, (
        t.tuition, t.student_fees, t.materials, t.exam_fees, t.wages_in_kind, t.status,
        t.employer, t.application, key, batch.employers.employees, rules.table,
        *columns, employer_running, application_running, unemployed, without_costs,
    ))  # fmt: skip
    _carry_over_empty_rows(batch.employers.trainee_offsets, employer_running)
    _carry_over_empty_rows(batch.employers.trainee_offsets[batch.applications.employer_offsets],
                           application_running)  # fmt: skip
    return PassResult(
        columns[0] if in_kind else None, columns[1], columns[2],
        columns[3] if provincial else None,
        np.diff(employer_running, axis=1), np.diff(application_running, axis=1),
        unemployed, without_costs,
    )  # fmt: skip


Constants = tuple[int, int, int, bool, bool]
_numba_type = cast(Callable[[object], object], numba.typeof)
_ENTRY_POINTS: dict[tuple[Constants, tuple[object, ...]], Callable[..., None]] = {}


def _run(function: Any, constants: Constants, arrays: tuple[np.ndarray, ...]) -> None:
    """Call the machine code made for these constants and array types.

    Calling the Numba function itself would work too, but with literal arguments it retypes
    them on every call (about 50 ms); the machine code it compiled is kept per combination and
    called directly. The first call of a combination compiles it, or loads it from the disk
    cache.
    """
    types = tuple(_numba_type(array) for array in arrays)
    entry = _ENTRY_POINTS.get((constants, types))
    if entry is not None:
        entry(*constants, *arrays)
        return
    function(*constants, *arrays)
    for signature, compiled in function.overloads.items():
        literal_values = tuple(t.literal_value for t in signature[: len(constants)])
        if literal_values == constants and tuple(signature[len(constants) :]) == types:
            _ENTRY_POINTS[(constants, types)] = compiled.entry_point


def _carry_over_empty_rows(trainee_offsets: I64, running: I64) -> None:
    """Rows without trainees (an employer listed with none) were never written: their running
    totals are those of the row before (zero before the first)."""
    empty = np.flatnonzero(trainee_offsets[1:] == trainee_offsets[:-1]) + 1
    running[:, 0] = 0
    for row in empty:  # rare rows, in order, so each copies an already-correct total
        running[:, row] = running[:, row - 1]


@_compiled
def _smaller(a: int, b: int) -> int:
    """min(a, b) without a branch, for amounts far from the int64 limits: the sign bit of
    a - b, spread over the word, keeps the difference only where a is the smaller. The compiler
    turns `min` into a branch here, which the processor mispredicts whenever a cap binds."""
    difference = a - b
    return b + (difference & (difference >> 63))


@_compiled
def _pass(  # type: ignore[no-untyped-def]
    denominator, uncapped_denominator, capped_denominator, count_in_kind, pay_provincial,
    tuition, student_fees, materials, exam_fees, wages_in_kind, status, employer, application,
    application_key, employees, r,
    in_kind, eligible_cost, federal, provincial, employer_running, application_running,
    unemployed, without_costs,
):  # fmt: skip
    """One trainee at a time: the formulas of formulas/shares.py, in the same order.

    Written for the processor: no branch on the data (`&` rather than `and`, a 0/1 factor
    rather than `if`: whether a trainee is an unemployed hire or has wages is unpredictable, and
    a mispredicted branch costs more than a figure multiplied by zero); row numbers read from
    the batch made unsigned, which tells the compiler they need no negative-index fix-up; and
    sums kept as running totals in registers, stored at the trainee's employer and application
    (the last trainee's store stays), so no memory is read back.
    """
    # compiled once per combination of these values, which become constants in the code
    denominator, count_in_kind = literally(denominator), literally(count_in_kind)
    uncapped_denominator = literally(uncapped_denominator)
    capped_denominator = literally(capped_denominator)
    pay_provincial = literally(pay_provincial)
    total_in_kind = total_eligible = total_federal = total_provincial = 0
    for i in range(len(tuition)):
        e, a = np.uint64(employer[i]), np.uint64(application[i])
        size, rules = employees[e], r[np.uint64(application_key[a])]
        e, a = e + ONE, a + ONE  # rows of the running totals (row 0: before the first)
        direct = tuition[i] + student_fees[i] + materials[i] + exam_fees[i]
        without_costs[i] = direct == 0
        # an unemployed hire the jurisdiction's rule covers: its own rate and cap, no wages
        covered = (
            (status[i] == UNEMPLOYED)
            & (rules[UNEMPLOYED_RATE] != NOT_SET)
            & (size <= rules[UNEMPLOYED_MAX_EMPLOYEES])
        )
        unemployed[i] = covered
        eligible = direct
        if count_in_kind:  # a compile-time constant: no test per trainee
            below_cap = direct * rules[IN_KIND_UNCAPPED] // uncapped_denominator
            above_cap = max(direct - rules[GOVERNMENT_CAP], 0)
            above_cap = above_cap * rules[IN_KIND_CAPPED] // capped_denominator
            counts = (size <= rules[IN_KIND_MAX_EMPLOYEES]) & ~covered
            counted = _smaller(wages_in_kind[i], max(below_cap, above_cap) * counts)
            in_kind[i] = counted
            eligible += counted
            total_in_kind += counted
            employer_running[0, e] = application_running[0, a] = total_in_kind
        rate = rules[UNEMPLOYED_RATE] if covered else rules[FEDERAL_RATE]
        cap = rules[UNEMPLOYED_CAP] if covered else rules[FEDERAL_CAP]
        fed = _smaller(eligible * rate // denominator, cap)
        eligible_cost[i], federal[i] = eligible, fed
        total_eligible += eligible
        total_federal += fed
        employer_running[1, e] = application_running[1, a] = total_eligible
        employer_running[2, e] = application_running[2, a] = total_federal
        if pay_provincial:
            rate, cap = rules[PROVINCIAL_RATE], rules[PROVINCIAL_CAP]
            prov = _smaller(eligible * rate // denominator, cap)
            provincial[i] = prov
            total_provincial += prov
            employer_running[3, e] = application_running[3, a] = total_provincial
