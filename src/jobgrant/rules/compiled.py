"""The kernel's formulas compiled to machine code, for batches of hundreds of thousands of trainees.

The numpy formulas (formulas/shares.py, formulas/eligibility.py) are the definition: readable,
chunked, and what every small batch (a quote, an application in the service) runs. Over a whole
population they pay for going over memory once per operation, about twenty passes per trainee.
This module computes the same figures in three passes with Numba: one over the trainees (each
trainee's costs read once, every share computed while they are in registers, running totals
kept as it goes), one over the employers (their sums, the employer cap) and one over the
applications (their sums, every other check of eligibility.py). Tests check that both ways give
the same figures and failures, to the cent, on generated batches and on every policy case
(tests/rules/test_compiled_engine.py); docs/adr/0005-compiled-passes.md says why.

Every division is by a constant the compiler knows (`literally`): the rates' common denominator
and the two in-kind denominators brought to common denominators. A machine division by a value
only known at run time costs tens of cycles; by a constant it is a multiplication.
Money stays int64 cents throughout; nothing here uses floats.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import numba
import numpy as np
from numba.misc.special import literally  # numba.literally, where mypy can see it

from jobgrant.rules.batch import I64, UNEMPLOYED, Bool, QuoteBatch
from jobgrant.rules.formulas.eligibility import APPLICATION_RULES, days
from jobgrant.rules.formulas.key_rules import NOT_SET, RuleColumns

#: The rule columns the passes read: one key's values side by side in a row of the table.
RULES = (
    "federal_rate",
    "federal_cap",
    "provincial_rate",
    "provincial_cap",
    "unemployed_rate",
    "unemployed_cap",
    "unemployed_max_employees",
    "in_kind_max_employees",
    "government_cap",
    "in_kind_uncapped",
    "in_kind_capped",
    *APPLICATION_RULES,
    "employer_cap",
    "setting_allowed_0",
    "setting_allowed_1",
    "setting_allowed_2",
)
# SETTING_ALLOWED + setting (0, 1 or 2) is one of the last three columns
(
    FEDERAL_RATE,
    FEDERAL_CAP,
    PROVINCIAL_RATE,
    PROVINCIAL_CAP,
    UNEMPLOYED_RATE,
    UNEMPLOYED_CAP,
    UNEMPLOYED_MAX_EMPLOYEES,
    IN_KIND_MAX_EMPLOYEES,
    GOVERNMENT_CAP,
    IN_KIND_UNCAPPED,
    IN_KIND_CAPPED,
    GRANT_AVAILABLE,
    THIRD_PARTY_REQUIRED,
    MUST_PRECEDE_TRAINING,
    MIN_LEAD_DAYS,
    MAX_LEAD_DAYS,
    MAX_DURATION_DAYS,
    MIN_HOURS,
    MINIMUM_COST,
    EMPLOYER_CAP,
    SETTING_ALLOWED,
) = range(len(RULES) - 2)

#: The application checks in the order of eligibility.APPLICATION_CHECKS (a test keeps them so).
APPLICATION_CODES = (
    "JURISDICTION_WITHOUT_GRANT",
    "PROVIDER_NOT_THIRD_PARTY",
    "TRAINING_SETTING_NOT_ELIGIBLE",
    "TRAINING_STARTED_BEFORE_APPLICATION",
    "APPLICATION_TOO_CLOSE_TO_START",
    "TRAINING_STARTS_TOO_FAR_AHEAD",
    "TRAINING_TOO_LONG",
    "TRAINING_TOO_SHORT",
    "MINIMUM_COST_NOT_MET",
)

ONE = np.uint64(1)  # adding a signed 1 would make a row number signed again

#: Largest in-kind common denominator the pass accepts: above it, the scaled numerators could
#: overflow int64 on the largest amounts the input allows, and the numpy formulas are used.
MAX_IN_KIND_DENOMINATOR = 1_000


def _compiled(function: Callable[..., Any]) -> Callable[..., Any]:
    """Compile with Numba, keeping the machine code on disk between processes."""
    return cast(Callable[..., Any], numba.njit(cache=True, nogil=True)(function))


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
class CompiledResult:
    """Everything the passes computed: trainee columns (None: zero for every trainee), the same
    summed per employer and per application (rows: in kind, eligible cost, federal, provincial;
    for applications a fifth, the number of trainees without direct cost), where the unemployed
    rule applied, which trainees have no direct cost, the failures of the application checks
    (one row per APPLICATION_CODES entry) and of the employer cap, and eligibility."""

    in_kind: I64 | None
    eligible_cost: I64
    federal: I64
    provincial: I64 | None
    employer_sums: I64  # shape (4, employers); rows of a share never paid are not written
    application_sums: I64  # shape (5, applications); the same
    unemployed: Bool
    without_costs: Bool
    application_failures: Bool  # shape (len(APPLICATION_CODES), applications), strided rows
    employer_cap_exceeded: Bool
    eligible: Bool


def evaluate_batch(
    batch: QuoteBatch, key: I64, rules: CompiledRules, in_kind: bool, provincial: bool
) -> CompiledResult:
    """Run the three passes; `in_kind` and `provincial` say whether those columns can be
    non-zero. The trainee pass leaves running totals; the employer and application passes turn
    them into sums as they check the caps and the applications."""
    t, n = batch.trainees, len(batch.trainees)
    apps, employers = batch.applications, batch.employers
    columns = [np.empty(n if kept else 0, dtype=np.int64) for kept in (in_kind, 1, 1, provincial)]
    # running totals over the batch, at each employer's and each application's last trainee
    employer_running = np.empty((4, len(employers) + 1), dtype=np.int64)
    application_running = np.empty((5, len(apps) + 1), dtype=np.int64)
    unemployed, without_costs = np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.bool_)
    constants = (
        rules.denominator,
        rules.in_kind_uncapped_denominator,
        rules.in_kind_capped_denominator,
        in_kind,
        provincial,
    )
    _run(
        _trainee_pass,
        constants,
        (
            t.tuition,
            t.student_fees,
            t.materials,
            t.exam_fees,
            t.wages_in_kind,
            t.status,
            t.employer,
            t.application,
            key,
            employers.employees,
            rules.table,
            # written
            *columns,
            employer_running,
            application_running,
            unemployed,
            without_costs,
        ),
    )
    employer_cap_exceeded = np.empty(len(employers), dtype=np.bool_)
    has_employer_over = np.zeros(len(apps), dtype=np.bool_)
    _run(
        _employer_pass,
        (in_kind, provincial),
        (
            employers.trainee_offsets,
            employers.application,
            key,
            employer_running,
            employers.approved_this_fiscal_year,
            rules.table,
            # written
            employer_cap_exceeded,
            has_employer_over,
        ),
    )
    failures = np.empty((len(apps), len(APPLICATION_CODES)), dtype=np.bool_)
    eligible = np.empty(len(apps), dtype=np.bool_)
    _run(
        _application_pass,
        (in_kind, provincial),
        (
            employers.trainee_offsets,
            apps.employer_offsets,
            key,
            days(apps.application_date),
            days(apps.start_date),
            days(apps.end_date),
            apps.hours,
            apps.third_party,
            apps.setting,
            application_running,
            has_employer_over,
            rules.table,
            # written
            failures,
            eligible,
        ),
    )
    return CompiledResult(
        columns[0] if in_kind else None,
        columns[1],
        columns[2],
        columns[3] if provincial else None,
        employer_running[:, 1:],
        application_running[:, 1:],
        unemployed,
        without_costs,
        failures.T,
        employer_cap_exceeded,
        eligible,
    )


Constants = tuple[int | bool, ...]
_numba_type = cast(Callable[[object], object], numba.typeof)
_literal_type = cast(Callable[[object], object], numba.types.literal)
_ENTRY_POINTS: dict[tuple[object, Constants, tuple[object, ...]], Callable[..., None]] = {}


def _run(function: Any, constants: Constants, arrays: tuple[np.ndarray, ...]) -> None:
    """Call the machine code made for these constants and array types.

    Calling the Numba function with plain values would work too, but then it types them as
    run-time values first and retries with the constants on every call (about 50 ms); the
    signature is given with the constants as literals, and the machine code for it, loaded from
    the disk cache or compiled once, is called directly.
    """
    types = tuple(_numba_type(array) for array in arrays)
    entry = _ENTRY_POINTS.get((function, constants, types))
    if entry is None:
        signature = tuple(_literal_type(c) for c in constants) + types
        entry = _ENTRY_POINTS[(function, constants, types)] = function.compile(signature)
    entry(*constants, *arrays)


@_compiled
def _divide(amount, denominator):  # type: ignore[no-untyped-def]
    """amount // denominator for an amount that is never negative: done unsigned, it needs no
    rounding fix-up for negative numbers (a third fewer instructions by a constant)."""
    return np.int64(np.uint64(amount) // np.uint64(denominator))


@_compiled
def _smaller(a: int, b: int) -> int:
    """min(a, b) without a branch: the sign bit of a - b, spread over the word, keeps the
    difference only where a is the smaller. Exact while a - b fits in int64, as it does for
    amounts and caps (NO_LIMIT is 2^61). The compiler turns `min` into a branch here, which the
    processor mispredicts whenever a cap binds."""
    difference = a - b
    return b + (difference & (difference >> 63))


@_compiled
def _trainee_pass(  # type: ignore[no-untyped-def]
    # constants: compiled in as literals
    denominator,
    uncapped_denominator,
    capped_denominator,
    count_in_kind,
    pay_provincial,
    # read: per trainee, then per application and employer, and the rule table
    tuition,
    student_fees,
    materials,
    exam_fees,
    wages_in_kind,
    status,
    employer,
    application,
    application_key,
    employees,
    r,
    # written: per trainee, and the running totals
    in_kind,
    eligible_cost,
    federal,
    provincial,
    employer_running,
    application_running,
    unemployed,
    without_costs,
):
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
    total_in_kind = total_eligible = total_federal = total_provincial = total_without = 0
    for i in range(len(tuition)):
        e, a = np.uint64(employer[i]), np.uint64(application[i])
        size, rules = employees[e], r[np.uint64(application_key[a])]
        e, a = e + ONE, a + ONE  # columns of the running totals (column 0: before the first)
        # int(): int64 in machine code, whatever the columns' type (int32 where values fit)
        direct = int(tuition[i]) + int(student_fees[i]) + int(materials[i]) + int(exam_fees[i])
        without_costs[i] = direct == 0
        total_without += direct == 0
        application_running[4, a] = total_without
        # an unemployed hire the jurisdiction's rule covers: its own rate and cap, no wages
        covered = (
            (status[i] == UNEMPLOYED)
            & (rules[UNEMPLOYED_RATE] != NOT_SET)
            & (size <= rules[UNEMPLOYED_MAX_EMPLOYEES])
        )
        unemployed[i] = covered
        eligible = direct
        if count_in_kind:  # a compile-time constant: no test per trainee
            below_cap = _divide(direct * rules[IN_KIND_UNCAPPED], uncapped_denominator)
            above_cap = max(direct - rules[GOVERNMENT_CAP], 0)
            above_cap = _divide(above_cap * rules[IN_KIND_CAPPED], capped_denominator)
            counts = (size <= rules[IN_KIND_MAX_EMPLOYEES]) & (not covered)
            counted = _smaller(int(wages_in_kind[i]), max(below_cap, above_cap) * counts)
            in_kind[i] = counted
            eligible += counted
            total_in_kind += counted
            employer_running[0, e] = application_running[0, a] = total_in_kind
        rate = rules[UNEMPLOYED_RATE] if covered else rules[FEDERAL_RATE]
        cap = rules[UNEMPLOYED_CAP] if covered else rules[FEDERAL_CAP]
        fed = _smaller(_divide(eligible * rate, denominator), cap)
        eligible_cost[i], federal[i] = eligible, fed
        total_eligible += eligible
        total_federal += fed
        employer_running[1, e] = application_running[1, a] = total_eligible
        employer_running[2, e] = application_running[2, a] = total_federal
        if pay_provincial:
            rate, cap = rules[PROVINCIAL_RATE], rules[PROVINCIAL_CAP]
            prov = _smaller(_divide(eligible * rate, denominator), cap)
            provincial[i] = prov
            total_provincial += prov
            employer_running[3, e] = application_running[3, a] = total_provincial


@_compiled
def _sum_at(running, row, column, has_trainees, before):  # type: ignore[no-untyped-def]
    """Turn one running total into the sum of its row, in place (the columns are taken in
    order; `before` is the running total of the column before, which this returns for the
    next). A row without trainees (an employer listed with none) was never written: its sum is
    zero."""
    total = running[row, column] if has_trainees else before
    running[row, column] = total - before
    return total


@_compiled
def _employer_pass(  # type: ignore[no-untyped-def]
    # constants: compiled in as literals
    in_kind,
    provincial,
    # read
    trainee_offsets,
    employer_application,
    application_key,
    running,
    approved,
    r,
    # written
    employer_cap_exceeded,
    application_has_employer_over,
):
    """The employers' sums, and the employer cap, one employer at a time; marks the
    applications with an employer over it (a flat loop: most applications have one or two
    employers, and a loop that short per application is mostly mispredicted branches)."""
    in_kind, provincial = literally(in_kind), literally(provincial)
    in_kind_before = eligible_before = federal_before = provincial_before = 0
    for e in range(len(employer_application)):
        column = e + 1  # column 0 of the running totals: before the first employer
        has_trainees = trainee_offsets[e + 1] > trainee_offsets[e]
        # the rows of a share the policy never pays were not written, and are not read
        if in_kind:
            in_kind_before = _sum_at(running, 0, column, has_trainees, in_kind_before)
        eligible_before = _sum_at(running, 1, column, has_trainees, eligible_before)
        federal_before = _sum_at(running, 2, column, has_trainees, federal_before)
        government = running[2, column]
        if provincial:
            provincial_before = _sum_at(running, 3, column, has_trainees, provincial_before)
            government += running[3, column]
        a = employer_application[e]
        over = government + int(approved[e]) > r[application_key[a], EMPLOYER_CAP]
        employer_cap_exceeded[e] = over
        application_has_employer_over[a] |= over


@_compiled
def _application_pass(  # type: ignore[no-untyped-def]
    # constants: compiled in as literals
    in_kind,
    provincial,
    # read
    trainee_offsets,
    employer_offsets,
    application_key,
    application_date,
    start_date,
    end_date,
    hours,
    third_party,
    setting,
    running,
    has_employer_over,
    r,
    # written
    failures,
    eligible,
):
    """The applications' sums, and the checks of formulas/eligibility.py in APPLICATION_CODES
    order (failures has one row per application: its flags side by side); eligible where no
    check fails, no employer is over its cap and every trainee has some direct cost."""
    in_kind, provincial = literally(in_kind), literally(provincial)
    in_kind_before = eligible_before = federal_before = provincial_before = without_before = 0
    for a in range(len(application_key)):
        column = a + 1
        has_trainees = (
            trainee_offsets[employer_offsets[a + 1]] > trainee_offsets[employer_offsets[a]]
        )
        eligible_before = _sum_at(running, 1, column, has_trainees, eligible_before)
        direct_cost = running[1, column]
        if in_kind:
            in_kind_before = _sum_at(running, 0, column, has_trainees, in_kind_before)
            direct_cost -= running[0, column]
        federal_before = _sum_at(running, 2, column, has_trainees, federal_before)
        if provincial:
            provincial_before = _sum_at(running, 3, column, has_trainees, provincial_before)
        without_before = _sum_at(running, 4, column, has_trainees, without_before)
        rules = r[application_key[a]]
        lead = start_date[a] - application_date[a]
        duration = end_date[a] - start_date[a] + 1
        no_grant = rules[GRANT_AVAILABLE] == 0
        not_third_party = (rules[THIRD_PARTY_REQUIRED] == 1) & (not third_party[a])
        setting_not_eligible = rules[SETTING_ALLOWED + setting[a]] == 0
        started_before = (rules[MUST_PRECEDE_TRAINING] == 1) & (lead <= 0)
        too_close = (lead > 0) & (lead < rules[MIN_LEAD_DAYS])
        too_far_ahead = lead > rules[MAX_LEAD_DAYS]
        too_long = duration > rules[MAX_DURATION_DAYS]
        too_short = hours[a] < rules[MIN_HOURS]
        below_minimum = direct_cost < rules[MINIMUM_COST]
        flags = failures[a]
        flags[0], flags[1], flags[2] = no_grant, not_third_party, setting_not_eligible
        flags[3], flags[4], flags[5] = started_before, too_close, too_far_ahead
        flags[6], flags[7], flags[8] = too_long, too_short, below_minimum
        eligible[a] = not (
            no_grant
            | not_third_party
            | setting_not_eligible
            | started_before
            | too_close
            | too_far_ahead
            | too_long
            | too_short
            | below_minimum
            | has_employer_over[a]
            | (running[4, column] > 0)  # a trainee without direct cost
        )
