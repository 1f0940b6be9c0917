"""Who pays what for each trainee, exactly to the cent.

    direct cost   = tuition + student fees + materials + exam fees
    in kind       = wages a small employer counts toward its share, up to the policy's limit
    eligible cost = direct cost + in kind
    federal       = min(floor(eligible cost x federal rate), federal cap)
    provincial    = min(floor(eligible cost x provincial rate), provincial cap)
    employer      = eligible cost - federal - provincial      (includes the in-kind part)

Government shares are rounded down to the cent and the employer takes the remainder, so the
three always add up to the eligible cost. An unemployed hire, where a jurisdiction's rule
applies, is funded at the unemployed rate and cap instead, with no in-kind wages.
Every function works on whole arrays (one chunk of trainees at a time); none loops over rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jobgrant.rules.batch import I8, I32, I64, UNEMPLOYED, Ints
from jobgrant.rules.formulas.key_rules import NOT_SET, RuleColumns


@dataclass(frozen=True)
class TraineeInputs:
    """One chunk of trainee columns, and the whole per-application and per-employer columns
    they point into (only the rows that need them are read)."""

    tuition: Ints
    student_fees: Ints
    materials: Ints
    exam_fees: Ints
    wages_in_kind: Ints
    status: I8
    application: I32  # row in Applications
    employer: I32  # row in Employers
    application_key: I64  # per application
    employees: Ints  # per employer

    def __len__(self) -> int:
        return len(self.tuition)

    def keys_of(self, rows: I64) -> I64:
        # rows and the batch's indexes are valid by construction: no bounds checks
        keys: I64 = np.take(self.application_key, np.take(self.application, rows), mode="clip")
        return keys

    def employees_of(self, rows: I64) -> Ints:
        sizes: Ints = np.take(self.employees, np.take(self.employer, rows), mode="clip")
        return sizes

    def per_trainee(self, per_application: I64 | int) -> I64 | int:
        """A per-application figure for each trainee of the chunk (a plain int stays one)."""
        if isinstance(per_application, int):
            return per_application
        values: I64 = np.take(per_application, self.application, mode="clip")
        return values


@dataclass(frozen=True)
class ShareTerms:
    """The rates and caps of the shares, per application (a plain int when the same for all)."""

    federal_rate: I64 | int
    federal_cap: I64 | int
    provincial_rate: I64 | int
    provincial_cap: I64 | int

    @classmethod
    def of(cls, rules: RuleColumns, application_key: I64) -> ShareTerms:
        key = application_key
        return cls(
            rules.paid_rate("federal_rate", "federal_cap", key),
            rules.value("federal_cap", key),
            rules.paid_rate("provincial_rate", "provincial_cap", key),
            rules.value("provincial_cap", key),
        )


@dataclass(frozen=True)
class TraineeShares:
    """Output columns for one chunk (views into the evaluation's result arrays).

    `in_kind` starts at zero and only the rows with wages counted in kind are written; a column
    the policy makes zero for every trainee is None and is not computed at all.
    """

    in_kind: I64 | None
    eligible_cost: I64
    federal: I64
    provincial: I64 | None


def trainee_shares(
    t: TraineeInputs, rules: RuleColumns, terms: ShareTerms, out: TraineeShares
) -> ChunkResult:
    """Fill `out` for one chunk; say where the unemployed rule applied and which trainees have
    no direct cost at all (both rare, so as row numbers in the chunk)."""
    eligible = out.eligible_cost
    np.add(t.tuition, t.student_fees, out=eligible, dtype=np.int64)  # int32 columns: no overflow
    np.add(eligible, t.materials, out=eligible)
    np.add(eligible, t.exam_fees, out=eligible)  # the direct cost, until in kind is added
    without_costs = np.flatnonzero(eligible == 0)
    unemployed = unemployed_rule_applies(t, rules)
    if out.in_kind is not None:
        add_in_kind(t, unemployed, rules, in_kind=out.in_kind, eligible=eligible)
    federal_rate = t.per_trainee(terms.federal_rate)
    federal_cap = t.per_trainee(terms.federal_cap)
    if unemployed is not None:
        federal_rate, federal_cap = _unemployed_terms(
            t, rules, unemployed, federal_rate, federal_cap
        )
    share(eligible, federal_rate, federal_cap, rules.denominator, out=out.federal)
    if out.provincial is not None:
        provincial_rate = t.per_trainee(terms.provincial_rate)
        provincial_cap = t.per_trainee(terms.provincial_cap)
        share(eligible, provincial_rate, provincial_cap, rules.denominator, out=out.provincial)
    return ChunkResult(unemployed, without_costs)


@dataclass(frozen=True)
class ChunkResult:
    unemployed: I64 | None  # rows where the unemployed rule applied (None: nowhere)
    without_costs: I64  # rows whose direct cost is zero


def no_provincial_share(rules: RuleColumns) -> bool:
    """Whether every key's provincial share is zero (cjg-2014, or federal-direct delivery)."""
    return rules.uniform_values.get("provincial_rate") == 0 or (
        rules.uniform_values.get("provincial_cap") == 0
    )


def no_wages_in_kind(rules: RuleColumns) -> bool:
    """Whether no key lets an employer count wages in kind (cjg-2013)."""
    uniform = rules.uniform_values
    return uniform.get("in_kind_uncapped_numerator") == 0 and (
        uniform.get("in_kind_capped_numerator") == 0
    )


def share(
    cost: I64, rate_numerator: I64 | int, cap: I64 | int, denominator: int, *, out: I64
) -> I64:
    """min(floor(cost x rate), cap), in integer arithmetic (rate = numerator / denominator)."""
    if isinstance(rate_numerator, int) and rate_numerator == 0:
        out[:] = 0  # no share at all (no matching under cjg-2014, or no grant)
        return out
    np.multiply(cost, rate_numerator, out=out)
    # Costs and rates are never negative, so the division is done unsigned: the same quotient,
    # without the rounding fix-up of a signed floor division (numpy: 0.7 ns a row, not 5.6).
    unsigned = out.view(np.uint64)
    np.floor_divide(unsigned, np.uint64(denominator), out=unsigned)
    np.minimum(out, cap, out=out)
    return out


def unemployed_rule_applies(t: TraineeInputs, rules: RuleColumns) -> I64 | None:
    """Rows of the unemployed hires a jurisdiction's rule covers (None: nobody, skip the work)."""
    if not rules.varies_or_differs("unemployed_rate", NOT_SET):
        return None
    rows = np.flatnonzero(t.status == UNEMPLOYED)
    key = t.keys_of(rows)
    covered = rules.take("unemployed_rate", key) != NOT_SET
    covered &= t.employees_of(rows) <= rules.take("unemployed_max_employees", key)
    rows = rows[covered]
    return rows if len(rows) else None


def _unemployed_terms(
    t: TraineeInputs, rules: RuleColumns, rows: I64, rate: I64 | int, cap: I64 | int
) -> tuple[I64, I64]:
    """The federal rate and cap with the unemployed rule's in the rows it covers."""
    n, key = len(t), t.keys_of(rows)
    rate_array = np.full(n, rate, dtype=np.int64) if isinstance(rate, int) else rate
    cap_array = np.full(n, cap, dtype=np.int64) if isinstance(cap, int) else cap
    rate_array[rows] = rules.take("unemployed_rate", key)
    cap_array[rows] = rules.take("unemployed_cap", key)
    return rate_array, cap_array


def add_in_kind(
    t: TraineeInputs, unemployed: I64 | None, rules: RuleColumns, *, in_kind: I64, eligible: I64
) -> None:
    """Count wages in kind: min(wages, limit) for small employers, added to the eligible cost.

    `eligible` holds the direct cost on entry. The limit keeps the wages within the policy's
    share of the employer's part, whether or not the government cap binds
    (key_rules._in_kind_limits derives the two bounds). Only the trainees with wages are
    computed and written: most have none, and `in_kind` is already zero elsewhere.
    """
    candidates = t.wages_in_kind > 0
    if unemployed is not None:
        candidates[unemployed] = False
    rows = np.flatnonzero(candidates)
    if len(rows) == 0:
        return
    key = t.keys_of(rows)
    small = t.employees_of(rows) <= rules.take("in_kind_max_employees", key)
    rows, key = rows[small], key[small]
    cost = eligible[rows]
    below_cap = cost * rules.take("in_kind_uncapped_numerator", key)
    below_cap //= rules.take("in_kind_uncapped_denominator", key)
    above_cap = np.maximum(cost - rules.take("government_cap", key), 0)
    above_cap *= rules.take("in_kind_capped_numerator", key)
    above_cap //= rules.take("in_kind_capped_denominator", key)
    counted = np.minimum(t.wages_in_kind[rows], np.maximum(below_cap, above_cap))
    in_kind[rows] = counted
    eligible[rows] = cost + counted
