"""An intake's states and the moves between them, declared once.

Scheduled until its opening date, open until its closing date (the worker moves it at the
dates), closed (at its date, or early by a program manager with a reason), and ranked once the
ranking has put a ranked stream's applications in order. Only a scheduled intake is edited.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from jobgrant.service.grants.models.applications import Intake, IntakeState
from jobgrant.service.refusals import refused

TRANSITIONS: dict[str, tuple[frozenset[str], str]] = {
    "open": (frozenset({IntakeState.SCHEDULED}), IntakeState.OPEN),
    "close": (frozenset({IntakeState.SCHEDULED, IntakeState.OPEN}), IntakeState.CLOSED),
    "change": (frozenset({IntakeState.SCHEDULED}), IntakeState.SCHEDULED),
}


REFUSED_MOVES = {
    "open": gettext_lazy("Only a scheduled intake opens; this one is now “%(state)s”."),
    "close": gettext_lazy(
        "Only a scheduled or open intake can be closed; this one is now “%(state)s”."
    ),
    "change": gettext_lazy(
        "Only an intake that has not opened yet can be changed; this one is now “%(state)s”."
    ),
}


def move(intake: Intake, action: str) -> str:
    """The state `action` leads to from the intake's, or a 409 naming the state."""
    sources, target = TRANSITIONS[action]
    if intake.state not in sources:
        label = IntakeState(intake.state).label
        raise refused(
            409,
            "ILLEGAL_TRANSITION",
            lambda: {"state": label},
            text=REFUSED_MOVES[action],
            extra={"state": intake.state},
        )
    return target
