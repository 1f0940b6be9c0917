"""The end of each file and the months after: the completion report, and the follow-ups at 3
and 12 months (sent by the periodic jobs, answered or let lapse as the plan says)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from jobgrant.service.demo_outcomes.plan import Plan
from jobgrant.service.demo_outcomes.steps import FileState

if TYPE_CHECKING:
    from jobgrant.service.demo_outcomes.walk import Walk


def schedule_file(history: Walk, state: FileState, report_day: dt.date) -> None:
    """The completion report (not yet: the actions are not on this branch)."""


def schedule_jobs(history: Walk, plan: Plan) -> None:
    """The follow-up jobs (not yet: the actions are not on this branch)."""
