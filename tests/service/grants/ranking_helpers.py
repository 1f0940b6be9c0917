"""A hand-worked ranked intake: four Ontario files scored under the `on-2017` criteria set.

The applicant (Birchwood Tool and Die) has 40 employees, at most 50: 30 points on every file
(on-2017 weighs small businesses 30 from 2017-04-01); it has no approved file: 10 first-time
points on each. cjg-2013 in Ontario: government two thirds, half federal, half provincial.

| file | trainees | gov. per trainee | new hires | region | score |
|---|---|---|---|---|---|
| A | 1 employee, $15,000 | $10,000: 0 | 0 | 3550: 0 | 40 |
| B | 1 new hire, $6,000 | $4,000: half, 10 | 1 of 1: 25 | 3590 (NE): 10 | 85 |
| C | 1 new hire + 1 employee, $4,500 | $3,000: all, 20 | 1 of 2: 12 | 3550: 0 | 72 |
| D | as A, submitted after A | $10,000: 0 | 0 | 3550: 0 | 40 |

Order B, C, A, D (A before D: the earlier submission). Federal shares in that order: $2,000,
$3,000, $5,000, $5,000; running: 2,000, 5,000, 10,000, 15,000. With a federal budget of
$10,000 and a provincial one of $12,000, the cut-off falls after A: D is below it.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from tests.conftest import application_body
from tests.personas import EMPLOYER, OFFICER

from jobgrant.service.demo_support import clear_demo_flags
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import (
    Application,
    Intake,
    IntakeState,
    Selection,
    Stream,
)
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount, Funder


def trainee(status: str, tuition: str) -> dict[str, Any]:
    costs = {"tuition": tuition, "student_fees": "0.00", "materials": "0.00", "exam_fees": "0.00"}
    return {"employer_id": "acme", "status": status, "costs": costs}


FILES: dict[str, dict[str, Any]] = {
    "A": {"trainees": [trainee("existing-employee", "15000.00")]},
    "B": {"trainees": [trainee("new-hire", "6000.00")], "region": "3590"},
    "C": {"trainees": [trainee("new-hire", "4500.00"), trainee("existing-employee", "4500.00")]},
    "D": {"trainees": [trainee("existing-employee", "15000.00")]},
}
SCORES = {"A": 40, "B": 85, "C": 72, "D": 40}
ORDER = ["B", "C", "A", "D"]
WITHIN = {"B": True, "C": True, "A": True, "D": False}
FEDERAL_BUDGET, PROVINCIAL_BUDGET = 1_000_000, 1_200_000


def ranked_stream() -> Intake:
    """Ontario's open intake (the one its applications go to; the demonstration's ranked one is
    already ranked), its stream ranked under on-2017, with the budgets above earmarked on its
    budget accounts as a program manager would have set them."""
    intake = Intake.objects.get(stream__program__jurisdiction="ON", state=IntakeState.OPEN)
    Stream.objects.filter(pk=intake.stream_id).update(selection=Selection.RANKED, scoring="on-2017")
    program = intake.stream.program
    with transaction.atomic():
        for funder, cents in (
            (Funder.FEDERAL, FEDERAL_BUDGET),
            (Funder.PROVINCIAL, PROVINCIAL_BUDGET),
        ):
            account = BudgetAccount.objects.get(
                funder=funder, jurisdiction="ON", fiscal_year=program.fiscal_year, stream="CJG"
            )
            operations.set_earmark(intake.pk, account, cents, actor="test")
    Intake.objects.filter(pk=intake.pk).update(
        federal_budget_cents=FEDERAL_BUDGET, provincial_budget_cents=PROVINCIAL_BUDGET
    )
    return Intake.objects.get(pk=intake.pk)


def submitted_files() -> dict[str, Application]:
    """The four files, submitted in the order A, B, C, D."""
    employer = EMPLOYER.get()
    files = {}
    for name, changes in FILES.items():
        application = actions.create_application(employer, application_body(**changes))
        files[name] = actions.submit_application(employer, application)
    for application in files.values():  # their prices differ: the officer checked each flag
        clear_demo_flags(OFFICER.get(), application)
    return files


def closed(intake: Intake) -> Intake:
    Intake.objects.filter(pk=intake.pk).update(state=IntakeState.CLOSED)
    intake.refresh_from_db()
    return intake
