"""Change requests under concurrency (threads, each with its own database connection):

- eight requests at once on one agreement: exactly one is made, the others are refused as
  CHANGE_ALREADY_OPEN (the agreement's row lock, backed by the partial unique index);
- approvals of changes on several agreements that add money, racing for a budget that can cover
  only some of them: exactly that many are approved, the budget is never over-committed, and the
  ledger balances.

Written for PostgreSQL (row locks); on SQLite every transaction begins IMMEDIATE, so the same
tests check that writers simply take turns.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from django.db import connections
from django.db.models import F, Sum
from tests.personas import EMPLOYER, OFFICER
from tests.service.grants.change_helpers import accepted, trainee

from jobgrant.service.audit.chain import verify
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.changes.actions import approve_change, request_change
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.changes import ChangeRequest
from jobgrant.service.ledger.models import BudgetAccount, Posting

pytestmark = pytest.mark.django_db(transaction=True)
REQUESTS = 8
AGREEMENTS = 5
FITS = 2  # approvals the provincial budget can still cover


@dataclass
class Outcomes:
    made: list[int] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def race(work: list[Callable[[], int]]) -> Outcomes:
    seen, start = Outcomes(), threading.Barrier(len(work))

    def run(job: Callable[[], int]) -> None:
        try:
            start.wait()
            try:
                done = job()
            except ServiceError as error:
                with seen.lock:
                    seen.refused.append(error.code)
            else:
                with seen.lock:
                    seen.made.append(done)
        except Exception as error:  # a crash fails the test, not the thread silently
            with seen.lock:
                seen.crashes.append(f"{type(error).__name__}: {error}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(job,)) for job in work]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return seen


def test_only_one_of_many_concurrent_requests_is_made(demo) -> None:
    agreement_id = accepted().pk

    def ask(day: int) -> Callable[[], int]:
        def job() -> int:
            agreement = Agreement.objects.select_related("application").get(pk=agreement_id)
            body = {"kind": "provider", "provider": {"name": f"College {day}", "third_party": True}}
            return request_change(EMPLOYER.get(), agreement, "provider", body).pk

        return job

    seen = race([ask(day) for day in range(REQUESTS)])
    assert seen.crashes == []
    assert len(seen.made) == 1
    assert seen.refused == ["CHANGE_ALREADY_OPEN"] * (REQUESTS - 1)
    assert ChangeRequest.objects.filter(agreement_id=agreement_id).count() == 1


def test_concurrent_approvals_never_over_commit_the_budget(demo) -> None:
    changes = []
    for _ in range(AGREEMENTS):
        body = {"kind": "trainees", "add": [trainee(tuition="3000.00")]}
        changes.append(request_change(EMPLOYER.get(), accepted(), "trainees", body).pk)
    provincial = BudgetAccount.objects.filter(
        funder="provincial", jurisdiction="ON", fiscal_year="2026-27"
    )
    provincial.update(allocated_cents=F("committed_cents") + FITS * 100_000 + 50_000)

    def approve(change_id: int) -> Callable[[], int]:
        def job() -> int:
            change = ChangeRequest.objects.select_related("agreement__application").get(
                pk=change_id
            )
            return approve_change(OFFICER.get(), change).pk

        return job

    seen = race([approve(change_id) for change_id in changes])
    assert seen.crashes == []
    assert len(seen.made) == FITS
    assert seen.refused == ["BUDGET_EXHAUSTED"] * (AGREEMENTS - FITS)
    account = provincial.get()
    assert account.committed_cents <= account.allocated_cents
    assert ChangeRequest.objects.filter(state="approved").count() == FITS
    assert Posting.objects.aggregate(total=Sum("amount_cents"))["total"] == 0
    assert verify().ok
