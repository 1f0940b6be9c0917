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
    direct_cost: I64
    in_kind: I64
    eligible_cost: I64
    federal: I64
    provincial: I64
    unemployed_rule: Bool | None  # None when no trainee in the chunk falls under it


def trainee_shares(t: TraineeInputs, rules: RuleColumns) -> TraineeShares:
    direct = t.tuition + t.student_fees
    direct += t.materials
    direct += t.exam_fees
    unemployed = unemployed_rule_applies(t, rules)
    in_kind = counted_in_kind(t, direct, unemployed, rules)
    eligible = direct if in_kind is None else direct + in_kind
    federal_rate, federal_cap = rules["federal_rate"][t.key], rules["federal_cap"][t.key]
    if unemployed is not None:
        federal_rate = np.where(unemployed, rules["unemployed_rate"][t.key], federal_rate)
        federal_cap = np.where(unemployed, rules["unemployed_cap"][t.key], federal_cap)
    federal = share(eligible, federal_rate, federal_cap, rules.denominator)
    provincial = share(
        eligible, rules["provincial_rate"][t.key], rules["provincial_cap"][t.key], rules.denominator
    )
    zero = np.zeros_like(direct)
    return TraineeShares(
        direct, zero if in_kind is None else in_kind, eligible, federal, provincial, unemployed
    )


def share(cost: I64, rate_numerator: I64, cap: I64, denominator: int) -> I64:
    """min(floor(cost x rate), cap), in integer arithmetic (rate = numerator / denominator)."""
    amount = cost * rate_numerator
    amount //= denominator
    np.minimum(amount, cap, out=amount)
    return amount


def unemployed_rule_applies(t: TraineeInputs, rules: RuleColumns) -> Bool | None:
    """Unemployed hires where the jurisdiction has a rule for them (None: nobody, skip the work)."""
    is_unemployed = t.status == UNEMPLOYED
    if not is_unemployed.any():
        return None
    has_rule = rules["unemployed_rate"][t.key] != NOT_SET
    small_enough = t.employees <= rules["unemployed_max_employees"][t.key]
    applies: Bool = is_unemployed & has_rule & small_enough
    return applies if applies.any() else None


def counted_in_kind(
    t: TraineeInputs, direct: I64, unemployed: Bool | None, rules: RuleColumns
) -> I64 | None:
    """Wages counted in kind: min(wages, limit) for small employers, else 0 (None: none at all).

    The limit keeps the wages within the policy's share of the employer's part, whether or not
    the government cap binds (key_rules._in_kind_limits derives the two bounds).
    """
    if not t.wages_in_kind.any():
        return None
    k = t.key
    below_cap = direct * rules["in_kind_uncapped_numerator"][k]
    below_cap //= rules["in_kind_uncapped_denominator"][k]
    above_cap = np.maximum(direct - rules["government_cap"][k], 0)
    above_cap *= rules["in_kind_capped_numerator"][k]
    above_cap //= rules["in_kind_capped_denominator"][k]
    limit = np.maximum(below_cap, above_cap)
    small = t.employees <= rules["in_kind_max_employees"][k]
    if unemployed is not None:
        small &= ~unemployed
    counted: I64 = np.where(small, np.minimum(t.wages_in_kind, limit), 0)
    return counted
