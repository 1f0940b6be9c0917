"""The scene of the two-server race, set up and read back in a process of its own.

The servers run on a fresh PostgreSQL database of the test's own; the test process's Django is
configured for pytest-django's database, and Django is configured once per process, so what
the test needs done or read in the fresh database is done here, with the service's own actions:

    python -m tests.scale.scene personas                  # the tests' people (tests/personas.py)
    python -m tests.scale.scene prepare --round 0 --binding federal > scene.json
    python -m tests.scale.scene books < outcome.json      # asserts the books, prints figures

`prepare` creates one employer per application (so the budget is all approvals share, as in
T1), creates, submits and recommends the applications, and leaves the binding budget room for
exactly --fits of them. `books` checks, after the race, what T1 checks of the database: the
commitments equal the approved shares and stay within the allocation, every ledger transaction
balances and the buckets agree with the accounts, the approved and only they are approved, one
commitment per funder per approval, one audit entry per approval, and the chain verifies.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from typing import Any

from jobgrant.service.api.examples import EXAMPLE_DECLARATIONS

FUNDERS = ("federal", "provincial")
AMOUNT_CENTS = 900_000  # $9,000 federal (and as much provincial) per application, as in T1


def application_body(business_number: str, federal_cents: int, today: dt.date) -> dict[str, Any]:
    """An Ontario application of exactly `federal_cents` federal (and provincial), whose training
    starts and ends in the current fiscal year (the year of the budgets the servers seeded).

    Two trainees share the amount; each one's costs are three times its share, so the
    one-third federal and provincial rates give it exactly and the $5,000 cap never bites."""
    year_end = dt.date(today.year + (today.month >= 4), 3, 31)
    start = min(today + dt.timedelta(days=14), year_end - dt.timedelta(days=1))
    end = min(start + dt.timedelta(days=28), year_end)
    first = federal_cents // 2
    return {
        "jurisdiction": "ON",
        "region": "3550",
        "employers": [{"id": "e", "business_number": business_number}],
        "training": {
            "setting": "off-site",
            "start_date": start.isoformat(),
            "end_date": end.isoformat(),
            "hours": 120,
            "provider": {"name": "Mohawk College", "third_party": True},
        },
        "trainees": [
            {
                "employer_id": "e",
                "status": "existing-employee",
                "costs": {
                    "tuition": f"{3 * share // 100}.{3 * share % 100:02d}",
                    "student_fees": "0.00",
                    "materials": "0.00",
                    "exam_fees": "0.00",
                },
            }
            for share in (first, federal_cents - first)
        ],
        "declarations": EXAMPLE_DECLARATIONS,
    }


def prepare(round_: int, binding: str, applications: int, fits: int) -> dict[str, Any]:
    from django.db import transaction
    from django.utils import timezone
    from tests.personas import EMPLOYER, OFFICER, create_personas

    from jobgrant.service.demo_support import business_number, clear_demo_flags
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.ledger import operations
    from jobgrant.service.registry.models import Employer, Verification

    create_personas()
    applicant, recommender, today = EMPLOYER.get(), OFFICER.get(), timezone.localdate()
    employers = Employer.objects.bulk_create(
        Employer(
            business_number=business_number(f"{50_000_000 + 1000 * round_ + n}"),
            verification=Verification.VERIFIED,  # as if an officer had verified it
            name=f"Two servers {round_}-{n}",
            employees=40,
            naics="332710",
            jurisdiction="ON",
            region="3550",
        )
        for n in range(applications)
    )
    applicant.employers.add(*employers)
    created: dict[int, int] = {}
    for employer in employers:
        body = application_body(employer.business_number, AMOUNT_CENTS, today)
        application = actions.create_application(applicant, body)
        assert application.federal_cents == application.provincial_cents == AMOUNT_CENTS
        actions.submit_application(applicant, application)
        clear_demo_flags(recommender, application)  # many like files flag each other's price
        actions.recommend_application(recommender, application)
        created[application.pk] = AMOUNT_CENTS
    year = application.fiscal_year
    for funder in FUNDERS:
        room = (fits if funder == binding else applications) * AMOUNT_CENTS
        with transaction.atomic():
            account = _budget(funder, year)
            operations.allocate(account, room - account.available_cents, actor="two-servers")
        assert _budget(funder, year).available_cents == room
    return {
        "applications": created,
        "fiscal_year": year,
        "committed_before": {f: _budget(f, year).committed_cents for f in FUNDERS},
    }


def _budget(funder: str, year: str) -> Any:
    from jobgrant.service.ledger.models import BudgetAccount

    return BudgetAccount.objects.get(
        funder=funder, jurisdiction="ON", fiscal_year=year, stream="CJG"
    )


def books(scene: dict[str, Any], approved: set[int]) -> dict[str, Any]:
    from django.db.models import Sum

    from jobgrant.service.audit.chain import verify
    from jobgrant.service.audit.models import AuditEntry
    from jobgrant.service.grants.models.applications import Application, State
    from jobgrant.service.ledger.models import Bucket, LedgerTransaction, Posting

    amounts = {int(pk): cents for pk, cents in scene["applications"].items()}
    figures: dict[str, Any] = {}
    for funder in FUNDERS:
        account = _budget(funder, scene["fiscal_year"])
        committed = account.committed_cents - scene["committed_before"][funder]
        assert account.committed_cents <= account.allocated_cents
        assert committed == sum(amounts[pk] for pk in approved), (funder, committed)
        buckets = dict(
            Posting.objects.filter(account=account)
            .values_list("bucket")
            .annotate(total=Sum("amount_cents"))
        )
        assert buckets[Bucket.COMMITTED] == account.committed_cents
        assert buckets[Bucket.AVAILABLE] == account.available_cents
        figures[funder] = {"committed": committed, "available": account.available_cents}
    unbalanced = (
        Posting.objects.values("transaction").annotate(total=Sum("amount_cents")).exclude(total=0)
    )
    assert list(unbalanced) == []
    states = dict(Application.objects.filter(pk__in=amounts).values_list("pk", "state"))
    assert {pk for pk, state in states.items() if state == State.APPROVED} == approved
    assert {state for pk, state in states.items() if pk not in approved} == {State.RECOMMENDED}
    commits = LedgerTransaction.objects.filter(kind="commit", application__in=amounts)
    assert sorted(commits.values_list("application_id", flat=True)) == sorted([*approved] * 2)
    entries = AuditEntry.objects.filter(
        action="application.approve", object_id__in=[str(pk) for pk in amounts]
    )
    assert sorted(int(pk) for pk in entries.values_list("object_id", flat=True)) == sorted(approved)
    chain = verify()
    assert chain.ok, chain
    figures["audit_entries"] = chain.checked
    figures["ledger_transactions"] = LedgerTransaction.objects.count()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("what", choices=["personas", "prepare", "books"])
    parser.add_argument("--round", type=int, default=0)
    parser.add_argument("--binding", choices=FUNDERS, default="federal")
    parser.add_argument("--applications", type=int, default=200)
    parser.add_argument("--fits", type=int, default=37)
    arguments = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jobgrant.service.settings")
    import django

    django.setup()
    if arguments.what == "personas":
        from tests.personas import create_personas

        create_personas()
        answer: Any = {}
    elif arguments.what == "prepare":
        answer = prepare(arguments.round, arguments.binding, arguments.applications, arguments.fits)
    else:
        outcome = json.load(sys.stdin)
        answer = books(outcome["scene"], set(outcome["approved"]))
    json.dump(answer, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
