"""The shapes of a ranked intake's operations: its ranks, the overrides, the report."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Schema
from pydantic import Field

from jobgrant.service.api.schemas import NOTE_MAX
from jobgrant.service.grants.models.ranking import OverrideDecision, OverrideState


class OverrideBody(Schema):
    reason: str = Field(
        max_length=NOTE_MAX, description="Why the decision goes against the ranking (required)."
    )


class AnswerBody(Schema):
    reason: str = Field(
        "", max_length=NOTE_MAX, description="Why: required to refuse, optional to sign off."
    )


class RankOut(Schema):
    application: int
    rank: int
    score: int
    within_budget: bool = Field(description="Above the cut-off: within the intake's budget.")
    federal_running: str = Field(description="This file's federal share and those above it.")
    provincial_running: str
    points: dict[str, Any] = Field(
        description="Per criterion: its points, formula, inputs and the parameters it read."
    )


class RankingOut(Schema):
    intake: int
    state: str
    ranked_at: str | None
    ranks: list[RankOut]


class OverrideOut(Schema):
    id: int
    application: int
    decision: Literal[tuple(OverrideDecision.values)]  # type: ignore[valid-type]
    state: Literal[tuple(OverrideState.values)]  # type: ignore[valid-type]
    reason: str
    requested_by: str | None
    requested_at: str
    signed_off_by: str | None
    signed_off_at: str | None
    sign_off_note: str


class OutOfRankOut(Schema):
    application: int
    employer: str
    rank: int
    score: int
    within_budget: bool
    decision: str
    reason: str
    requested_by: str
    requested_at: str
    signed_off_by: str
    signed_off_at: str
    decided_at: str
