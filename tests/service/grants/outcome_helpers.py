"""Files whose training has ended, for the outcome tests: approved, accepted, two trainees
confirmed through their links (training 2027-01-11 to 2027-03-26, tests.conftest)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import time_machine
from tests import canonical
from tests.participants import OTHER_SIN
from tests.personas import EMPLOYER
from tests.service.grants.claim_helpers import approved_file, confirm

from jobgrant.service.grants.completion import report as completion_actions
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.completion import LIKERT_ITEMS, CompletionReport
from jobgrant.service.grants.models.participants import Participant

TRAINING_END = dt.date(2027, 3, 26)
AFTER_TRAINING = dt.datetime(2027, 4, 2, 15, 0, tzinfo=dt.UTC)


def ended_file(trainee_language: str = "en") -> tuple[Application, list[Participant]]:
    """An accepted file with its two trainees confirmed (before the training): in English, the
    canonical claimable file (tests/canonical.py; assigned to OFFICER too)."""
    if trainee_language == "en":
        application = canonical.put("claimable")
        return application, canonical.participants(application)
    application = approved_file()
    slots = [confirm(application, 0), confirm(application, 1, OTHER_SIN)]
    if trainee_language != "en":
        Participant.objects.filter(pk=slots[1].pk).update(language=trainee_language)
        slots[1].refresh_from_db()
    return application, slots


def after_training() -> Any:
    return time_machine.travel(AFTER_TRAINING, tick=True)


def outcome(slot: Participant, **changes: Any) -> dict[str, Any]:
    answers: dict[str, Any] = {
        "participant": slot.pk,
        "completed": True,
        "employed_at_end": True,
        "with_this_employer": True,
        "employment_type": "full-time",
        "noc": "72410",
        "hourly_wage_before": "24.50",
        "hourly_wage_after": "27.25",
    }
    answers.update(changes)
    return {key: value for key, value in answers.items() if value is not None}


def all_ratings(application: Application, score: int = 4) -> dict[tuple[int, str], int]:
    employers = application.employers.values_list("employer_id", flat=True)
    return {(employer, item): score for employer in employers for item in LIKERT_ITEMS}


def filled_report(
    application: Application, slots: list[Participant], **first: Any
) -> CompletionReport:
    """The report started and saved with every trainee and rating (inside after_training)."""
    by = EMPLOYER.get()
    report = completion_actions.start_completion_report(application, by=by)
    return completion_actions.save_completion_report(
        report,
        trainees=[outcome(slots[0], **first), outcome(slots[1])],
        ratings=all_ratings(application),
        feedback="Useful training.",
        by=by,
    )


def submitted_report(trainee_language: str = "en") -> tuple[Application, list[Participant]]:
    """A file whose completion report is submitted (its follow-ups scheduled): in English, the
    canonical completed file (tests/canonical.py: its final claim paid too, so completed)."""
    if trainee_language == "en":
        application = canonical.put("completed")
        return application, canonical.participants(application)
    application, slots = ended_file(trainee_language)
    with after_training():
        report = filled_report(application, slots)
        completion_actions.submit_completion_report(report, by=EMPLOYER.get())
    return application, slots


def at(day: dt.date, hour: int = 15) -> Any:
    """The clock at `day`, in the afternoon (Toronto is UTC-4 or -5: the same local day)."""
    return time_machine.travel(dt.datetime(day.year, day.month, day.day, hour, tzinfo=dt.UTC))
