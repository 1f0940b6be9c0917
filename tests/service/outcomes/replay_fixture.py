"""Hand-worked intakes for the replay's tests: Ontario's November intake, four files; Ontario's
intake ranked, two files."""

from __future__ import annotations

import datetime as dt

from tests.conftest import application_body
from tests.personas import EMPLOYER, OFFICER
from tests.service.grants.ranking_helpers import closed, ranked_stream, trainee

from jobgrant.service.accounts.models import User
from jobgrant.service.demo_support import clear_demo_flags
from jobgrant.service.grants.applications.actions import create_application, submit_application
from jobgrant.service.grants.models.applications import (
    Application,
    Intake,
    IntakeState,
    Selection,
)
from jobgrant.service.grants.ranking.actions import rank_intake

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


#: A rules scenario for the ranked intake's replay: the 2014 rules, the federal government paying
#: a quarter of the costs (nothing provincial), so the cost per trainee the ranking scores falls.
QUARTER = """\
title: {en: A federal quarter (test), fr: Un quart fédéral (essai)}
description: The 2014 rules with the federal government paying a quarter of the costs.
base: cjg-2014
reference:
  - {title: "Test scenario", href: "https://www.canada.ca/"}
parameters:
  cjg.federal.rate:
    description: A quarter (test assumption).
    values: {2014-04-01: 1/4}
    reference:
      - {title: "Test assumption", href: "https://www.canada.ca/"}
"""


def ranked_intake_of_two() -> tuple[Intake, dict[str, Application]]:
    """Ontario's intake ranked under on-2017 (tests/service/grants/ranking_helpers: its federal
    budget $10,000, its provincial one $12,000), with two files of Birchwood (40 employees: 30
    small-business points; no approved file yet: 10 first-time points):

    - X: 1 employee, $12,000. As decided (cjg-2013): $4,000 federal + $4,000 provincial, a
      cost per trainee of $8,000: no cost points; 40. With a federal quarter: $3,000, all 20
      cost points; 60.
    - Y: 1 new hire and 1 employee, $30,000 each. As decided: $10,000 + $10,000 (capped), a
      cost per trainee of $10,000: none; 1 new hire of 2: 12; 52. With a federal quarter:
      $15,000 federal, $7,500 per trainee: none; 52.

    As decided: Y first, its $10,000 + $10,000 fit the budgets; X's do not: the cut-off.
    Replayed: X first ($3,000 fits), then Y ($15,000 federal does not): X gains, Y loses."""
    intake = ranked_stream()
    employer = EMPLOYER.get()
    bodies = {
        "X": [trainee("existing-employee", "12000.00")],
        "Y": [trainee("new-hire", "30000.00"), trainee("existing-employee", "30000.00")],
    }
    files = {}
    for name, trainees in bodies.items():
        application = create_application(employer, application_body(trainees=trainees))
        files[name] = submit_application(employer, application)
    for application in files.values():
        clear_demo_flags(OFFICER.get(), application)
    rank_intake(closed(intake))
    return Intake.objects.get(pk=intake.pk), files
