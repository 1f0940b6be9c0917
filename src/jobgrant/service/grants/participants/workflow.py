"""The participant slot's state machine: every allowed transition, declared once.

invited → form_submitted → confirmed | ineligible; a slot is withdrawn from any live state but
form_submitted (which lasts only inside the submission's transaction, decided at once). A confirmed
slot becomes outcome_reported when the employer's completion report is submitted.
"""

from __future__ import annotations

from jobgrant.service.grants.core.workflow import IllegalTransition, Transition, declare, next_state
from jobgrant.service.grants.models.participants import ParticipantState as S

TRANSITIONS = declare(
    Transition("resend", frozenset({S.INVITED}), S.INVITED),
    Transition("submit", frozenset({S.INVITED}), S.FORM_SUBMITTED),
    Transition("confirm", frozenset({S.FORM_SUBMITTED}), S.CONFIRMED),
    Transition("find_ineligible", frozenset({S.FORM_SUBMITTED}), S.INELIGIBLE),
    Transition("revoke", frozenset({S.INVITED, S.CONFIRMED, S.INELIGIBLE}), S.WITHDRAWN),
    Transition("report_outcome", frozenset({S.CONFIRMED}), S.OUTCOME_REPORTED),
)
LIVE = frozenset(S) - {S.WITHDRAWN}
#: A trainee whose participation is confirmed: their costs may be claimed, before the completion
#: report and after it (an outcome reported does not undo the confirmation).
CONFIRMED_SLOTS = frozenset({S.CONFIRMED, S.OUTCOME_REPORTED})


class IllegalParticipantTransition(IllegalTransition):
    what = "a participant"


def target_of(action: str, state: str) -> str:
    return next_state(TRANSITIONS, action, state, IllegalParticipantTransition)
