"""The check every approval and denial of a ranked intake's file passes: a decision against the
ranking is taken only with an override signed off by a second person.

Called by `applications.actions` inside the decision's transaction, with the file's row lock:
the statement that locks the row reads the intake, its stream's selection and the file's rank
too (`PLACE_COLUMNS`, `PLACE_JOINS`), or one statement here reads them.
"""

from __future__ import annotations

from typing import NamedTuple

from django.db import connection
from django.utils import timezone

from jobgrant.service.grants.models.applications import (
    Application,
    Intake,
    IntakeState,
    Selection,
    Stream,
)
from jobgrant.service.grants.models.ranking import IntakeRank, OverrideState, RankOverride
from jobgrant.service.grants.ranking.refusals import DECISION_VERBS, refused, side_of


class Place(NamedTuple):
    """Where a file stands in its intake: the intake's state, its stream's selection, and the
    file's rank and side of the cut-off (None when it was not ranked)."""

    intake_state: str | None
    selection: str | None
    rank: int | None
    within_budget: bool | None


#: The place of the application `a`, for a statement that reads it (LEFT JOINs: a file with no
#: intake has a place of None everywhere).
PLACE_COLUMNS = 'i."state", si."selection", r."rank", r."within_budget"'
PLACE_JOINS = (
    f' LEFT JOIN "{Intake._meta.db_table}" i ON i."id" = a."intake_id"'
    f' LEFT JOIN "{Stream._meta.db_table}" si ON si."id" = i."stream_id"'
    f' LEFT JOIN "{IntakeRank._meta.db_table}" r ON r."application_id" = a."id"'
)
_PLACE_SQL = (
    f'SELECT {PLACE_COLUMNS} FROM "{Application._meta.db_table}" a{PLACE_JOINS} WHERE a."id" = %s'
)


def check_decision_follows_rank(
    application: Application, decision: str, place: Place | None = None
) -> dict[str, str]:
    """Refuse an approval before the intake is ranked (409) and a decision against the rank
    without a signed-off override (403); take the override when there is one. Returns what the
    decision's audit entry adds: the override it applied, if any. `place`: the file's, when the
    caller read it with the row lock."""
    if application.intake_id is None:
        return {}
    if place is None:
        with connection.cursor() as cursor:
            cursor.execute(_PLACE_SQL, [application.pk])
            place = Place(*cursor.fetchone())
    state, selection, rank, within = place
    if selection != Selection.RANKED:
        return {}
    if state != IntakeState.RANKED:
        if decision == "approve":
            raise refused(409, "INTAKE_NOT_RANKED")
        return {}
    if rank is None or (decision == "approve") == bool(within):
        return {}  # not ranked (submitted late, or ineligible when ranked), or in rank
    return {"override": str(_apply_override(application, decision, rank, bool(within)))}


def _apply_override(application: Application, decision: str, rank: int, within: bool) -> int:
    override = (
        RankOverride.objects.select_for_update()
        .filter(application=application, decision=decision, state=OverrideState.SIGNED_OFF)
        .first()
    )
    if override is None:
        place = IntakeRank(rank=rank, within_budget=within)
        raise refused(
            403,
            "OUT_OF_RANK_NOT_SIGNED_OFF",
            lambda: {"rank": rank, "side": side_of(place), "decision": DECISION_VERBS[decision]},
            extra={"rank": rank, "within_budget": within},
        )
    override.state, override.applied_at = OverrideState.APPLIED, timezone.now()
    override.save(update_fields=["state", "applied_at"])
    return override.pk
