"""Concurrency: batches built at once never put a claim in two of them; a confirmation file
posted by several clients at once (with one key, or with different keys) disburses once.

Client threads, each with its own database connection, released together by a barrier. On
PostgreSQL this is real concurrency (row locks on the year's document counter and the payment
requests, a partial unique index as backstop); on SQLite writers take turns.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connections
from django.test import Client
from tests.personas import FINANCE
from tests.service.grants.payment_helpers import (
    SECOND_FINANCE,
    accepted_file,
    account,
    certified_claim,
    confirm_all,
    finance,
    second_finance,
)

from jobgrant.service.accounts.models import ApiToken, Role, User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.payments import ConfirmationImport, PaymentBatch, PaymentRequest
from jobgrant.service.grants.payments import batches as payment_batches
from jobgrant.service.grants.payments import export as payment_export
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import LedgerTransaction

pytestmark = pytest.mark.django_db(transaction=True)
POOL = {"jurisdiction": "ON", "fiscal_year": "2026-27"}
BUILDERS = 6
FILES = 8


def at_once(count: int, work: Callable[[int], Any]) -> list[Any]:
    """Run work(0..count-1) in `count` threads released together; their results (or errors)."""
    together = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(index: int) -> None:
        try:
            together.wait(timeout=60)
            results[index] = work(index)
        except Exception as error:  # kept: the test says which were refused and why
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_batches_built_at_once_never_take_a_claim_twice(demo: None) -> None:
    approved = 0
    for i in range(FILES):
        application = accepted_file()
        certified_claim(application, federal=100_000 + i, provincial=50_000 + i)
        approved += 150_000 + 2 * i
    builders = [
        User.objects.create_user(username=f"builder-{i}", role=Role.FINANCE)
        for i in range(BUILDERS)
    ]
    results = at_once(BUILDERS, lambda i: payment_batches.build_batch(builders[i], POOL))
    built = [r for r in results if isinstance(r, PaymentBatch)]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(built) + len(refused) == BUILDERS, results
    assert {r.code for r in refused} <= {"NOTHING_TO_PAY"}
    requests = PaymentRequest.objects.all()
    taken = Counter(requests.values_list("claim_id", "funder"))
    assert len(taken) == 2 * FILES and set(taken.values()) == {1}
    assert sum(requests.values_list("gross_cents", flat=True)) == approved
    numbers = list(requests.values_list("document_number", flat=True))
    assert len(set(numbers)) == len(numbers)


def token(username: str) -> str:
    return ApiToken.issue(User.objects.get(username=username))


def test_a_confirmation_posted_at_once_by_several_clients_disburses_once(demo: None) -> None:
    application = accepted_file()
    certified_claim(application, federal=300_000, provincial=120_000)
    second_finance()
    batch = payment_batches.build_batch(finance(), POOL)
    payment_batches.authorize_batch(User.objects.get(username=SECOND_FINANCE), batch)
    content = confirm_all(payment_export.export_batch(finance(), batch))
    before = {f: account(application, f).disbursed_cents for f in ("federal", "provincial")}
    bearer = token(FINANCE.username)
    path = f"/api/v1/payment-batches/{batch.pk}/confirmations"

    def post(index: int) -> tuple[int, bytes]:
        key = "same-key" if index < 3 else f"key-{index}"  # three with one key, three without
        answer = Client().post(
            path,
            data=content,
            content_type="text/csv",
            headers={"Authorization": f"Bearer {bearer}", "Idempotency-Key": key},
        )
        return answer.status_code, answer.content

    answers = at_once(6, post)
    assert all(isinstance(a, tuple) and a[0] == 200 for a in answers), answers
    assert len({a[1] for a in answers[:3]}) == 1  # one key: byte for byte the same answer
    assert ConfirmationImport.objects.count() == 1
    after = {f: account(application, f).disbursed_cents for f in ("federal", "provincial")}
    assert (after["federal"] - before["federal"], after["provincial"] - before["provincial"]) == (
        300_000,
        120_000,
    )
    assert LedgerTransaction.objects.filter(kind="disburse").count() == 2
    assert operations.verify() == []
