"""Net outcomes: a treated group's rate against a comparison group's, with a 95 % confidence
interval of the difference, and when a comparison is too small to mean anything. Pure Python.

The difference is exact (a fraction: a/n − c/m = (a·m − c·n) / (n·m)); only its interval needs a
square root, computed in floating point and rounded once, to a hundredth of a percentage point,
for people to read: no money is ever computed here.

The interval is Wald's for the difference of two independent proportions,

    d ± z · √( p₁(1 − p₁)/n₁ + p₂(1 − p₂)/n₂ ),   z = 1.959964 (the normal's 97.5th percentile)

(Newcombe, "Interval estimation for the difference between independent proportions", Statistics
in Medicine 17, 1998, method 1). It is the one a reader can check by hand, and it is right enough
when each group has at least MIN_ANSWERS answers and at least MIN_EACH people employed and not
employed; below that a net figure is not given, and the report says why, in words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

#: The normal distribution's 97.5th percentile: a two-sided 95 % interval.
Z_95 = 1.959963984540054
#: Fewer answers than this in the comparison group (or the treated): no net figure.
MIN_ANSWERS = 30
#: Fewer people employed, or not employed, than this in either group: no net figure (the normal
#: approximation behind the interval needs n·p and n·(1 − p) of at least 5 in each group).
MIN_EACH = 5


@dataclass(frozen=True)
class Rate:
    """`yes` people of `answered` (employed of those who answered)."""

    yes: int
    answered: int

    @property
    def share(self) -> Fraction:
        return Fraction(self.yes, self.answered)


@dataclass(frozen=True)
class Net:
    """Treated minus comparison: the exact difference and its 95 % interval (bounds as floats,
    for display only)."""

    difference: Fraction
    low: float
    high: float


def too_small(treated: Rate, comparison: Rate) -> bool:
    """Whether the groups are too small for the interval to mean anything."""
    for group in (treated, comparison):
        if group.answered < MIN_ANSWERS:
            return True
        if min(group.yes, group.answered - group.yes) < MIN_EACH:
            return True
    return False


def net(treated: Rate, comparison: Rate) -> Net | None:
    """The net difference treated − comparison with its 95 % interval, or None when either
    group is too small (`too_small`)."""
    if too_small(treated, comparison):
        return None
    difference = treated.share - comparison.share
    half_width = Z_95 * math.sqrt(_variance(treated) + _variance(comparison))
    return Net(difference, float(difference) - half_width, float(difference) + half_width)


def _variance(group: Rate) -> float:
    share = group.share
    return float(share * (1 - share) / group.answered)


def hundredths_of_a_point(value: Fraction | float) -> int:
    """A proportion as hundredths of a percentage point (0.2 → 2000), rounded half to even
    once: how a net figure and its bounds are kept in a KPI figure (an integer)."""
    exact = (
        Decimal(value.numerator) / Decimal(value.denominator)
        if isinstance(value, Fraction)
        else Decimal(repr(value))
    )
    return int((exact * 10_000).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))
