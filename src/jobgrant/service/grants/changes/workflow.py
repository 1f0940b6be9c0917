"""The change request state machine: every allowed transition, declared once.

A change request is submitted by the employer, then approved or denied by an officer (a date
change inside the agreement's fiscal year is approved at once, by the service, when it changes no
money). A decided request is final: a new change is a new request.
"""

from __future__ import annotations

from jobgrant.service.grants.core.workflow import IllegalTransition, Transition, declare, next_state
from jobgrant.service.grants.models.changes import ChangeState

OPEN_STATES = frozenset({ChangeState.SUBMITTED})

TRANSITIONS = declare(
    Transition("approve_change", frozenset({ChangeState.SUBMITTED}), ChangeState.APPROVED),
    Transition("deny_change", frozenset({ChangeState.SUBMITTED}), ChangeState.DENIED),
)


class IllegalChangeTransition(IllegalTransition):
    what = "a change request"


def target_of(action: str, state: str) -> str:
    return next_state(TRANSITIONS, action, state, IllegalChangeTransition)
