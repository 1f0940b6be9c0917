"""The completion report's and the follow-ups' state machines: every allowed transition, declared
once (like `participant_workflow`).

    completion report: draft → submitted
    follow-up:         due → sent → reminded → responded | lapsed;  sent → responded | lapsed

A lapsed follow-up is never sent again: no transition leaves `lapsed` or `responded`.
"""

from __future__ import annotations

from jobgrant.service.grants.core.workflow import IllegalTransition, Transition, declare, next_state
from jobgrant.service.grants.models.comparison import ComparisonState as C
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
#: The comparison group's questions move as a follow-up does, and may be declined: the employer
#: said no to being asked (every row of its file, whatever its milestone, if not answered yet).
COMPARISON_TRANSITIONS = declare(
    Transition("send", frozenset({C.DUE}), C.SENT),
    Transition("remind", frozenset({C.SENT}), C.REMINDED),
    Transition("respond", frozenset({C.SENT, C.REMINDED}), C.RESPONDED),
    Transition("lapse", frozenset({C.SENT, C.REMINDED}), C.LAPSED),
    Transition("decline", frozenset({C.DUE, C.SENT, C.REMINDED}), C.DECLINED),
)
#: The states in which a follow-up waits for its answer.
WAITING = frozenset({F.SENT, F.REMINDED})


class IllegalReportTransition(IllegalTransition):
    what = "a completion report"


class IllegalFollowUpTransition(IllegalTransition):
    what = "a follow-up"


class IllegalComparisonTransition(IllegalTransition):
    what = "a comparison group's question"


def comparison_target_of(action: str, state: str) -> str:
    return next_state(COMPARISON_TRANSITIONS, action, state, IllegalComparisonTransition)


def report_target_of(action: str, state: str) -> str:
    return next_state(REPORT_TRANSITIONS, action, state, IllegalReportTransition)


def follow_up_target_of(action: str, state: str) -> str:
    return next_state(FOLLOW_UP_TRANSITIONS, action, state, IllegalFollowUpTransition)
