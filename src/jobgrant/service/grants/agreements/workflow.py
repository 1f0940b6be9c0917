"""The agreement's state machine: every allowed transition, declared once.

    issued → accepted → active → completed → closed
    issued → declined | expired | withdrawn
    active → cancelled

An offer (issued) is accepted by the applicant, declined by them, withdrawn by an officer, or
expires by itself after its accept-by time. Active, completed, closed and cancelled belong to the
claims and outcome reports still to come; they are declared here so that their transitions are
named once, with the others. Accepting a later version that needs acceptance again (an approved
change to money or scope) keeps the agreement's state: `accept_version`.
"""

from __future__ import annotations

from jobgrant.service.grants.core.workflow import IllegalTransition, Transition, declare, next_state
from jobgrant.service.grants.models.agreements import AgreementState as S

TRANSITIONS = declare(
    Transition("accept", frozenset({S.ISSUED}), S.ACCEPTED),
    Transition("decline", frozenset({S.ISSUED}), S.DECLINED),
    Transition("expire", frozenset({S.ISSUED}), S.EXPIRED),
    Transition("withdraw", frozenset({S.ISSUED}), S.WITHDRAWN),
    Transition("accept_version", frozenset({S.ACCEPTED, S.ACTIVE}), None),
    Transition("activate", frozenset({S.ACCEPTED}), S.ACTIVE),
    Transition("complete", frozenset({S.ACTIVE}), S.COMPLETED),
    Transition("close", frozenset({S.COMPLETED}), S.CLOSED),
    Transition("cancel", frozenset({S.ACTIVE}), S.CANCELLED),
)
#: The states in which the offer is over and its commitment has been given back.
ENDED_OFFER = frozenset({S.DECLINED, S.EXPIRED, S.WITHDRAWN})


class IllegalAgreementTransition(IllegalTransition):
    what = "an agreement"


def agreement_target_of(action: str, state: str) -> str:
    """The state `action` leads to from `state`, or IllegalAgreementTransition."""
    return next_state(TRANSITIONS, action, state, IllegalAgreementTransition)
