"""The canonical files: one file at each stage of a grant, built once into the seeded database.

Many tests need a file at some stage (approved, accepted, claimable, certified, paid, completed)
and only read it, or change it in their own transaction (rolled back at their end). Walking a
file through the actions to that stage costs 0.03 s (approved) to 0.2 s (completed) of CPU a
test, warm, and the same for every test that needs it; putting a made one in, 3 to 9 ms. So each
stage's file is made once, when the seeded database is built (tests/seeded.py), by the service's
own actions as the personas take them, as the helpers of
tests/service/grants/*_helpers.py make them (the same bodies, people and clock; the clock
stopped at each step, so that a test's clock, at the seeded moment and going, is after the
file's moments): the ledger's postings and the audit trail's entries are the ones those actions
wrote.

Each stage is built on the seeded database alone, and the rows it added or changed are kept
aside in the seeded database (tests/seeded.py: `keep_canonical`), then the tables are put back
to the seeded rows (their id sequences left past the file's ids). A test asks for one stage
(`canonical_file` in tests/conftest.py): those rows are put into its database, in its
transaction, in a few milliseconds; every other test sees no canonical file at all, so no test
is coupled to them unless it asks. One stage a test: each stage's audit entries continue the
seeded chain, as the stage's only file.

The rows of a stage are those of one file: `application(stage)` finds it (the only application
the stage added). What each stage holds:

The applicant keeps the persona's own address (employer@example.com): agreement_helpers.approved()
and claim_helpers.approved_file() set another (applicant@example.ca), so a test of that address
builds its file.

- approved: agreement_helpers.approved(): one trainee (tuition $15,000), submitted, recommended
  by OFFICER, approved by SECOND_OFFICER; its agreement offered, not accepted.
- accepted: the same, its agreement accepted by EMPLOYER (change_helpers.accepted()).
- claimable: claim_helpers.approved_file() (two trainees, $9,000 and $9,000 + $600 of
  materials), accepted, both trainees confirmed through their links (SIN, then OTHER_SIN) and
  the file assigned to OFFICER (the claim tests' ready()).
- certified: the claimable file with its final claim (the agreement's lines, one PDF receipt)
  submitted and approved by OFFICER during the training, so certified and waiting for a batch.
- paid: the certified file's claim paid: a batch built by FINANCE, authorized by demo-finance,
  exported and every line confirmed paid; the agreement active (no completion report yet).
- completed: the paid file with its completion report submitted after the training (both
  trainees completed and employed, every rating 4): the agreement completed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

#: The stages, in the order a file goes through them.
STAGES = ("approved", "accepted", "claimable", "certified", "paid", "completed")
#: The clock at each step: the seeded moment, a day of the training, a week after it ended.
NOW = dt.datetime(2026, 11, 29, 15, 0, tzinfo=dt.UTC)
DURING_TRAINING = dt.datetime(2027, 1, 20, 15, 0, tzinfo=dt.UTC)
AFTER_TRAINING = dt.datetime(2027, 4, 2, 15, 0, tzinfo=dt.UTC)
PAYMENT_POOL = {"jurisdiction": "ON", "fiscal_year": "2026-27"}
#: The authorizer of the paid file's batch: someone in finance other than its builder.
AUTHORIZER = "demo-finance"


def put(stage: str) -> Any:
    """The canonical file of `stage` in the test's database (its application): its rows put
    in from the seeded database (tests/seeded.put_canonical); without a seeded database (no
    build directory), made here by the same actions."""
    from django.db import connection
    from tests import conftest, seeded

    from jobgrant.service.grants.models.applications import Application

    if conftest.SEEDED:
        return Application.objects.get(pk=seeded.put_canonical(connection, stage))
    build(stage)
    return Application.objects.latest("pk")


def participants(application: Any) -> list[Any]:
    """The file's trainees' slots, in their order (the first confirmed with SIN, the second
    with OTHER_SIN, from the claimable stage on)."""
    return list(application.participants.order_by("position"))


def build(stage: str) -> None:
    """Make the canonical file of `stage` through the service's actions (in the seeding
    process, on the seeded database)."""
    import time_machine

    with time_machine.travel(NOW, tick=False):  # at the seeded moment, as a test would be
        BUILDERS[stage]()


def _approved() -> Any:
    from tests.conftest import application_body
    from tests.personas import EMPLOYER, OFFICER, SECOND_OFFICER

    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.models.agreements import Agreement

    employer = EMPLOYER.get()
    application = actions.create_application(employer, application_body())
    actions.submit_application(employer, application)
    actions.recommend_application(OFFICER.get(), application)
    actions.approve_application(SECOND_OFFICER.get(), application)
    return Agreement.objects.get(application=application)


def _accepted() -> Any:
    from tests.personas import EMPLOYER
    from tests.service.grants.claim_helpers import ALL_CONFIRMED

    from jobgrant.service.grants.agreements.actions import accept_agreement

    agreement = _approved()
    accept_agreement(EMPLOYER.get(), agreement, "Pat Birch", "Owner", ALL_CONFIRMED)
    return agreement


def _claimable() -> Any:
    from tests.conftest import application_body
    from tests.participants import OTHER_SIN
    from tests.personas import EMPLOYER, OFFICER, SECOND_OFFICER
    from tests.service.grants.claim_helpers import ALL_CONFIRMED, assign, confirm, trainee

    from jobgrant.service.grants.agreements.actions import accept_agreement
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.models.agreements import Agreement

    employer = EMPLOYER.get()
    body = application_body(trainees=[trainee(), trainee(materials="600.00")])
    application = actions.create_application(employer, body)
    actions.submit_application(employer, application)
    actions.recommend_application(OFFICER.get(), application)
    actions.approve_application(SECOND_OFFICER.get(), application)
    agreement = Agreement.objects.get(application=application)
    accept_agreement(employer, agreement, "Pat Birch", "Owner", ALL_CONFIRMED)
    application.refresh_from_db()
    confirm(application, 0)
    confirm(application, 1, OTHER_SIN)
    assign(application)
    return application


def _certified() -> Any:
    import time_machine
    from tests.personas import EMPLOYER, OFFICER
    from tests.service.grants.claim_helpers import attach

    from jobgrant.service.grants.claims import actions as claim_actions
    from jobgrant.service.grants.claims import assessment

    application = _claimable()
    with time_machine.travel(DURING_TRAINING, tick=False):
        claim = claim_actions.start_claim(EMPLOYER.get(), application, {"is_final": True})
        attach(claim)
        claim_actions.submit_claim(EMPLOYER.get(), claim)
        assessment.approve_claim(OFFICER.get(), claim, {})
    return application


def _paid() -> Any:
    import time_machine
    from tests.personas import FINANCE
    from tests.service.grants.payment_helpers import confirm_all

    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.payments import batches, confirmation, export

    application = _certified()
    with time_machine.travel(DURING_TRAINING + dt.timedelta(days=2), tick=False):
        finance = FINANCE.get()
        batch = batches.build_batch(finance, PAYMENT_POOL)
        batches.authorize_batch(User.objects.get(username=AUTHORIZER), batch)
        content = export.export_batch(finance, batch)
        paid_on = (DURING_TRAINING + dt.timedelta(days=3)).date().isoformat()
        answer = confirm_all(content).replace(b"2026-11-30", paid_on.encode())
        confirmation.import_confirmations(finance, batch, answer)
    return application


def _completed() -> Any:
    import time_machine
    from tests.personas import EMPLOYER
    from tests.service.grants.outcome_helpers import filled_report

    from jobgrant.service.grants.completion import report as completion_actions
    from jobgrant.service.grants.models.participants import Participant

    application = _paid()
    slots = list(Participant.objects.filter(application=application).order_by("position"))
    with time_machine.travel(AFTER_TRAINING, tick=False):
        report = filled_report(application, slots)
        completion_actions.submit_completion_report(report, by=EMPLOYER.get())
    return application


BUILDERS: dict[str, Callable[[], Any]] = {
    "approved": _approved,
    "accepted": _accepted,
    "claimable": _claimable,
    "certified": _certified,
    "paid": _paid,
    "completed": _completed,
}

#: What the canonical files are made from, beside the service (in the seeded digest).
SOURCES = (
    "tests/canonical.py",
    "tests/conftest.py",
    "tests/participants.py",
    "tests/service/grants/claim_helpers.py",
    "tests/service/grants/outcome_helpers.py",
    "tests/service/grants/payment_helpers.py",
)
