"""The scoring criteria sets a ranked stream may use: the names the rules kernel lists.

The kernel's ranking (scoring criteria as dated, sourced parameters) is added beside this work;
until it is there, no set is offered and a ranked stream's set stays blank. This is the one
place that asks the kernel for them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable


def scoring_sets() -> list[str]:
    """The names of the kernel's scoring criteria sets, sorted; empty while it has none."""
    try:
        kernel = importlib.import_module("jobgrant.rules.scoring")
    except ModuleNotFoundError:
        return []
    listed = getattr(kernel, "scoring_sets", None)
    found: Iterable[object] = listed() if callable(listed) else (listed or ())
    return sorted({str(getattr(entry, "name", entry)) for entry in found})
