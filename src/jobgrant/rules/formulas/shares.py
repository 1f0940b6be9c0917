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

from jobgrant.rules.batch import I8, I64, UNEMPLOYED, Bool
from jobgrant.rules.formulas.key_rules import NOT_SET, RuleColumns


@dataclass(frozen=True)
class TraineeInputs:
    """One chunk of trainee columns, with each trainee's key and employer size."""

    tuition: I64
    student_fees: I64
    materials: I64
    exam_fees: I64
    wages_in_kind: I64
    status: I8
    key: I64
    employees: I64


@dataclass(frozen=True)
class TraineeShares:
    """Output columns for one chunk of trainees (views into the evaluation's result arrays)."""

    direct_cost: I64
    in_kind: I64
    eligible_cost: I64
    federal: I64
    provincial: I64


def trainee_shares(t: TraineeInputs, rules: RuleColumns, out: TraineeShares) -> Bool | None:
    """Fill `out` for one chunk; return where the unemployed rule applied (None: nowhere)."""
    direct = out.direct_cost
    np.add(t.tuition, t.student_fees, out=direct)
    np.add(direct, t.materials, out=direct)
    np.add(direct, t.exam_fees, out=direct)
    unemployed = unemployed_rule_applies(t, rules)
    counted_in_kind(t, direct, unemployed, rules, out=out.in_kind)
    np.add(direct, out.in_kind, out=out.eligible_cost)
    federal_rate = rules.value("federal_rate", t.key)
    federal_cap = rules.value("federal_cap", t.key)
    if unemployed is not None:
        federal_rate, federal_cap = _unemployed_terms(
            t, rules, unemployed, federal_rate, federal_cap
        )
    share(out.eligible_cost, federal_rate, federal_cap, rules.denominator, out=out.federal)
    provincial_rate = rules.value("provincial_rate", t.key)
    provincial_cap = rules.value("provincial_cap", t.key)
    share(out.eligible_cost, provincial_rate, provincial_cap, rules.denominator, out=out.provincial)
    return None if unemployed is None else _mask(len(direct), unemployed)


def share(
    cost: I64, rate_numerator: I64 | int, cap: I64 | int, denominator: int, *, out: I64
) -> I64:
    """min(floor(cost x rate), cap), in integer arithmetic (rate = numerator / denominator)."""
    if isinstance(rate_numerator, int) and rate_numerator == 0:
        out[:] = 0  # no share at all (no matching under cjg-2014, or no grant)
        return out
    np.multiply(cost, rate_numerator, out=out)
    out //= denominator
    np.minimum(out, cap, out=out)
    return out


def unemployed_rule_applies(t: TraineeInputs, rules: RuleColumns) -> I64 | None:
    """Rows of the unemployed hires a jurisdiction's rule covers (None: nobody, skip the work)."""
    if not rules.varies_or_differs("unemployed_rate", NOT_SET):
        return None
    rows = np.flatnonzero(t.status == UNEMPLOYED)
    key = t.key[rows]
    covered = rules.take("unemployed_rate", key) != NOT_SET
    covered &= t.employees[rows] <= rules.take("unemployed_max_employees", key)
    rows = rows[covered]
    return rows if len(rows) else None


def _unemployed_terms(
    t: TraineeInputs, rules: RuleColumns, rows: I64, rate: I64 | int, cap: I64 | int
) -> tuple[I64, I64]:
    """The federal rate and cap with the unemployed rule's in the rows it covers."""
    n = len(t.key)
    rate_array = np.full(n, rate, dtype=np.int64) if isinstance(rate, int) else rate
    cap_array = np.full(n, cap, dtype=np.int64) if isinstance(cap, int) else cap
    rate_array[rows] = rules.take("unemployed_rate", t.key[rows])
    cap_array[rows] = rules.take("unemployed_cap", t.key[rows])
    return rate_array, cap_array


def _mask(n: int, rows: I64) -> Bool:
    mask = np.zeros(n, dtype=np.bool_)
    mask[rows] = True
    return mask


def counted_in_kind(
    t: TraineeInputs, direct: I64, unemployed: I64 | None, rules: RuleColumns, *, out: I64
) -> I64:
    """Wages counted in kind: min(wages, limit) for small employers, else 0.

    The limit keeps the wages within the policy's share of the employer's part, whether or not
    the government cap binds (key_rules._in_kind_limits derives the two bounds). Only the
    trainees with wages are computed: most have none.
    """
    out[:] = 0
    candidates = t.wages_in_kind > 0
    if unemployed is not None:
        candidates[unemployed] = False
    rows = np.flatnonzero(candidates)
    if len(rows) == 0:
        return out
    key, cost = t.key[rows], direct[rows]
    small = t.employees[rows] <= rules.take("in_kind_max_employees", key)
    below_cap = cost * rules.take("in_kind_uncapped_numerator", key)
    below_cap //= rules.take("in_kind_uncapped_denominator", key)
    above_cap = np.maximum(cost - rules.take("government_cap", key), 0)
    above_cap *= rules.take("in_kind_capped_numerator", key)
    above_cap //= rules.take("in_kind_capped_denominator", key)
    limit = np.maximum(below_cap, above_cap)
    out[rows] = np.where(small, np.minimum(t.wages_in_kind[rows], limit), 0)
    return out
