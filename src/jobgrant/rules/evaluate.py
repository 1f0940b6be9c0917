"""The one entry point of the rules kernel: evaluate(batch, policy, explain=...).

The live service (a batch of one application) and the simulator (millions of trainees) call
the same function. Trainee formulas run chunk by chunk so their temporaries stay in the CPU
cache and peak memory stays a small multiple of the outputs; nothing loops over rows.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache
from typing import Literal, NamedTuple

import numpy as np

from jobgrant.rules.batch import I64, Bool, ChunkedSegmentSums, QuoteBatch
from jobgrant.rules.evaluation import TOTAL_FIELDS, Evaluation, Totals, zeros_view
from jobgrant.rules.formulas import eligibility
from jobgrant.rules.formulas.key_rules import RuleColumns, rule_columns
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
from jobgrant.rules.table import is_shared, table_for
from jobgrant.rules.trace import explain as trace_of

CHUNK = 1 << 15
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
