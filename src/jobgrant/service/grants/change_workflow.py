"""The change request state machine: every allowed transition, declared once.

A change request is submitted by the employer, then approved or denied by an officer (a date
change inside the agreement's fiscal year is approved at once, by the service, when it changes no
money). A decided request is final: a new change is a new request.
"""

from __future__ import annotations

from dataclasses import dataclass

from jobgrant.service.grants.change_models import ChangeState

OPEN_STATES = frozenset({ChangeState.SUBMITTED})


@dataclass(frozen=True)
class Transition:
    action: str
    sources: frozenset[str]
    target: str


TRANSITIONS: dict[str, Transition] = {
    t.action: t
    for t in (
        Transition("approve_change", frozenset({ChangeState.SUBMITTED}), ChangeState.APPROVED),
        Transition("deny_change", frozenset({ChangeState.SUBMITTED}), ChangeState.DENIED),
    )
}


class IllegalChangeTransition(Exception):  # noqa: N818 - the domain's word
    def __init__(self, action: str, state: str) -> None:
        super().__init__(f"cannot {action} a change request that is {state}")
        self.action = action
        self.state = state


def target_of(action: str, state: str) -> str:
    transition = TRANSITIONS[action]
    if state not in transition.sources:
        raise IllegalChangeTransition(action, state)
    return transition.target
