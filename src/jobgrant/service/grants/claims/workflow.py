"""The claim's state machine: every allowed transition, declared once.

draft → submitted → under_review → approved | denied; under_review → returned → draft (the
employer edits and submits again); approved → superseded when an amendment of it is approved.
A submitted claim goes under review when its officer opens the assessment (or decides at once:
deny and approve accept a submitted claim and pass through under_review in one transaction).
"""

from __future__ import annotations

from jobgrant.service.grants.core.workflow import IllegalTransition, Transition, declare, next_state
from jobgrant.service.grants.models.claims import ClaimState as S

TRANSITIONS = declare(
    Transition("edit", frozenset({S.DRAFT}), S.DRAFT),
    Transition("submit", frozenset({S.DRAFT}), S.SUBMITTED),
    Transition("review", frozenset({S.SUBMITTED}), S.UNDER_REVIEW),
    Transition("return", frozenset({S.UNDER_REVIEW}), S.RETURNED),
    Transition("reopen", frozenset({S.RETURNED}), S.DRAFT),
    Transition("deny", frozenset({S.UNDER_REVIEW}), S.DENIED),
    Transition("approve", frozenset({S.UNDER_REVIEW}), S.APPROVED),
    Transition("supersede", frozenset({S.APPROVED}), S.SUPERSEDED),
)


class IllegalClaimTransition(IllegalTransition):
    what = "a claim"


def target_of(action: str, state: str) -> str:
    return next_state(TRANSITIONS, action, state, IllegalClaimTransition)
