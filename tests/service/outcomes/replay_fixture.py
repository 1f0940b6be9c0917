"""A hand-worked intake for the replay's tests: Ontario's November intake, four files."""

from __future__ import annotations

import datetime as dt

from tests.conftest import application_body
from tests.personas import EMPLOYER

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.applications.actions import create_application, submit_application
from jobgrant.service.grants.models.applications import (
    Application,
    Intake,
    IntakeState,
    Selection,
)

#: The hand-worked intake: four files, in the order received, each one trainee's tuition.
TUITIONS = ("15000.00", "3000.00", "15000.00", "6000.00")
RECEIVED = (
    dt.date(2026, 11, 2),
    dt.date(2026, 11, 9),
    dt.date(2026, 11, 16),
    dt.date(2026, 11, 23),
)


def ontario_first_come_intake() -> Intake:
    """The intake Ontario's applications go to (its first-come stream's)."""
    return Intake.objects.get(
        stream__program__jurisdiction="ON",
        stream__program__fiscal_year="2026-27",
        stream__selection=Selection.FIRST_COME,
    )


def intake_of_four(federal_cents: int, provincial_cents: int) -> Intake:
    """Ontario's intake ends before November; a second one, from November on, with its own
    budget, receives four files and is then closed."""
    first = ontario_first_come_intake()
    Intake.objects.filter(pk=first.pk).update(closes_on=dt.date(2026, 10, 31))
    intake = Intake.objects.create(
        stream=first.stream,
        name_en="November",
        name_fr="Novembre",
        opens_on=dt.date(2026, 11, 1),
        closes_on=dt.date(2027, 3, 31),
        federal_budget_cents=federal_cents,
        provincial_budget_cents=provincial_cents,
    )
    employer = User.objects.get(username=EMPLOYER.username)
    for tuition, received in zip(TUITIONS, RECEIVED, strict=True):
        body = application_body()
        body["trainees"][0]["costs"]["tuition"] = tuition
        application = create_application(employer, body, today=received)
        submit_application(employer, application)
    Intake.objects.filter(pk=intake.pk).update(state=IntakeState.CLOSED)
    assert Application.objects.filter(intake=intake).count() == 4
    return Intake.objects.get(pk=intake.pk)
