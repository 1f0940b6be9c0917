"""The burden meter's timings of the demonstration's history: its people act through the actions,
not the pages, so the time each step took on its pages is made up here, once per step as it
happens: a base time per step, longer for smaller firms, spread by the file's number so that the
medians and the firm-size bands of the analyst's page have something to show. Made-up figures
for a demonstration, never measurements: the service itself times only the pages' requests."""

from __future__ import annotations

import datetime as dt
import hashlib

from django.utils import timezone

from jobgrant.service.grants.burden import actions as burden
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.burden import BurdenStep

#: A typical time on each step's pages, in minutes, for a firm of 100 employees or more.
BASE_MINUTES = {
    BurdenStep.APPLY_ORGANIZATIONS: 4,
    BurdenStep.APPLY_TRAINING: 9,
    BurdenStep.APPLY_TRAINEES: 14,
    BurdenStep.APPLY_DECLARATIONS: 7,
    BurdenStep.APPLY_REVIEW: 5,
    BurdenStep.PARTICIPANT_FORM: 11,
    BurdenStep.CLAIM: 26,
    BurdenStep.COMPLETION: 32,
}
WIZARD = (
    BurdenStep.APPLY_ORGANIZATIONS,
    BurdenStep.APPLY_TRAINING,
    BurdenStep.APPLY_TRAINEES,
    BurdenStep.APPLY_DECLARATIONS,
    BurdenStep.APPLY_REVIEW,
)


def minutes(step: BurdenStep, number: int, employees: int, subject: int = 0) -> int:
    """The made-up minutes of one step: small firms (no staff to do the paperwork) take longer,
    and each file differs (a factor of 0.5 to 2.5 from its number)."""
    size = 1.6 if employees < 50 else 1.25 if employees < 100 else 1.0
    digest = hashlib.sha256(f"{step.value} {number} {subject}".encode()).digest()
    spread = 0.5 + 2.0 * digest[0] / 255
    return max(1, round(BASE_MINUTES[step] * size * spread))


def applied(application: Application, number: int, employees: int) -> None:
    """The wizard's four steps ended now, one after the other, and the whole application."""
    end = timezone.now()
    moment = end
    for step in reversed(WIZARD):
        start = moment - dt.timedelta(minutes=minutes(step, number, employees))
        burden.record_timing(step, application, first_viewed_at=start, submitted_at=moment)
        moment = start
    burden.record_timing(
        BurdenStep.APPLICATION, application, first_viewed_at=moment, submitted_at=end
    )


def done(
    step: BurdenStep, application: Application, number: int, employees: int, subject: int = 0
) -> None:
    """A step (a participant form, a claim, the completion report) submitted now."""
    end = timezone.now()
    start = end - dt.timedelta(minutes=minutes(step, number, employees, subject))
    burden.record_timing(
        step, application, first_viewed_at=start, submitted_at=end, subject=subject
    )
