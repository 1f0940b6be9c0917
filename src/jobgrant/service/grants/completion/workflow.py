"""The completion report's and the follow-ups' state machines: every allowed transition, declared
once (like `participant_workflow`).

    completion report: draft → submitted
    follow-up:         due → sent → reminded → responded | lapsed;  sent → responded | lapsed

A lapsed follow-up is never sent again: no transition leaves `lapsed` or `responded`.
"""

from __future__ import annotations

from jobgrant.service.grants.core.workflow import IllegalTransition, Transition, declare, next_state
from jobgrant.service.grants.models.completion import FollowUpState as F
from jobgrant.service.grants.models.completion import ReportState as R

REPORT_TRANSITIONS = declare(
    Transition("save", frozenset({R.DRAFT}), None),
    Transition("submit", frozenset({R.DRAFT}), R.SUBMITTED),
)
FOLLOW_UP_TRANSITIONS = declare(
    Transition("send", frozenset({F.DUE}), F.SENT),
    Transition("remind", frozenset({F.SENT}), F.REMINDED),
    Transition("respond", frozenset({F.SENT, F.REMINDED}), F.RESPONDED),
    Transition("lapse", frozenset({F.SENT, F.REMINDED}), F.LAPSED),
)
#: The states in which a follow-up waits for its answer.
WAITING = frozenset({F.SENT, F.REMINDED})


class IllegalReportTransition(IllegalTransition):
    what = "a completion report"


class IllegalFollowUpTransition(IllegalTransition):
    what = "a follow-up"


def report_target_of(action: str, state: str) -> str:
    return next_state(REPORT_TRANSITIONS, action, state, IllegalReportTransition)


def follow_up_target_of(action: str, state: str) -> str:
    return next_state(FOLLOW_UP_TRANSITIONS, action, state, IllegalFollowUpTransition)
