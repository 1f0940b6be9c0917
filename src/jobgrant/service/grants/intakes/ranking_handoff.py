"""A closed intake of a ranked stream is handed to the ranking (grants/ranking). An intake the
ranking refuses (its stream names no known criteria set, say) stays closed: the refusal is in
the audit trail and the log, and the worker goes on with the other intakes."""

from __future__ import annotations

import logging

from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.applications import Intake
from jobgrant.service.grants.ranking.actions import rank_intake

log = logging.getLogger(__name__)


def hand_to_ranking(intake: Intake) -> bool:
    """Rank the closed intake; False (logged) when the ranking refuses it."""
    try:
        rank_intake(intake)
    except ServiceError as refusal:
        log.warning("intake %s closed but not ranked: %s", intake.pk, refusal.message_en)
        return False
    return True
