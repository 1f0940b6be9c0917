"""The check every approval and denial of a ranked intake's file passes: a decision against the
ranking is taken only with an override signed off by a second person.

Called by `applications.actions` inside the decision's transaction, after the file's row lock;
one statement reads the intake, its stream's selection and the file's rank.
"""

from __future__ import annotations

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

_RANK_SQL = (
    f'SELECT i."state", s."selection", r."rank", r."within_budget" FROM "{Intake._meta.db_table}" i'
    f' JOIN "{Stream._meta.db_table}" s ON s."id" = i."stream_id"'
    f' LEFT JOIN "{IntakeRank._meta.db_table}" r ON r."application_id" = %s WHERE i."id" = %s'
)


def check_decision_follows_rank(application: Application, decision: str) -> dict[str, str]:
    """Refuse an approval before the intake is ranked (409) and a decision against the rank
    without a signed-off override (403); take the override when there is one. Returns what the
    decision's audit entry adds: the override it applied, if any."""
    if application.intake_id is None:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_RANK_SQL, [application.pk, application.intake_id])
        state, selection, rank, within = cursor.fetchone()
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
