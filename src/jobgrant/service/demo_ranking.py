"""The demonstration's ranked intake: rank a closed intake and take one decision against its
ranking with both signatures, as the demonstration data shows it (service/demo.py calls it)."""

from __future__ import annotations

from dataclasses import dataclass

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.applications import actions as application_actions
from jobgrant.service.grants.models.applications import Intake, State
from jobgrant.service.grants.models.ranking import IntakeRank, RankOverride
from jobgrant.service.grants.ranking import actions

REASON = (
    "The employer's only plant closes for retooling in March: the training must start in "
    "January or not at all, and the next intake opens too late."
)


@dataclass(frozen=True)
class RankedDemo:
    ranks: list[IntakeRank]
    override: RankOverride | None


def rank_and_override(
    intake: Intake, *, officer: User, second_officer: User, manager: User
) -> RankedDemo:
    """Rank the closed `intake`, then approve its first file below the cut-off: `officer`
    recommends it and asks for the override, `manager` signs it off, `second_officer` approves.
    No file below the cut-off: the ranking alone."""
    ranks = actions.rank_intake(intake)
    below = next((r for r in ranks if not r.within_budget), None)
    if below is None:
        return RankedDemo(ranks, None)
    application = below.application
    if application.state == State.SUBMITTED:
        application_actions.recommend_application(officer, application)
    override = actions.request_override(officer, application, "approve", REASON)
    actions.sign_off_override(manager, override, "Agreed: the plant's closure is on file.")
    application_actions.approve_application(second_officer, application)
    override.refresh_from_db()
    return RankedDemo(ranks, override)
