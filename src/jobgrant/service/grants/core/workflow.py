"""The application state machine, and the mechanism every object's state machine is declared with
(agreement_workflow, change_workflow, participant_workflow): transitions declared once, an
illegal one refused by an exception that names the object."""

from __future__ import annotations

from dataclasses import dataclass

from jobgrant.service.grants.models.applications import State


@dataclass(frozen=True)
class Transition:
    action: str
    sources: frozenset[str]
    target: str | None  # None: the object stays in the state it is in


def declare(*transitions: Transition) -> dict[str, Transition]:
    return {t.action: t for t in transitions}


TRANSITIONS = declare(
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


class IllegalTransition(Exception):  # noqa: N818 - the domain's word
    what = "an application"

    def __init__(self, action: str, state: str) -> None:
        super().__init__(f"cannot {action} {self.what} that is {state}")
        self.action = action
        self.state = state


def next_state(
    transitions: dict[str, Transition],
    action: str,
    state: str,
    illegal: type[IllegalTransition] = IllegalTransition,
) -> str:
    """The state `action` leads to from `state` in `transitions`, or `illegal`."""
    transition = transitions[action]
    if state not in transition.sources:
        raise illegal(action, state)
    return transition.target or state


def target_of(action: str, state: str) -> str:
    return next_state(TRANSITIONS, action, state)
