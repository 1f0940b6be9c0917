"""Claims under concurrency (threads, each with its own database connection): one claim
submitted by several requests at once is submitted once, its money claimed once; one claim
approved twice at once is certified once. Written for PostgreSQL (row locks: the application's
row is locked first); on SQLite every transaction begins IMMEDIATE and the writers take turns."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connections
from tests.participants import OTHER_SIN
from tests.personas import EMPLOYER, OFFICER
from tests.service.grants.claim_helpers import (
    approved_file,
    assign,
    attach,
    confirm,
    during_training,
)

from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.claims import actions as claim_actions
from jobgrant.service.grants.claims import assessment as claim_assessment
from jobgrant.service.grants.models.claims import Claim, ClaimState
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import LedgerTransaction

pytestmark = pytest.mark.django_db(transaction=True)
AT_ONCE = 4


def race(job: Callable[[], object], count: int = AT_ONCE) -> tuple[int, list[str], list[str]]:
    """Run `job` in `count` threads released together: (successes, refusal codes, crashes)."""
    start, lock = threading.Barrier(count), threading.Lock()
    made, refused, crashes = [0], [], []

    def run() -> None:
        try:
            start.wait()
            try:
                job()
            except ServiceError as error:
                with lock:
                    refused.append(error.code)
            else:
                with lock:
                    made[0] += 1
        except Exception as error:  # a crash fails the test, not the thread silently
            with lock:
                crashes.append(f"{type(error).__name__}: {error}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return made[0], refused, crashes


def a_draft() -> Claim:
    """A draft claim with a receipt, on a file approved today (the claim made in training)."""
    application = approved_file()
    confirm(application, 0)
    confirm(application, 1, OTHER_SIN)
    assign(application)
    with during_training():
        claim = claim_actions.start_claim(EMPLOYER.get(), application, {})
        attach(claim)
    return claim


def test_a_claim_submitted_by_several_requests_at_once_is_submitted_once(demo) -> None:
    claim_id = a_draft().pk
    with during_training():

        def submit() -> object:
            claim = Claim.objects.select_related("application").get(pk=claim_id)
            return claim_actions.submit_claim(EMPLOYER.get(), claim)

        made, refused, crashes = race(submit)
    assert crashes == []
    assert (made, refused) == (1, ["CLAIM_ILLEGAL_TRANSITION"] * (AT_ONCE - 1))
    claim = Claim.objects.get(pk=claim_id)
    assert claim.state == ClaimState.SUBMITTED
    assert (
        LedgerTransaction.objects.filter(kind="claim", reference=f"claim:{claim_id}").count() == 2
    )
    held = operations.application_balances(claim.application)
    assert (held["federal"].claimed, held["provincial"].claimed) == (620000, 620000)
    assert operations.verify() == []


def test_a_claim_approved_twice_at_once_is_certified_once(demo) -> None:
    claim = a_draft()
    with during_training():
        claim_actions.submit_claim(EMPLOYER.get(), claim)
        claim_id = claim.pk

        def approve() -> object:
            found = Claim.objects.select_related("application").get(pk=claim_id)
            return claim_assessment.approve_claim(OFFICER.get(), found, {})

        made, refused, crashes = race(approve)
    assert crashes == []
    assert (made, refused) == (1, ["CLAIM_ILLEGAL_TRANSITION"] * (AT_ONCE - 1))
    found = Claim.objects.get(pk=claim_id)
    held = operations.application_balances(found.application)
    assert (held["federal"].payable, held["federal"].claimed) == (620000, 620000)
    kinds = LedgerTransaction.objects.filter(reference=f"claim:{claim_id}").values_list(
        "kind", flat=True
    )
    assert sorted(kinds) == ["approve_claim", "approve_claim", "claim", "claim"]
    assert operations.verify() == []
