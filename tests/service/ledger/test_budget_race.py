"""T1, the race: concurrent approvals never over-commit a budget (on SQLite and on PostgreSQL).

Each round, N recommended applications are approved through the API handler by 32 client
threads, each with its own database connection, with 0-20 ms of random jitter before each
request: N = 200 on PostgreSQL, where the approvals truly run side by side; 60 on SQLite, whose
writers take turns (the same race: 23 refused beside the 37 that fit, for less CPU).
The binding budget is left with room for exactly K = 37 approvals of $9,000
(or, in the random variant, for whatever fits of amounts between $1 and $10,000). A watcher
thread reads the budget and sums the ledger while the race runs. After each round: exactly the
approvals that fit succeeded, the others were refused with 409 BUDGET_EXHAUSTED and the
available amount, commitments equal the approved shares and never exceed the allocation, every
ledger transaction balances, nothing failed with a 5xx, and the audit chain verifies with one
entry per approval.

    JOBGRANT_RACE_ROUNDS=50 pytest tests/service/ledger/test_budget_race.py  # full T1, N = 200
    pytest tests/service/ledger/test_budget_race.py --log-cli-level=INFO     # each round's figures
"""

from __future__ import annotations

import logging
import os
import queue
import random
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pytest
from django.db import connections, transaction
from django.db.models import Sum
from django.test import Client
from tests.conftest import DECLARATIONS
from tests.personas import EMPLOYER, OFFICER, SECOND_OFFICER

from jobgrant.service.accounts.models import ApiToken, User
from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.demo_support import business_number
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import Bucket, BudgetAccount, LedgerTransaction, Posting
from jobgrant.service.registry.models import Employer, Verification

pytestmark = pytest.mark.django_db(transaction=True)
log = logging.getLogger(__name__)

# By default three rounds (the federal budget binds, then the provincial one, then random
# amounts); JOBGRANT_RACE_ROUNDS=50 runs 50 rounds of each variant.
FULL_ROUNDS = os.environ.get("JOBGRANT_RACE_ROUNDS")
FIXED_ROUNDS = int(FULL_ROUNDS or 2)
RANDOM_ROUNDS = int(FULL_ROUNDS or 1)
APPLICATIONS = 200
APPLICATIONS_ON_SQLITE = 60  # the full T1 runs 200 on SQLite too
CLIENTS = 32
FITS = 37
AMOUNT_CENTS = 900_000  # $9,000 federal (and as much provincial) per application
FUNDERS = ("federal", "provincial")


# --- Setting the scene: recommended applications and a budget with room for exactly K -------


def application_body(employer: Employer, federal_cents: int) -> dict[str, Any]:
    """An Ontario application whose quote is exactly `federal_cents` federal (and provincial).

    Two trainees share the amount; each one's costs are three times its share, so the
    one-third federal and provincial rates give it exactly and the $5,000 cap never bites.
    """
    first = federal_cents // 2
    trainees = [
        {
            "employer_id": "e",
            "status": "existing-employee",
            "costs": {
                "tuition": _dollars(3 * share),
                "student_fees": "0.00",
                "materials": "0.00",
                "exam_fees": "0.00",
            },
        }
        for share in (first, federal_cents - first)
    ]
    return {
        "jurisdiction": "ON",
        "region": "3550",
        "employers": [{"id": "e", "business_number": employer.business_number}],
        "training": {
            "setting": "off-site",
            "start_date": "2027-01-11",
            "end_date": "2027-03-26",
            "hours": 120,
            "provider": {"name": "Mohawk College", "third_party": True},
        },
        "trainees": trainees,
        "declarations": DECLARATIONS,
    }


def _dollars(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def race_employers(user: User, count: int) -> list[Employer]:
    """One employer per application, so that the budget is the only thing approvals share
    (approving locks the application's employers to re-check their per-employer caps)."""
    employers = Employer.objects.bulk_create(
        Employer(
            business_number=business_number(f"{30_000_000 + n}"),
            verification=Verification.VERIFIED,  # as if an officer had verified it
            name=f"Race {n}",
            employees=40,
            naics="332710",
            jurisdiction="ON",
            region="3550",
        )
        for n in range(count)
    )
    user.employers.add(*employers)
    return employers


def recommended_applications(federal_amounts: list[int]) -> dict[int, int]:
    """Create, submit and recommend one application per amount: {id: federal cents}."""
    applicant = EMPLOYER.get()
    recommender = OFFICER.get()
    created = {}
    for employer, cents in zip(
        race_employers(applicant, len(federal_amounts)), federal_amounts, strict=True
    ):
        application = actions.create_application(applicant, application_body(employer, cents))
        assert application.federal_cents == application.provincial_cents == cents
        actions.submit_application(applicant, application)
        actions.recommend_application(recommender, application)
        created[application.pk] = cents
    return created


def budget(funder: str) -> BudgetAccount:
    return BudgetAccount.objects.get(
        funder=funder, jurisdiction="ON", fiscal_year="2026-27", stream="CJG"
    )


def leave_available(funder: str, cents: int) -> None:
    """Allocate (or withdraw allocation) until exactly `cents` remain uncommitted."""
    with transaction.atomic():
        account = budget(funder)
        operations.allocate(account, cents - account.available_cents, actor="race-test")
    assert budget(funder).available_cents == cents


# --- The race -----------------------------------------------------------------------------


@dataclass
class Outcome:
    application_id: int
    status: int
    body: dict[str, Any]
    seconds: float


@dataclass
class Race:
    outcomes: list[Outcome] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)  # exceptions in the client threads
    lock: threading.Lock = field(default_factory=threading.Lock)


def approve_concurrently(application_ids: list[int], seed: int) -> Race:
    """Fire one approval per application from CLIENTS threads; return what each one got."""
    tokens = [ApiToken.issue(SECOND_OFFICER.get()) for _ in range(CLIENTS)]
    pending: queue.SimpleQueue[int] = queue.SimpleQueue()
    for application_id in random.Random(seed).sample(application_ids, len(application_ids)):
        pending.put(application_id)
    race, start = Race(), threading.Barrier(CLIENTS)
    threads = [
        threading.Thread(target=_client, args=(token, pending, race, start, seed * 1000 + i))
        for i, token in enumerate(tokens)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return race


def _client(
    token: str,
    pending: queue.SimpleQueue[int],
    race: Race,
    start: threading.Barrier,
    seed: int,
) -> None:
    jitter, client = random.Random(seed), Client(raise_request_exception=False)
    headers = {"Authorization": f"Bearer {token}"}
    try:
        start.wait()
        while True:
            try:
                application_id = pending.get_nowait()
            except queue.Empty:
                return
            time.sleep(jitter.uniform(0, 0.020))
            began = time.perf_counter()
            response = client.post(
                f"/api/v1/applications/{application_id}/approve",
                data="{}",
                content_type="application/json",
                headers={**headers, "Idempotency-Key": f"approve-{application_id}"},
            )
            seconds = time.perf_counter() - began
            outcome = Outcome(application_id, response.status_code, _json(response), seconds)
            with race.lock:
                race.outcomes.append(outcome)
    except Exception as error:  # a crash must fail the test, not vanish with the thread
        with race.lock:
            race.crashes.append(f"{type(error).__name__}: {error}")
    finally:
        connections.close_all()


def _json(response: Any) -> dict[str, Any]:
    """The JSON body, or the raw text of anything else (a 500 page must not crash the client)."""
    if "json" not in response.get("Content-Type", ""):
        return {"raw": response.content.decode(errors="replace")[:500]}
    body: dict[str, Any] = response.json()
    return body


@dataclass
class Watch:
    """What a reader saw while the race ran: budgets and the ledger, read over and over."""

    reads: int = 0
    over_committed: list[tuple[str, int, int]] = field(default_factory=list)
    unbalanced_sums: list[int] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)


@contextmanager
def watching() -> Iterator[Watch]:
    """Read the budgets and sum the ledger over and over, in a thread, while the block runs."""
    watch, stop = Watch(), threading.Event()

    def run() -> None:
        try:
            while not stop.is_set():
                _look(watch)
                time.sleep(0.010)
        except Exception as error:
            watch.crashes.append(f"{type(error).__name__}: {error}")
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    try:
        yield watch
    finally:
        stop.set()
        thread.join()


def _look(watch: Watch) -> None:
    for account in BudgetAccount.objects.filter(jurisdiction="ON", fiscal_year="2026-27"):
        if account.committed_cents > account.allocated_cents:
            watch.over_committed.append(
                (account.funder, account.committed_cents, account.allocated_cents)
            )
    total = Posting.objects.aggregate(total=Sum("amount_cents"))["total"]
    if total:
        watch.unbalanced_sums.append(total)
    watch.reads += 1


# --- What must hold after a round ---------------------------------------------------------


def assert_no_server_errors(race: Race, expected: int) -> None:
    assert race.crashes == []
    assert len(race.outcomes) == expected
    assert [o for o in race.outcomes if o.status >= 500] == []


def assert_refusals_name_the_budget(
    race: Race, amounts: dict[int, int], available_after: dict[str, int]
) -> None:
    """Every refusal is a 409 BUDGET_EXHAUSTED naming the budget, the request and what is left;
    and it was a true refusal: the request is more than that budget has left at the end."""
    for outcome in race.outcomes:
        if outcome.status == 200:
            assert outcome.body["state"] == State.APPROVED
            continue
        body = outcome.body
        assert (outcome.status, body["code"]) == (409, "BUDGET_EXHAUSTED"), body
        requested = amounts[outcome.application_id]
        assert Decimal(body["requested"]) == Decimal(requested) / 100
        assert Decimal(body["available"]) < Decimal(requested) / 100
        assert requested > available_after[body["funder"]]


def assert_books_agree(
    approved: set[int], amounts: dict[int, int], committed_before: dict[str, int]
) -> None:
    """Commitments equal the approved shares, within the allocation, and the ledger agrees."""
    for funder in FUNDERS:
        account = budget(funder)
        assert account.committed_cents <= account.allocated_cents
        assert account.committed_cents - committed_before[funder] == sum(
            amounts[i] for i in approved
        )
        buckets = dict(
            Posting.objects.filter(account=account)
            .values_list("bucket")
            .annotate(total=Sum("amount_cents"))
        )
        assert buckets[Bucket.COMMITTED] == account.committed_cents
        assert buckets[Bucket.AVAILABLE] == account.available_cents
    unbalanced = (
        Posting.objects.values("transaction").annotate(total=Sum("amount_cents")).exclude(total=0)
    )
    assert list(unbalanced) == []


def assert_state_ledger_and_audit(approved: set[int], amounts: dict[int, int]) -> None:
    states = dict(Application.objects.filter(pk__in=amounts).values_list("pk", "state"))
    assert {pk for pk, state in states.items() if state == State.APPROVED} == approved
    assert {state for pk, state in states.items() if pk not in approved} <= {State.RECOMMENDED}
    commits = LedgerTransaction.objects.filter(kind="commit", application__in=amounts)
    assert sorted(commits.values_list("application_id", flat=True)) == sorted(
        [*approved, *approved]
    )  # one commit per funder per approval, none for a refusal
    entries = AuditEntry.objects.filter(
        action="application.approve", object_id__in=[str(i) for i in amounts]
    )
    assert sorted(int(i) for i in entries.values_list("object_id", flat=True)) == sorted(approved)
    chain = verify()
    assert chain.ok, chain


def run_round(amounts: dict[int, int], room: dict[str, int], seed: int) -> Race:
    """Give each budget `room`, race the approvals, check every invariant; return the race."""
    for funder, cents in room.items():
        leave_available(funder, cents)
    committed_before = {funder: budget(funder).committed_cents for funder in FUNDERS}
    with watching() as watch:
        began = time.perf_counter()
        race = approve_concurrently(list(amounts), seed)
        seconds = time.perf_counter() - began
    assert_no_server_errors(race, len(amounts))
    approved = approved_in(race)
    available_after = {funder: budget(funder).available_cents for funder in FUNDERS}
    assert_refusals_name_the_budget(race, amounts, available_after)
    assert_books_agree(approved, amounts, committed_before)
    assert_state_ledger_and_audit(approved, amounts)
    assert watch.crashes == []
    assert watch.reads > 0
    assert watch.over_committed == []
    assert watch.unbalanced_sums == []
    latencies = sorted(o.seconds for o in race.outcomes)
    log.info(
        "seed %s: %d approved, %d refused in %.2f s (p50 %.1f ms, max %.1f ms, %d watcher reads)",
        seed,
        len(approved),
        len(amounts) - len(approved),
        seconds,
        1000 * statistics.median(latencies),
        1000 * latencies[-1],
        watch.reads,
    )
    return race


def approved_in(race: Race) -> set[int]:
    return {o.application_id for o in race.outcomes if o.status == 200}


# --- The tests ----------------------------------------------------------------------------


def racing() -> int:
    """How many applications race: N (module docstring)."""
    if FULL_ROUNDS or connections["default"].vendor == "postgresql":
        return APPLICATIONS
    return APPLICATIONS_ON_SQLITE


@pytest.mark.parametrize("seed", range(FIXED_ROUNDS))
def test_exactly_37_of_the_concurrent_approvals_fit_a_budget_for_37(demo: None, seed: int) -> None:
    amounts = recommended_applications([AMOUNT_CENTS] * racing())
    # Alternate which budget binds: when it is the provincial one, the federal commitment made
    # earlier in the same transaction must be rolled back with the refusal.
    binding = FUNDERS[seed % 2]
    room = {f: (FITS if f == binding else len(amounts)) * AMOUNT_CENTS for f in FUNDERS}
    race = run_round(amounts, room, seed)
    assert len(approved_in(race)) == FITS
    assert budget(binding).available_cents == 0
    assert {o.body["funder"] for o in race.outcomes if o.status == 409} == {binding}


@pytest.mark.parametrize("seed", range(RANDOM_ROUNDS))
def test_random_amounts_never_over_commit_either_budget(demo: None, seed: int) -> None:
    draw = random.Random(f"amounts-{seed}")
    amounts = recommended_applications([draw.randint(100, 1_000_000) for _ in range(racing())])
    total = sum(amounts.values())
    room = {funder: int(total * draw.uniform(0.15, 0.5)) for funder in FUNDERS}
    race = run_round(amounts, room, 100 + seed)
    assert 0 < len(approved_in(race)) < len(amounts)
