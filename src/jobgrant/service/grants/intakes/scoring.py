"""The scoring criteria sets a ranked stream may use: the sets the rules kernel lists
(rules/scoring/sets). The one place the intakes ask the kernel for them."""

from __future__ import annotations

from jobgrant.rules.scoring.criteria import criteria_sets


def scoring_sets() -> list[str]:
    """The names of the kernel's scoring criteria sets, sorted."""
    return sorted(criteria_sets())
