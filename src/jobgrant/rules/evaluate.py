"""The one entry point of the rules kernel: evaluate(batch, policy, explain=...).

The live service (a batch of one application) and the simulator (millions of trainees) call
the same function. Trainee formulas run chunk by chunk so their temporaries stay in the CPU
cache and peak memory stays a small multiple of the outputs; nothing loops over rows. A
population (more than CHUNKED_FROM applications) is evaluated a chunk of applications at a time
into output columns made once, so that its peak memory is its outputs plus one chunk's work.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from functools import cache
from typing import Literal, NamedTuple, cast

import numpy as np

from jobgrant.rules.batch import I64, Bool, ChunkedSegmentSums, Ints, QuoteBatch
from jobgrant.rules.chunks import chunks
from jobgrant.rules.evaluation import TOTAL_FIELDS, Evaluation, Totals, zeros_view
from jobgrant.rules.formulas import eligibility
from jobgrant.rules.formulas.key_rules import RuleColumns, rule_columns, rule_columns_of_present
from jobgrant.rules.formulas.shares import (
    ShareTerms,
    TraineeInputs,
    TraineeShares,
    no_provincial_share,
    no_wages_in_kind,
    trainee_shares,
)
from jobgrant.rules.policies import DEFAULT_POLICY, Policy, PolicyLibrary
from jobgrant.rules.reasons import REASONS_BY_CODE
from jobgrant.rules.table import ParameterTable, is_shared, table_for
from jobgrant.rules.trace import explain as trace_of

CHUNK = 1 << 15
#: Applications per chunk when "auto" evaluates a population a chunk at a time (the simulator's
#: chunk: chunks.CHUNK_APPLICATIONS); batches with more applications than this are chunked.
CHUNKED_FROM = 1 << 14
Engine = Literal["auto", "numpy", "compiled"]
#: From this many trainees, "auto" runs the compiled passes (a population, not an application).
COMPILED_FROM = 1 << 18


@cache
def default_library() -> PolicyLibrary:
    """The shipped parameters and policies, loaded once per process."""
    return PolicyLibrary()


def evaluate(
    batch: QuoteBatch,
    policy: str | Policy = DEFAULT_POLICY,
    *,
    explain: bool = False,
    library: PolicyLibrary | None = None,
    engine: Engine = "auto",
) -> Evaluation:
    """Compute every share, total and eligibility check for the batch under `policy`.

    With `explain=True` the result also carries each application's trace (trace.explain): meant
    for a few applications at a time, since it builds Python objects per figure.
    `engine` chooses how the formulas run: "numpy" (formulas/, trainees chunk by chunk),
    "compiled" (compiled.py: passes over the trainees, the employers and the applications) or
    "auto": compiled from COMPILED_FROM trainees. Both give the same figures and failures; the
    compiled passes take from under a second to a few seconds to load or compile the first time
    in a process, so a quote (one process, one application) never uses them.
    """
    library = library or default_library()
    chosen = policy if isinstance(policy, Policy) else library.get(policy)
    table = table_for(library, chosen)
    # A population a chunk at a time, unless the process has loaded Numba (it chose speed: the
    # kernel benchmark, a program that forced the compiled passes): the compiled passes over
    # the whole population are then about twice as fast as chunks (no per-chunk lookups and
    # copies), in the memory they take. Loading Numba for one population would cost more time
    # and memory than the passes save.
    if (
        engine == "auto"
        and not explain
        and len(batch.applications) > CHUNKED_FROM
        and not (_use_compiled(batch, engine) and "numba" in sys.modules)
    ):
        return _evaluate_in_chunks(batch, chosen, table, library)
    period = table.periods(batch.applications)
    delivery = table.delivery(batch.applications, period)
    key = table.keys(batch.applications, period, delivery)
    rules = rule_columns(table, key)
    parts = _compiled_parts(batch, key, rules) if _use_compiled(batch, engine) else None
    if parts is None:
        parts = _numpy_parts(batch, key, rules)
    evaluation = Evaluation(batch, chosen, table, rules, key, delivery, *parts)
    if not explain:
        return evaluation
    traces = [trace_of(evaluation, a) for a in range(len(batch.applications))]
    return dataclasses.replace(evaluation, traces=traces)


def _evaluate_in_chunks(
    batch: QuoteBatch, policy: Policy, table: ParameterTable, library: PolicyLibrary
) -> Evaluation:
    """The same Evaluation as one `evaluate` of the whole batch, computed CHUNKED_FROM
    applications at a time (views of the batch's columns, never copies) and written into
    columns made once: the temporaries of a chunk are reused from chunk to chunk instead of
    being made for the whole population, and Numba is not loaded for a population of small
    applications (its import alone takes more memory than a million trainees' figures).
    Every rule is per application or within one, so cutting between applications changes
    nothing (tests/rules/test_kernel_chunks.py)."""
    one_each = batch.one_trainee_each
    sizes = {
        "application": len(batch.applications),
        "employer": len(batch.employers),
        "trainee": len(batch.trainees),
    }
    trainees = _TotalsColumns(sizes["trainee"])
    employers = trainees if one_each else _TotalsColumns(sizes["employer"])
    applications = trainees if one_each else _TotalsColumns(sizes["application"])
    unemployed = _MaskColumn(sizes["trainee"])
    failures: dict[str, _MaskColumn] = {}
    # the narrowest type that holds every key (they index the table's rows): int16 in practice
    key_type = np.int16 if table.n_keys <= np.iinfo(np.int16).max else np.int64
    key = cast(I64, np.empty(sizes["application"], dtype=key_type))
    eligible = np.empty(sizes["application"], dtype=np.bool_)
    delivery: _MaskColumn | None = None
    present: list[I64] = []  # the keys present in each chunk
    start = dict.fromkeys(sizes, 0)
    for part in chunks(batch, CHUNKED_FROM):
        ev = evaluate(part, policy, library=library)  # small enough to be evaluated whole
        stop = {
            "application": start["application"] + len(part.applications),
            "employer": start["employer"] + len(part.employers),
            "trainee": start["trainee"] + len(part.trainees),
        }
        rows = {level: slice(start[level], stop[level]) for level in sizes}
        trainees.write(rows["trainee"], ev.trainees)
        if not one_each:
            employers.write(rows["employer"], ev.employers)
            applications.write(rows["application"], ev.applications)
        if ev.unemployed_rule is not None:
            unemployed.write(rows["trainee"], ev.unemployed_rule)
        for code, mask in ev.failures.items():
            level = REASONS_BY_CODE[code].level
            column = failures.setdefault(code, _MaskColumn(sizes[level]))
            column.write(rows[level], mask)
        key[rows["application"]] = ev.key
        present.append(ev.rules.present)
        if delivery is None:
            delivery = _MaskColumn(sizes["application"], ev.delivery.dtype.type)
        delivery.write(rows["application"], ev.delivery)
        eligible[rows["application"]] = ev.eligible
        start = stop
        del ev  # the chunk's figures copied: its arrays are reused by the next chunk
    assert delivery is not None  # more than CHUNKED_FROM applications: at least one chunk
    return Evaluation(
        batch,
        policy,
        table,
        # from the chunks' keys: counting the whole key column would make an int64 copy of it
        rule_columns_of_present(table, np.unique(np.concatenate(present)).astype(np.int64)),
        key,
        delivery.column(),
        trainees.totals(),
        employers.totals(),
        applications.totals(),
        unemployed.column() if unemployed.written else None,
        {code: column.column() for code, column in failures.items()},
        eligible,
    )


INT32 = np.iinfo(np.int32)


class _TotalsColumns:
    """Totals of a population written a chunk at a time. A column every chunk leaves zero
    stays a view of one zero (no memory); the others are int32 cents while the values fit
    ($21 million a row: every grant's shares, unless costs of that size are entered), half
    the memory of int64, and become int64 at the first chunk that does not fit."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.columns: dict[str, Ints] = {}
        self._totals: Totals | None = None

    def write(self, rows: slice, totals: Totals) -> None:
        for name in TOTAL_FIELDS:
            values: I64 = getattr(totals, name)
            column = self.columns.get(name)
            if column is None:
                if not values.any():  # zero so far (often a view of one zero): no memory
                    continue
                # zeros: pages not yet written cost nothing, and chunks before were zero
                column = self.columns[name] = np.zeros(self.n, dtype=np.int32)
            if column.dtype != np.int64 and len(values) and not _fits_int32(values):
                column = self.columns[name] = column.astype(np.int64)
            column[rows] = values

    def totals(self) -> Totals:
        if self._totals is None:  # one object when employers and applications are trainees
            columns = (self.columns.get(name) for name in TOTAL_FIELDS)
            self._totals = Totals(
                *(zeros_view(self.n) if c is None else cast(I64, c) for c in columns)
            )
        return self._totals


def _fits_int32(values: I64) -> bool:
    return bool(INT32.min <= values.min() and values.max() <= INT32.max)


class _MaskColumn:
    """A failure mask (or another small-valued column: the delivery) written a chunk at a time:
    while every row so far holds the same value (a rule no row fails, typically) it stays a
    view of that value; it becomes an array only when the rows differ."""

    def __init__(self, n: int, dtype: type[np.generic] = np.bool_) -> None:
        self.n, self.dtype = n, dtype
        self.flag: int | None = None  # the value of every row so far, while they share one
        self.rows: np.ndarray | None = None
        self.written = 0  # rows written so far

    def write(self, rows: slice, mask: np.ndarray) -> None:
        if not len(mask):
            return
        if self.rows is None:
            flag = int(mask[0])
            # one value for the chunk: a view of one value, or rows that all hold it
            same = is_shared(mask) or not (mask.any() if flag == 0 else (mask != flag).any())
            if same and self.flag in (None, flag):
                self.flag, self.written = flag, rows.stop
                return
            self.rows = np.zeros(self.n, dtype=self.dtype)
            if self.flag:  # the rows before held one value, which was not zero
                self.rows[: self.written] = self.flag
        self.rows[rows] = mask
        self.written = rows.stop

    def column(self) -> np.ndarray:
        if self.rows is not None:
            return self.rows
        return np.broadcast_to(np.array(self.flag or 0, dtype=self.dtype), (self.n,))


class Parts(NamedTuple):
    """What either engine computes: the Evaluation fields after `delivery`."""

    trainees: Totals
    employers: Totals
    applications: Totals
    unemployed_rule: Bool | None
    failures: dict[str, Bool]
    eligible: Bool


def _use_compiled(batch: QuoteBatch, engine: Engine) -> bool:
    if engine not in ("auto", "numpy", "compiled"):
        raise ValueError(f"unknown engine {engine!r}")
    return engine == "compiled" or (engine == "auto" and len(batch.trainees) >= COMPILED_FROM)


def _numpy_parts(batch: QuoteBatch, key: I64, rules: RuleColumns) -> Parts:
    one_each = batch.one_trainee_each
    trainees, running, unemployed, without_costs = _trainee_shares_in_chunks(
        batch, key, rules, sums=not one_each
    )
    if one_each:  # one employer with one trainee per application: the sums are the trainees'
        employers = applications = trainees
    else:
        employers = running.totals(len(batch.employers))
        applications = running.totals(len(batch.applications), batch.applications.employer_offsets)
    facts = eligibility.application_facts(
        batch, key, rules, applications.direct_cost, employers.government
    )
    failures = _failures(batch, facts, rules, without_costs)
    return Parts(
        trainees, employers, applications, unemployed, failures, _eligible(batch, failures)
    )


def _compiled_parts(batch: QuoteBatch, key: I64, rules: RuleColumns) -> Parts | None:
    """The same from the compiled passes (None: their limits exclude these rules)."""
    from jobgrant.rules import compiled  # imports Numba: only where a big batch needs it

    table = compiled.compiled_rules(rules)
    if table is None:
        return None
    in_kind, provincial = not no_wages_in_kind(rules), not no_provincial_share(rules)
    result = compiled.evaluate_batch(batch, key, table, in_kind, provincial)
    n, present = len(batch.trainees), (in_kind, True, True, provincial)
    columns = (result.in_kind, result.eligible_cost, result.federal, result.provincial)
    trainees = Totals(*(zeros_view(n) if c is None else c for c in columns))
    failures = dict(zip(compiled.APPLICATION_CODES, result.application_failures, strict=True))
    failures["EMPLOYER_CAP_EXCEEDED"] = result.employer_cap_exceeded
    failures["TRAINEE_WITHOUT_ELIGIBLE_COSTS"] = result.without_costs
    return Parts(
        trainees,
        _sums_as_totals(result.employer_sums, present),
        _sums_as_totals(result.application_sums, present),
        result.unemployed if result.unemployed.any() else None,
        failures,
        result.eligible,
    )


def _sums_as_totals(sums: I64, present: tuple[bool, ...]) -> Totals:
    n = sums.shape[1]
    rows = zip(sums[: len(present)], present, strict=True)  # applications have a fifth row
    return Totals(*(row if kept else zeros_view(n) for row, kept in rows))


@dataclass(frozen=True)
class RunningTotals:
    """The trainees' money summed at every employer boundary, as the chunks went by."""

    sums: ChunkedSegmentSums
    columns: tuple[str, ...]  # the Totals fields summed; the others are zero for every row

    def totals(self, n: int, groups: I64 | None = None) -> Totals:
        """Per employer, or per group of employers (`groups` = CSR offsets over employers)."""
        summed = dict(zip(self.columns, self.sums.sums(groups), strict=True))
        return Totals(*(summed.get(name, zeros_view(n)) for name in TOTAL_FIELDS))


def _trainee_shares_in_chunks(
    batch: QuoteBatch, key: I64, rules: RuleColumns, *, sums: bool = True
) -> tuple[Totals, RunningTotals, Bool | None, Bool]:
    """Trainee shares and their running sums per employer (unless `sums` is false), computed
    chunk by chunk; also where the unemployed rule applied (None: nowhere) and which trainees
    have no direct cost."""
    t, n = batch.trainees, len(batch.trainees)
    # in kind is only written where wages count, so it starts as zeros (untouched memory)
    in_kind = None if no_wages_in_kind(rules) else np.zeros(n, dtype=np.int64)
    eligible, federal = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    provincial = None if no_provincial_share(rules) else np.empty(n, dtype=np.int64)
    columns = dict(zip(TOTAL_FIELDS, (in_kind, eligible, federal, provincial), strict=True))
    present = {name: column for name, column in columns.items() if column is not None}
    running_sums = ChunkedSegmentSums(batch.employers.trainee_offsets, len(present) if sums else 0)
    terms = ShareTerms.of(rules, key)
    unemployed: list[I64] = []
    without_costs: list[I64] = []
    for start in range(0, n, CHUNK):
        part = slice(start, min(start + CHUNK, n))
        inputs = TraineeInputs(
            t.tuition[part],
            t.student_fees[part],
            t.materials[part],
            t.exam_fees[part],
            t.wages_in_kind[part],
            t.status[part],
            t.application[part],
            t.employer[part],
            key,
            batch.employers.employees,
        )
        views = TraineeShares(
            None if in_kind is None else in_kind[part],
            eligible[part],
            federal[part],
            None if provincial is None else provincial[part],
        )
        result = trainee_shares(inputs, rules, terms, views)
        if sums:
            running_sums.add(start, [column[part] for column in present.values()])
        if result.unemployed is not None:
            unemployed.append(result.unemployed + start)
        without_costs.append(result.without_costs + start)
    trainees = Totals(*(zeros_view(n) if c is None else c for c in columns.values()))
    running = RunningTotals(running_sums, tuple(present) if sums else ())
    return trainees, running, _mask(n, unemployed) if unemployed else None, _mask(n, without_costs)


def _mask(n: int, rows: list[I64]) -> Bool:
    mask = np.zeros(n, dtype=np.bool_)
    for some in rows:
        mask[some] = True
    return mask


def _failures(
    batch: QuoteBatch, facts: eligibility.ApplicationFacts, rules: RuleColumns, without_costs: Bool
) -> dict[str, Bool]:
    failures = {
        code: check(batch, facts, rules) for code, check in eligibility.APPLICATION_CHECKS.items()
    }
    for code, check in eligibility.EMPLOYER_CHECKS.items():
        failures[code] = check(batch, facts, rules)
    failures["TRAINEE_WITHOUT_ELIGIBLE_COSTS"] = without_costs
    return failures


def _eligible(batch: QuoteBatch, failures: dict[str, Bool]) -> Bool:
    """Applications where no check fails; employer and trainee failures are rare, so they are
    mapped to their application through the rows that fail."""
    failing = np.zeros(len(batch.applications), dtype=np.bool_)
    owner = {"employer": batch.employers.application, "trainee": batch.trainees.application}
    for code, mask in failures.items():
        level = REASONS_BY_CODE[code].level
        if is_shared(mask) and not mask[0]:
            continue  # a rule every row passes (a view of one flag): nothing to mark
        if level == "application":
            failing |= mask
        else:
            failing[np.take(owner[level], np.flatnonzero(mask))] = True
    eligible: Bool = ~failing
    return eligible
