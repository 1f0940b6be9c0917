"""Rules per key: the parameters turned into the figures the array formulas use.

Runs once per distinct (period, place, delivery) key in a batch, with exact fractions, and
yields dense int64 columns indexed by key. Rates become numerators over one common
denominator so that every share is `cost * numerator // denominator` with a scalar divisor.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from jobgrant.rules.batch import I64, SETTINGS
from jobgrant.rules.parameters import ParameterError
from jobgrant.rules.policies import ResolvedValue
from jobgrant.rules.table import ParameterTable

#: Stands for "no limit" in amount, count and day columns: far above any real value, and
#: twice it still fits in int64.
NO_LIMIT = 2**61
#: Stands for "no special rule" in rate columns.
NOT_SET = -1

RATE_COLUMNS = ("federal_rate", "provincial_rate", "unemployed_rate")
SETTING_PARAMETERS = tuple(f"cjg.training.setting.{s.replace('-', '_')}" for s in SETTINGS)


@dataclass(frozen=True)
class RuleColumns:
    """Dense per-key columns (rates as numerators over `denominator`)."""

    denominator: int
    columns: dict[str, I64]
    present: I64  # the keys that have values
    uniform_values: dict[str, int]  # columns with one value over the present keys

    def __getitem__(self, name: str) -> I64:
        return self.columns[name]

    def take(self, name: str, keys: I64) -> I64:
        """The column's value for each key (a new array, safe to modify)."""
        if name in self.uniform_values:
            return np.full(len(keys), self.uniform_values[name], dtype=np.int64)
        taken: I64 = np.take(self.columns[name], keys, mode="clip")  # keys index the table
        return taken

    def value(self, name: str, keys: I64) -> I64 | int:
        """Like take, but a plain int when every key has the same value (no gather at all)."""
        uniform = self.uniform_values.get(name)
        return uniform if uniform is not None else self.take(name, keys)

    def values(self, names: tuple[str, ...], keys: I64) -> dict[str, I64 | int]:
        """`value` of several columns."""
        return {name: self.value(name, keys) for name in names}

    def paid_rate(self, rate: str, cap: str, keys: I64) -> I64 | int:
        """The rate column, as one int when it is the same wherever the cap is above zero: where
        the cap is zero the share is zero whatever the rate (a jurisdiction without a grant)."""
        if rate in self.uniform_values:
            return self.uniform_values[rate]
        paying = self.present[self.columns[cap][self.present] != 0]
        rates = np.unique(self.columns[rate][paying])
        if len(rates) <= 1:
            return int(rates[0]) if len(rates) else 0
        return self.take(rate, keys)

    def varies_or_differs(self, name: str, value: int) -> bool:
        """Whether some present key has a value other than `value`."""
        return self.uniform_values.get(name, value + 1) != value

    @property
    def settings_allowed(self) -> I64:
        """1 where the training setting is allowed, indexed by key * len(SETTINGS) + setting."""
        stacked = [self.columns[f"setting_allowed_{i}"] for i in range(len(SETTINGS))]
        allowed: I64 = np.stack(stacked, axis=1).ravel()
        return allowed


def _limit(value: int | Fraction | None) -> int:
    return NO_LIMIT if value is None else int(value)


def _fraction(value: int | Fraction | None) -> Fraction:
    return Fraction(value or 0)


def rules_for_key(values: dict[str, ResolvedValue], provincial_delivery: bool) -> dict[str, object]:
    """The rule figures for one key. Rates are Fractions; amounts are cents."""
    p = {name: v.value for name, v in values.items()}
    grant = bool(p["cjg.grant_available"])
    provincial = grant and provincial_delivery
    federal_rate = _fraction(p["cjg.federal.rate"]) if grant else Fraction(0)
    provincial_rate = _fraction(p["cjg.provincial.rate"]) if provincial else Fraction(0)
    federal_cap = _limit(p["cjg.federal.max_per_trainee"]) if grant else 0
    provincial_cap = _limit(p["cjg.provincial.max_per_trainee"]) if provincial else 0
    unemployed = p["cjg.unemployed.federal_rate"]
    rules: dict[str, object] = {
        "federal_rate": federal_rate,
        "federal_cap": federal_cap,
        "provincial_rate": provincial_rate,
        "provincial_cap": provincial_cap,
        "unemployed_rate": Fraction(unemployed) if grant and unemployed is not None else None,
        "unemployed_cap": _limit(p["cjg.unemployed.federal_max_per_trainee"]),
        "unemployed_max_employees": _limit(p["cjg.unemployed.max_employees"]),
        "in_kind_max_employees": _limit(p["cjg.in_kind.max_employees"]),
        **_in_kind_limits(
            _fraction(p["cjg.in_kind.max_share_of_employer"]) if grant else Fraction(0),
            federal_rate + provincial_rate,
            min(federal_cap + provincial_cap, NO_LIMIT),
        ),
    }
    rules.update(_thresholds(p, grant))
    return rules


def _in_kind_limits(
    share: Fraction, government_rate: Fraction, government_cap: int
) -> dict[str, object]:
    """Multipliers for the most wages that count in kind (see formulas/shares.py).

    Wages W count up to `share` of the employer's part of (cost + W). Below the government cap
    that gives W <= cost * x / (1 - x) with x = share * (1 - rate); once the cap binds it gives
    W <= (cost - cap) * share / (1 - share). The larger bound is the true limit.
    """
    if share >= 1:
        raise ParameterError(["cjg.in_kind.max_share_of_employer must be below 1"])
    x = share * (1 - government_rate)
    below_cap = x / (1 - x)
    above_cap = share / (1 - share)
    return {
        "in_kind_uncapped_numerator": below_cap.numerator,
        "in_kind_uncapped_denominator": below_cap.denominator,
        "in_kind_capped_numerator": above_cap.numerator,
        "in_kind_capped_denominator": above_cap.denominator,
        "government_cap": government_cap,
    }


def _thresholds(p: dict[str, int | Fraction | None], grant: bool) -> dict[str, object]:
    thresholds: dict[str, object] = {
        "grant_available": int(grant),
        "third_party_required": int(p["cjg.training.third_party_required"] or 0),
        "must_precede_training": int(p["cjg.application.must_precede_training"] or 0),
        "min_lead_days": _limit(p["cjg.application.min_lead_days"] or 0),
        "max_lead_days": _limit(p["cjg.application.max_lead_days"]),
        "min_hours": _limit(p["cjg.training.min_hours"] or 0),
        "max_duration_days": _limit(p["cjg.training.max_duration_days"]),
        "minimum_cost": _limit(p["cjg.application.minimum_cost"] or 0),
        "employer_cap": _limit(p["cjg.employer.max_government_per_fiscal_year"]),
        "cap_per_region": int(p["cjg.employer.cap_per_region"] or 0),
    }
    for i, name in enumerate(SETTING_PARAMETERS):
        thresholds[f"setting_allowed_{i}"] = int(p[name] or 0)
    return thresholds


#: Per table, the rule columns of each set of keys present: a population evaluated chunk by
#: chunk meets the same few keys in every chunk, and building the columns (exact fractions, one
#: dense array per rule) costs milliseconds, more than the formulas over a chunk.
_BUILT: weakref.WeakKeyDictionary[ParameterTable, dict[bytes, RuleColumns]] = (
    weakref.WeakKeyDictionary()
)


def rule_columns(table: ParameterTable, keys: I64) -> RuleColumns:
    """Dense columns for the keys present in `keys` (other entries stay 0), built once per
    table and set of keys present (read-only: every batch with those keys shares them)."""
    return rule_columns_of_present(table, table.present(keys))


def rule_columns_of_present(table: ParameterTable, present: I64) -> RuleColumns:
    """The same from the distinct keys present, in increasing order (as table.present gives
    them): for a population whose keys are known chunk by chunk."""
    built = _BUILT.setdefault(table, {})
    rules = built.get(present.tobytes())
    if rules is None:
        rules = built[present.tobytes()] = _rule_columns(table, present)
    return rules


def _rule_columns(table: ParameterTable, present: I64) -> RuleColumns:
    present.setflags(write=False)
    per_key = {
        int(k): rules_for_key(table.resolved(int(k)), table.decode(int(k)).delivery == "provincial")
        for k in present
    }
    denominator = _common_denominator(per_key.values())
    columns: dict[str, I64] = {}
    for name in next(iter(per_key.values()), {}):
        column = np.zeros(table.n_keys, dtype=np.int64)
        column[present] = [_as_int(per_key[int(k)][name], denominator) for k in present]
        column.setflags(write=False)
        columns[name] = column
    uniform = {
        name: int(column[present[0]])
        for name, column in columns.items()
        if len(present) and (column[present] == column[present[0]]).all()
    }
    return RuleColumns(denominator, columns, present, uniform)


def _common_denominator(rows: object) -> int:
    denominators = [
        rate.denominator
        for row in rows  # type: ignore[attr-defined]
        for name in RATE_COLUMNS
        if isinstance(rate := row[name], Fraction)
    ]
    denominator = math.lcm(*denominators) if denominators else 1
    if denominator > 10**7:
        raise ParameterError([f"the rates' common denominator {denominator} is too large"])
    return denominator


def _as_int(value: object, denominator: int) -> int:
    if value is None:
        return NOT_SET
    if isinstance(value, Fraction):
        scaled = value * denominator
        assert scaled.denominator == 1
        return int(scaled)
    assert isinstance(value, int)
    return value
