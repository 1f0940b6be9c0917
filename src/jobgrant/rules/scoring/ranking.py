"""The order of an intake's applications, and where its budget runs out.

The order: the higher score first; between equal scores, the earlier submission; between
submissions of the same instant, the lower file number. Every input is stored, so the same
intake ranks the same way whenever it is ranked again.

The cut-off: going down the order, the government shares add up per funder; a file is within
the budget while both running totals fit their funder's budget. The running totals only grow,
so the files within the budget are the ones above the first that does not fit.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]


def rank_order(scores: I64, submitted: I64, numbers: I64) -> I64:
    """Row indexes from the first-ranked to the last (`submitted`: an orderable instant)."""
    return np.lexsort((numbers, submitted, -scores)).astype(np.int64)


def within_budget(
    federal_in_order: I64, provincial_in_order: I64, federal_budget: int, provincial_budget: int
) -> npt.NDArray[np.bool_]:
    """For each file in ranked order: whether it is above the cut-off."""
    federal_fits = np.cumsum(federal_in_order, dtype=np.int64) <= federal_budget
    provincial_fits = np.cumsum(provincial_in_order, dtype=np.int64) <= provincial_budget
    fits = federal_fits & provincial_fits
    return np.logical_and.accumulate(fits) if len(fits) else fits
