"""The application state machine: every allowed transition, declared once."""

from __future__ import annotations

from dataclasses import dataclass

from jobgrant.service.grants.models import State


@dataclass(frozen=True)
class Transition:
    action: str
    sources: frozenset[str]
    target: str


TRANSITIONS: dict[str, Transition] = {
    t.action: t
    for t in (
        Transition("submit", frozenset({State.DRAFT}), State.SUBMITTED),
        Transition("recommend", frozenset({State.SUBMITTED}), State.RECOMMENDED),
        Transition("approve", frozenset({State.RECOMMENDED}), State.APPROVED),
        Transition("deny", frozenset({State.SUBMITTED, State.RECOMMENDED}), State.DENIED),
        Transition(
            "withdraw",
            frozenset({State.DRAFT, State.SUBMITTED, State.RECOMMENDED, State.APPROVED}),
            State.WITHDRAWN,
        ),
    )
}


class IllegalTransition(Exception):  # noqa: N818 - the domain's word
    def __init__(self, action: str, state: str) -> None:
        super().__init__(f"cannot {action} an application that is {state}")
        self.action = action
        self.state = state


def target_of(action: str, state: str) -> str:
    transition = TRANSITIONS[action]
    if state not in transition.sources:
        raise IllegalTransition(action, state)
    return transition.target
