"""When the follow-ups are due, and making them when the completion report is submitted.

A follow-up is due N months (3, 12) after the training's last day, the end of a month kept: a
training that ended on the last day of a month is followed up on the last day of the month N
months later (January 31 + 1 month = February 28, or 29 in a leap year; February 28, 2027 + 3
months = May 31), and a day the later month lacks falls to its last day (August 31 + 3 months =
November 30; November 29, 2027 + 3 months = February 29, 2028).
"""

from __future__ import annotations

import calendar
import datetime as dt

from jobgrant.service.grants.models.completion import (
    CompletionReport,
    FollowUp,
    Milestone,
    Respondent,
)
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.language import language_of


def _last_day(year: int, month: int) -> int:
    return calendar.monthrange(year, month)[1]


def due_on(ended: dt.date, months: int) -> dt.date:
    """`ended` + `months` calendar months, the end of a month kept."""
    index = ended.year * 12 + ended.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    last = _last_day(year, month)
    if ended.day == _last_day(ended.year, ended.month):
        return dt.date(year, month, last)
    return dt.date(year, month, min(ended.day, last))


def schedule_follow_ups(report: CompletionReport, participants: list[Participant]) -> int:
    """One follow-up per trainee, milestone and respondent (inside the submission's
    transaction); returns how many were made."""
    application = report.application
    employer_email = application.created_by.email or ""
    employer_lang = language_of(application.created_by)
    rows = []
    for participant in participants:
        for milestone in Milestone.values:
            due = due_on(report.training_ended_on, int(milestone))
            rows.append(
                FollowUp(
                    application=application,
                    participant=participant,
                    milestone=milestone,
                    respondent=Respondent.TRAINEE,
                    due_on=due,
                    email=participant.email,
                    language=participant.language if participant.language in ("en", "fr") else "en",
                )
            )
            rows.append(
                FollowUp(
                    application=application,
                    participant=participant,
                    milestone=milestone,
                    respondent=Respondent.EMPLOYER,
                    due_on=due,
                    email=employer_email,
                    language=employer_lang,
                )
            )
    FollowUp.objects.bulk_create(rows)
    return len(rows)
