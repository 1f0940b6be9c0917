"""A receipt's invoice number through the API: given with the files (multipart
`invoice_number`), shown back, refused (422, naming the field in both languages, nothing
attached) when it is not one; and the document says what is accepted."""

from __future__ import annotations

import pytest
from django.test import Client
from tests.personas import EMPLOYER
from tests.service.api.test_claims_api import ready, upload
from tests.service.grants.claim_helpers import during_training, pdf_bytes

from jobgrant.service.grants.claims.receipts import INVOICE_NUMBER_PATTERN
from jobgrant.service.grants.models.claims import Receipt

pytestmark = pytest.mark.django_db


def started(as_user) -> int:
    application = ready()
    with during_training():
        return as_user(EMPLOYER).post(f"/applications/{application.pk}/claims", {}).json()["id"]


def test_the_invoice_number_is_kept_for_each_file_of_the_upload(as_user) -> None:
    claim = started(as_user)
    with during_training():
        answer = upload(
            EMPLOYER,
            claim,
            ("invoice.pdf", pdf_bytes("Invoice 42")),
            ("paid.pdf", pdf_bytes("Paid 42")),
            invoice=" INV-0042 ",
        )
        plain = upload(EMPLOYER, claim, ("other.pdf", pdf_bytes("Other")))
    assert answer.status_code == 201
    assert [r["invoice_number"] for r in answer.json()["receipts"]] == ["INV-0042", "INV-0042"]
    assert plain.json()["receipts"][-1]["invoice_number"] is None
    assert set(Receipt.objects.values_list("invoice_key", flat=True)) == {"inv42", ""}


@pytest.mark.parametrize("bad", ["x" * 61, "INV\n42", "INV\x0042", "- -", ["A1", "A2"]])
def test_a_bad_invoice_number_is_422_in_both_languages_and_attaches_nothing(as_user, bad) -> None:
    claim = started(as_user)
    with during_training():
        answer = upload(EMPLOYER, claim, ("invoice.pdf", pdf_bytes("Invoice 42")), invoice=bad)
    assert answer.status_code == 422
    [found] = answer.json()["errors"]
    assert found["field"] == "invoice_number"
    assert found["message_en"] and found["message_fr"]
    assert Receipt.objects.count() == 0


def test_the_document_says_what_an_invoice_number_may_be(demo) -> None:
    document = Client().get("/api/v1/openapi.json").json()
    operation = document["paths"]["/api/v1/claims/{claim_id}/receipts"]["post"]
    schema = operation["requestBody"]["content"]["multipart/form-data"]["schema"]
    number = schema["properties"]["invoice_number"]
    assert number["type"] == "string" and number["maxLength"] == 60
    assert number["pattern"] == INVOICE_NUMBER_PATTERN
    assert schema["required"] == ["file"]  # the number stays optional


def test_a_retry_with_its_key_and_another_number_is_refused(as_user) -> None:
    claim = started(as_user)
    content = ("invoice.pdf", pdf_bytes("Invoice 42"))
    with during_training():
        first = upload(EMPLOYER, claim, content, key="receipts-n", invoice="INV-42")
        again = upload(EMPLOYER, claim, content, key="receipts-n", invoice="INV-42")
        other = upload(EMPLOYER, claim, content, key="receipts-n", invoice="INV-43")
    assert first.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert other.status_code == 422 and other.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert list(Receipt.objects.values_list("invoice_number", flat=True)) == ["INV-42"]
