"""T3 for payments: every payment-batch, authorization and confirmation POST sent three times at
once with one Idempotency-Key has exactly one effect, on SQLite and on PostgreSQL.

Three client threads, each with its own database connection, are released together by a
barrier with the same request; then one of them acts as if its answer was lost and sends it a
fourth time. Every answer for a key must be byte for byte the first, exactly one of them not a
replay; the batch is built once (one batch, each certified claim in it once, one audit entry),
authorized once, and its confirmation file reconciled once (each payment disbursed once in the
ledger). The same key with another body (another fiscal year, another file) answers 422
IDEMPOTENCY_KEY_REUSED every time, three at once, and changes nothing.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from dataclasses import dataclass, field

import pytest
from django.db import connections
from django.test import Client
from tests.personas import FINANCE
from tests.service.grants.payment_helpers import (
    SECOND_FINANCE,
    accepted_file,
    certified_claim,
    confirm_all,
    second_finance,
)

from jobgrant.service.accounts.models import ApiToken, User
from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.models.payments import ConfirmationImport, PaymentBatch, PaymentRequest
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import LedgerTransaction

pytestmark = pytest.mark.django_db(transaction=True)
POOL = {"jurisdiction": "ON", "fiscal_year": "2026-27"}
ROUNDS = 3  # batches, each of CLAIMS certified claims
CLAIMS = 2
AT_ONCE = 3


@dataclass(frozen=True)
class Answer:
    status: int
    content: bytes
    content_type: str
    replayed: bool


@dataclass
class Volley:
    answers: list[Answer] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def send(token: str, path: str, key: str, body: bytes, content_type: str) -> Answer:
    response = Client(raise_request_exception=False).post(
        f"/api/v1{path}",
        data=body,
        content_type=content_type,
        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key},
    )
    return Answer(
        response.status_code,
        response.content,
        response["Content-Type"],
        response.get("Idempotent-Replayed") == "true",
    )


def at_once(
    token: str, path: str, key: str, bodies: list[bytes], content_type: str = "application/json"
) -> Volley:
    """Send each body at the same moment (one thread each, released by a barrier); then the
    first is sent once more, as by a client whose answer was lost."""
    volley, together = Volley(), threading.Barrier(len(bodies))

    def member(body: bytes, again: bool) -> None:
        try:
            together.wait(timeout=60)
            answers = [send(token, path, key, body, content_type)]
            if again:
                answers.append(send(token, path, key, body, content_type))
            with volley.lock:
                volley.answers += answers
        except Exception as error:  # a crash must fail the test, not vanish with the thread
            with volley.lock:
                volley.crashes.append(f"{type(error).__name__}: {error}")
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=member, args=(body, n == 0)) for n, body in enumerate(bodies)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return volley


def one_effect(volley: Volley, status: int) -> Answer:
    """All answers are the first's bytes, and exactly one of them did the work."""
    assert volley.crashes == []
    assert len(volley.answers) == AT_ONCE + 1
    first = [a for a in volley.answers if not a.replayed]
    assert len(first) == 1, [a.content[:200] for a in volley.answers]
    assert first[0].status == status, first[0].content
    assert {(a.status, a.content, a.content_type) for a in volley.answers} == {
        (first[0].status, first[0].content, first[0].content_type)
    }
    return first[0]


def token(username: str) -> str:
    return ApiToken.issue(User.objects.get(username=username))


def audited(action: str) -> int:
    return AuditEntry.objects.filter(action=action).count()


def certified_claims(count: int) -> list[int]:
    """`count` accepted files, each with one certified claim; their claims' ids."""
    return [
        certified_claim(accepted_file(), federal=200_000 + n, provincial=50_000 + n).pk
        for n in range(count)
    ]


def test_batches_authorizations_and_confirmations_sent_three_times_at_once_act_once(
    demo: None,
) -> None:
    second_finance()
    builder, authorizer = token(FINANCE.username), token(SECOND_FINANCE)
    for round_number in range(ROUNDS):
        claims = certified_claims(CLAIMS)
        built_before, batches_before = audited("payment_batch.build"), PaymentBatch.objects.count()
        body = json.dumps(POOL).encode()
        key = f"build-{round_number}"
        built = one_effect(at_once(builder, "/payment-batches", key, [body] * AT_ONCE), 201)
        batch = json.loads(built.content)
        assert PaymentBatch.objects.count() == batches_before + 1
        assert audited("payment_batch.build") == built_before + 1
        requests = PaymentRequest.objects.filter(batch_id=batch["id"])
        # Each certified claim in it once per funder (one payment request each), no more.
        assert Counter(requests.values_list("claim_id", "funder")) == Counter(
            (claim, funder) for claim in claims for funder in ("federal", "provincial")
        )

        path = f"/payment-batches/{batch['id']}/authorize"
        authorized_before = audited("payment_batch.authorize")
        one_effect(at_once(authorizer, path, f"authorize-{round_number}", [b"{}"] * AT_ONCE), 200)
        assert audited("payment_batch.authorize") == authorized_before + 1
        assert PaymentBatch.objects.get(pk=batch["id"]).authorized_by.username == SECOND_FINANCE

        export = Client().get(
            f"/api/v1/payment-batches/{batch['id']}/export.csv",
            headers={"Authorization": f"Bearer {builder}"},
        )
        assert export.status_code == 200, export.content
        content = confirm_all(export.content)
        disbursed_before = LedgerTransaction.objects.filter(kind="disburse").count()
        confirmed = one_effect(
            at_once(
                builder,
                f"/payment-batches/{batch['id']}/confirmations",
                f"confirm-{round_number}",
                [content] * AT_ONCE,
                "text/csv",
            ),
            200,
        )
        assert json.loads(confirmed.content)["reconciled"] == requests.count()
        assert ConfirmationImport.objects.filter(batch_id=batch["id"]).count() == 1
        disbursed = LedgerTransaction.objects.filter(kind="disburse").count() - disbursed_before
        assert disbursed == requests.count()  # each payment disbursed once, per funder
    assert operations.verify() == []
    assert verify().ok


def test_a_key_reused_with_another_body_is_refused_every_time_and_changes_nothing(
    demo: None,
) -> None:
    second_finance()
    builder, authorizer = token(FINANCE.username), token(SECOND_FINANCE)
    certified_claims(CLAIMS)
    built = Client().post(
        "/api/v1/payment-batches",
        data=json.dumps(POOL),
        content_type="application/json",
        headers={"Authorization": f"Bearer {builder}", "Idempotency-Key": "build-reused"},
    )
    assert built.status_code == 201, built.content
    batch = built.json()
    certified_claims(1)  # something a rebuilt batch would pick up, were the key not refused
    other_years = [
        json.dumps({**POOL, "fiscal_year": year}).encode()
        for year in ("2025-26", "2027-28", "2024-25")
    ]
    batches = PaymentBatch.objects.count()
    reused = at_once(builder, "/payment-batches", "build-reused", other_years)
    assert_all_refused(reused)
    assert PaymentBatch.objects.count() == batches

    authorized = Client().post(
        f"/api/v1/payment-batches/{batch['id']}/authorize",
        data="{}",
        content_type="application/json",
        headers={"Authorization": f"Bearer {authorizer}", "Idempotency-Key": "authorize-reused"},
    )
    assert authorized.status_code == 200, authorized.content
    export = Client().get(
        f"/api/v1/payment-batches/{batch['id']}/export.csv",
        headers={"Authorization": f"Bearer {builder}"},
    )
    content = confirm_all(export.content)
    path = f"/payment-batches/{batch['id']}/confirmations"
    confirmed = send(builder, path, "confirm-reused", content, "text/csv")
    assert confirmed.status == 200, confirmed.content
    imports, disbursed = ConfirmationImport.objects.count(), disbursements()
    changed_files = [
        content + f"CJG-ON-2026-99999{n},1.00,2026-11-30,X\r\n".encode() for n in "123"
    ]
    reused = at_once(builder, path, "confirm-reused", changed_files, "text/csv")
    assert_all_refused(reused)
    assert (ConfirmationImport.objects.count(), disbursements()) == (imports, disbursed)
    assert operations.verify() == []


def disbursements() -> int:
    return LedgerTransaction.objects.filter(kind="disburse").count()


def assert_all_refused(volley: Volley) -> None:
    assert volley.crashes == []
    assert len(volley.answers) == AT_ONCE + 1
    assert {(a.status, json.loads(a.content)["code"]) for a in volley.answers} == {
        (422, "IDEMPOTENCY_KEY_REUSED")
    }
