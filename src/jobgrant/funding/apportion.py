"""Exact amounts to whole cents without losing or inventing a cent: the largest-remainder method.

Each exact amount (a Fraction of cents) is rounded down; the cents that rounding lost in total
(the floor of the exact total, minus the sum of the floors) go one each to the amounts with the
largest fractional remainders, ties to the earlier jurisdiction in Statistics Canada order. Every
result is therefore its exact amount rounded down or up by less than a cent, and the results add
up to the exact total rounded down (exactly the total when it is a whole number of cents, as
$500M and 60% of it are).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction


def apportion(exact: Sequence[Fraction]) -> list[int]:
    """Whole cents for each exact amount, adding up to floor(sum(exact))."""
    floors = [math.floor(amount) for amount in exact]
    missing = math.floor(sum(exact, Fraction(0))) - sum(floors)
    by_remainder = sorted(range(len(exact)), key=lambda i: (-(exact[i] - floors[i]), i))
    for i in by_remainder[:missing]:
        floors[i] += 1
    return floors
