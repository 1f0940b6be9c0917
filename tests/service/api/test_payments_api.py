"""The payment and recovery operations, end to end through /api/v1 (every answer checked against
the published OpenAPI document): build, authorize, export, confirm; receivables raised, repaid,
written off by two people; refusals as problem+json, recorded in the audit trail."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import Api
from tests.personas import EMPLOYER, FINANCE, OFFICER, OUTSIDER_EMPLOYER
from tests.service.grants.payment_helpers import (
    SECOND_FINANCE,
    accepted_file,
    certified_claim,
    confirm_all,
    confirmation_file,
    second_finance,
)

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.ledger import operations

pytestmark = pytest.mark.django_db
POOL = {"jurisdiction": "ON", "fiscal_year": "2026-27"}


def confirm(api: Api, batch: int, content: bytes, key: str | None = None) -> Any:
    headers = {**api.headers, **({"Idempotency-Key": key} if key else {})}
    answer = api.client.post(
        f"/api/v1/payment-batches/{batch}/confirmations",
        data=content,
        content_type="text/csv",
        headers=headers,
    )
    from tests.conftest import api_contract

    api_contract().check("POST", f"/api/v1/payment-batches/{batch}/confirmations", answer)
    return answer


def test_a_claim_goes_from_batch_to_paid_through_the_api(as_user: Any) -> None:
    application = accepted_file()
    certified_claim(application, federal=412_345, provincial=100_000)
    second_finance()
    builder, authorizer = as_user(FINANCE), as_user(SECOND_FINANCE)
    built = builder.post("/payment-batches", POOL, key="build-1")
    assert built.status_code == 201, built.content
    batch = built.json()
    assert batch["total"] == "5123.45" and len(batch["payments"]) == 2
    assert builder.post("/payment-batches", POOL, key="build-1").content == built.content
    refused = builder.post(f"/payment-batches/{batch['id']}/authorize", key="a-1")
    assert refused.status_code == 403 and refused.json()["code"] == "BUILDER_AUTHORIZES"
    assert refused["Content-Type"] == "application/problem+json"
    authorized = authorizer.post(f"/payment-batches/{batch['id']}/authorize", key="a-2")
    assert authorized.status_code == 200 and authorized.json()["authorized_by"] == SECOND_FINANCE
    export = builder.get(f"/payment-batches/{batch['id']}/export.csv")
    assert export.status_code == 200 and export["Content-Type"].startswith("text/csv")
    assert export.content.startswith(b"document_number,business_number,payee,amount,")
    content = confirm_all(export.content) + b"CJG-ON-2026-9999999,1.00,2026-11-30,X\r\n"
    answer = confirm(as_user(FINANCE), batch["id"], content, key="c-1")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert (body["reconciled"], body["reconciled_amount"], body["replayed"]) == (
        2,
        "5123.45",
        False,
    )
    assert body["unmatched"] == [
        {
            "line": 4,
            "document_number": "CJG-ON-2026-9999999",
            "amount": "1.00",
            "outcome": "unknown_document",
            "expected_amount": None,  # given only for a line of the wrong amount
        }
    ]
    again = confirm(as_user(FINANCE), batch["id"], content, key="c-2")
    assert again.json()["replayed"] is True and again.json()["reconciled"] == 2
    read = builder.get(f"/payment-batches/{batch['id']}").json()
    assert read["state"] == "reconciled"
    assert {p["state"] for p in read["payments"]} == {"paid"}
    assert operations.application_balances(application)["federal"].disbursed == 412_345
    assert builder.get("/payment-batches", jurisdiction="ON").json()[0]["id"] == batch["id"]


def test_nothing_to_pay_and_bad_bodies_are_refused(as_user: Any) -> None:
    builder = as_user(FINANCE)
    nothing = builder.post("/payment-batches", {"jurisdiction": "YT", "fiscal_year": "2026-27"})
    assert nothing.status_code == 409 and nothing.json()["code"] == "NOTHING_TO_PAY"
    bad = builder.post("/payment-batches", {"jurisdiction": 5})
    assert bad.status_code == 422
    assert {e["field"] for e in bad.json()["errors"]} == {"jurisdiction", "fiscal_year"}
    employer = as_user(EMPLOYER).post("/payment-batches", POOL)
    assert employer.status_code == 403
    assert AuditEntry.objects.filter(action="refused.build_batch").exists()
    missing = builder.get("/payment-batches/999999")
    assert missing.status_code == 404


def test_the_confirmation_file_must_be_csv(as_user: Any) -> None:
    application = accepted_file()
    certified_claim(application, federal=10_000)
    batch = as_user(FINANCE).post("/payment-batches", POOL).json()
    api = as_user(FINANCE)
    answer = api.client.post(
        f"/api/v1/payment-batches/{batch['id']}/confirmations",
        data=confirmation_file([]),
        content_type="application/json",
        headers=api.headers,
    )
    assert answer.status_code == 400
    empty = confirm(api, batch["id"], b"")
    assert empty.status_code == 422, empty.content
    assert empty.json()["errors"][0]["field"] == "file"


def test_receivables_raised_repaid_and_written_off_through_the_api(as_user: Any) -> None:
    application = accepted_file()
    certified_claim(application, federal=300_000)
    second_finance()
    finance = as_user(FINANCE)
    batch = finance.post("/payment-batches", POOL).json()
    as_user(SECOND_FINANCE).post(f"/payment-batches/{batch['id']}/authorize")
    export = finance.get(f"/payment-batches/{batch['id']}/export.csv")
    confirm(finance, batch["id"], confirm_all(export.content))
    body = {
        "application": application.pk,
        "funder": "federal",
        "cause": "not_completed",
        "amount": "1000.00",
        "reason": "Trainee 1 left in week 2.",
    }
    raised = as_user(OFFICER).post("/receivables", body, key="r-1")
    assert raised.status_code == 201, raised.content
    receivable = raised.json()
    assert receivable["due_on"] == "2026-12-13" and receivable["outstanding"] == "1000.00"
    seen = as_user(EMPLOYER).get("/receivables").json()
    assert [r["id"] for r in seen] == [receivable["id"]]
    assert as_user(OUTSIDER_EMPLOYER).get("/receivables").json() == []
    path = f"/receivables/{receivable['id']}"
    repaid = finance.post(f"{path}/repayments", {"amount": "400.00", "reference": "CHQ-7"})
    assert repaid.json()["state"] == "partially_recovered"
    too_much = finance.post(f"{path}/repayments", {"amount": "600.01"})
    assert too_much.status_code == 409 and too_much.json()["code"] == "TOO_MUCH"
    asked = finance.post(f"{path}/write-off", {"reason": "Out of business."})
    assert asked.json()["write_off_requested_by"] == FINANCE.username
    same = finance.post(f"{path}/write-off", {})
    assert same.status_code == 403 and same.json()["code"] == "SECOND_APPROVER_NEEDED"
    done = as_user(SECOND_FINANCE).post(f"{path}/write-off", {})
    assert done.json()["state"] == "written_off" and done.json()["written_off"] == "600.00"
    assert (
        as_user(OUTSIDER_EMPLOYER).post(f"{path}/repayments", {"amount": "1.00"}).status_code == 404
    )
    assert operations.verify() == []
