"""A closed intake of a ranked stream is handed to the ranking (`rank_intake(intake)` of the
grant's ranking stage), when the service has it; otherwise it stays closed, and says so."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from typing import Any

from jobgrant.service.grants.models.applications import Intake

log = logging.getLogger(__name__)
#: Where the ranking stage may define `rank_intake`, in the order they are looked in.
RANKING_MODULES = ("jobgrant.service.grants.ranking", "jobgrant.service.grants.ranking.actions")


def ranking() -> Callable[[Intake], Any] | None:
    """The ranking's `rank_intake`, or None while the service has no ranking."""
    for name in RANKING_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        found = getattr(module, "rank_intake", None)
        if callable(found):
            return found  # type: ignore[no-any-return]
    return None


def hand_to_ranking(intake: Intake) -> bool:
    """Rank the closed intake; False (logged) when there is no ranking to hand it to."""
    rank = ranking()
    if rank is None:
        log.warning("intake %s closed: no ranking in this service, it stays closed", intake.pk)
        return False
    rank(intake)
    return True
