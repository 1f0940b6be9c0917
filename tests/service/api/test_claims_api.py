"""The claim operations: every answer checked against the published OpenAPI document (the Api
client of tests/conftest.py), refusals as problem+json, Idempotency-Key on every POST, receipts
as multipart in and as attachments of their own type out, and no claim or receipt of one
employer ever shown to another."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from tests import canonical
from tests.conftest import api_contract, token_for
from tests.personas import EMPLOYER, OFFICER, OUTSIDER_EMPLOYER, PARTNER_EMPLOYER
from tests.service.grants.claim_helpers import (
    attach,
    during_training,
    elf_bytes,
    jpeg_bytes,
    pdf_bytes,
    pe_bytes,
    png_bytes,
    sha,
)

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.models.claims import Claim, Receipt
from jobgrant.service.ledger import operations

pytestmark = pytest.mark.django_db


def upload(
    who: Any,
    claim_id: int,
    *files: tuple[str, bytes],
    key: str | None = None,
    invoice: str | list[str] | None = None,
) -> Any:
    """POST the files as multipart/form-data, each a `file` part (as a browser or curl sends),
    with an `invoice_number` part if given."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    headers = {"Authorization": f"Bearer {token_for(who)}"}
    if key:
        headers["Idempotency-Key"] = key
    parts = [
        SimpleUploadedFile(name, content, "application/octet-stream") for name, content in files
    ]
    path = f"/api/v1/claims/{claim_id}/receipts"
    body: dict[str, Any] = {"file": parts}
    if invoice is not None:
        body["invoice_number"] = invoice
    answer = Client().post(path, body, headers=headers)
    api_contract().check("POST", path, answer)
    return answer


def download(who: Any, href: str) -> tuple[Any, bytes]:
    """The answer and its bytes (a file's are streamed), checked against the document."""
    from django.http import HttpResponse

    answer = Client().get(href, headers={"Authorization": f"Bearer {token_for(who)}"})
    if not answer.streaming:
        api_contract().check("GET", href, answer)
        return answer, answer.content
    content = b"".join(answer.streaming_content)
    copy = HttpResponse(content, status=answer.status_code)
    for name, value in answer.headers.items():
        copy[name] = value
    api_contract().check("GET", href, copy)
    return answer, content


def ready() -> Any:
    """A file to claim on: the canonical claimable file (tests/canonical.py), approved,
    accepted, its two trainees confirmed (SIN, OTHER_SIN), assigned to OFFICER."""
    return canonical.put("claimable")


def test_a_claim_from_start_to_certification_through_the_api(as_user) -> None:
    application = ready()
    employer, officer = as_user(EMPLOYER), as_user(OFFICER)
    with during_training():
        made = employer.post(f"/applications/{application.pk}/claims", {}, key="claim-1")
        assert made.status_code == 201, made.content
        claim = made.json()
        assert claim["state"] == "draft" and claim["claimed"] == "18600.00"
        again = employer.post(f"/applications/{application.pk}/claims", {}, key="claim-1")
        assert again.content == made.content and Claim.objects.count() == 1
        sent = upload(
            EMPLOYER, claim["id"], ("invoice.pdf", pdf_bytes()), ("paid.png", png_bytes())
        )
        assert sent.status_code == 201, sent.content
        assert [r["content_type"] for r in sent.json()["receipts"]] == [
            "application/pdf",
            "image/png",
        ]
        submitted = employer.post(f"/claims/{claim['id']}/submit", key="submit-1")
        assert submitted.status_code == 200, submitted.content
        assert submitted.json()["shares"]["federal"] == {"claimed": "6200.00", "approved": None}
        materials = next(x for x in submitted.json()["lines"] if x["category"] == "materials")
        body = {"lines": [{"id": materials["id"], "amount": "300.00", "reason": "One book."}]}
        approved = officer.post(f"/claims/{claim['id']}/approve", body, key="approve-1")
    assert approved.status_code == 200, approved.content
    answer = approved.json()
    assert answer["state"] == "approved" and answer["certified_by"] == OFFICER.username
    # Trainee 2: a third of $9,300 = $3,100.00; with trainee 1's $3,000.00: $6,100.00.
    assert answer["shares"]["federal"] == {"claimed": "6200.00", "approved": "6100.00"}
    assert answer["shares"]["employer"]["approved"] == "6100.00"
    line = next(x for x in answer["lines"] if x["id"] == materials["id"])
    assert (line["approved"], line["reason"], line["agreed"]) == ("300.00", "One book.", "600.00")
    assert operations.application_balances(application)["federal"].payable == 610000


def test_a_line_above_the_agreement_shows_the_capped_figure_and_why(as_user) -> None:
    application = ready()
    employer = as_user(EMPLOYER)
    first = application.participants.get(position=0)
    body = {"lines": [{"participant": first.pk, "category": "tuition", "amount": "9500.00"}]}
    with during_training():
        claim = employer.post(f"/applications/{application.pk}/claims", body).json()
        upload(EMPLOYER, claim["id"], ("invoice.jpg", jpeg_bytes()))
        answer = employer.post(f"/claims/{claim['id']}/submit").json()
    [cap] = answer["caps"]
    assert (cap["rule"], cap["before"], cap["after"]) == ("line", "9500.00", "9000.00")
    assert "Trainee 1, tuition or trainer fees: $9,500.00 claimed" in cap["why_en"]
    assert "9\u00a0000,00\u00a0$" in cap["why_fr"] and "est déjà approuvé" in cap["why_fr"]
    assert answer["lines"][0]["counted"] == "9000.00"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("invoice.pdf", elf_bytes()),
        ("invoice.pdf", pe_bytes()),
        ("notes.pdf", b"just text, no PDF"),
    ],
)
def test_a_file_that_is_not_a_pdf_png_or_jpeg_is_refused_whatever_its_name(
    as_user, name: str, content: bytes
) -> None:
    application = ready()
    with during_training():
        claim = as_user(EMPLOYER).post(f"/applications/{application.pk}/claims", {}).json()
        answer = upload(EMPLOYER, claim["id"], (name, content))
    assert answer.status_code == 422 and answer["Content-Type"] == "application/problem+json"
    [found] = answer.json()["errors"]
    assert found["field"] == "file[0]" and "PDF, PNG or JPEG" in found["message_en"]
    assert found["message_fr"]
    assert not Receipt.objects.exists()


def test_the_size_and_count_limits_are_the_settings(as_user, settings) -> None:
    settings.JOBGRANT_RECEIPT_MAX_BYTES = 2048
    settings.JOBGRANT_RECEIPTS_MAX_FILES = 2
    application = ready()
    with during_training():
        claim = as_user(EMPLOYER).post(f"/applications/{application.pk}/claims", {}).json()
        big = pdf_bytes() + b"%" + b"x" * 3000
        too_big = upload(EMPLOYER, claim["id"], ("big.pdf", big))
        assert too_big.status_code == 422
        assert too_big.json()["errors"][0]["message_en"] == "(“big.pdf”) is larger than 2,048 bytes"
        assert (
            upload(
                EMPLOYER, claim["id"], ("a.pdf", pdf_bytes("a")), ("b.png", png_bytes())
            ).status_code
            == 201
        )
        third = upload(EMPLOYER, claim["id"], ("c.jpg", jpeg_bytes()))
    assert third.status_code == 409 and third.json()["code"] == "TOO_MANY_RECEIPTS"
    assert Receipt.objects.count() == 2


def test_a_receipt_comes_back_as_stored_an_attachment_with_its_own_type(as_user) -> None:
    application = ready()
    content = png_bytes()
    with during_training():
        claim = as_user(EMPLOYER).post(f"/applications/{application.pk}/claims", {}).json()
        [receipt] = upload(EMPLOYER, claim["id"], ("proof <of> payment.pdf", content)).json()[
            "receipts"
        ]
    assert receipt["sha256"] == sha(content) and receipt["size"] == len(content)
    assert receipt["content_type"] == "image/png"  # from the bytes, not the name
    stored = Receipt.objects.get(pk=receipt["id"])
    with stored.file.open("rb") as handle:
        assert handle.read() == content
    for who in (EMPLOYER, OFFICER):
        answer, body = download(who, receipt["href"])
        assert answer.status_code == 200
        assert body == content
        assert answer["Content-Type"] == "image/png"
        assert answer["Content-Disposition"].startswith("attachment;")
        assert answer["X-Content-Type-Options"] == "nosniff"


def test_another_employer_never_sees_a_claim_or_its_receipts_and_each_try_is_audited(
    as_user,
) -> None:
    application = ready()
    with during_training():
        claim = as_user(EMPLOYER).post(f"/applications/{application.pk}/claims", {}).json()
        [receipt] = upload(EMPLOYER, claim["id"], ("invoice.pdf", pdf_bytes())).json()["receipts"]
        outsider = as_user(OUTSIDER_EMPLOYER)
        assert outsider.get(f"/claims/{claim['id']}").status_code == 404
        assert download(OUTSIDER_EMPLOYER, receipt["href"])[0].status_code == 404
        assert outsider.post(f"/claims/{claim['id']}/submit").status_code == 404
        assert upload(OUTSIDER_EMPLOYER, claim["id"], ("x.pdf", pdf_bytes())).status_code == 404
        made = outsider.post(f"/applications/{application.pk}/claims", {})
        assert made.status_code == 404
        partner = as_user(PARTNER_EMPLOYER)  # an employer of another organization, too
        assert partner.get(f"/claims/{claim['id']}").status_code == 404
    refused = AuditEntry.objects.filter(
        actor=OUTSIDER_EMPLOYER.username, action__startswith="refused."
    )
    assert refused.count() >= 4
    assert {e.summary["status"] for e in refused} == {404}
    assert Receipt.objects.count() == 1


def test_only_the_assigned_officer_decides_and_a_second_decision_is_409(as_user) -> None:
    from tests.personas import SECOND_OFFICER

    application = ready()
    with during_training():
        claim = as_user(EMPLOYER).post(f"/applications/{application.pk}/claims", {}).json()
        upload(EMPLOYER, claim["id"], ("invoice.pdf", pdf_bytes()))
        as_user(EMPLOYER).post(f"/claims/{claim['id']}/submit")
        other = as_user(SECOND_OFFICER).post(f"/claims/{claim['id']}/deny", {"reason": "No."})
        assert other.status_code == 403 and other.json()["code"] == "CLAIM_NOT_ASSIGNED"
        denied = as_user(OFFICER).post(f"/claims/{claim['id']}/deny", {"reason": "Not given."})
        assert denied.status_code == 200 and denied.json()["state"] == "denied"
        late = as_user(OFFICER).post(f"/claims/{claim['id']}/approve", {})
    assert late.status_code == 409 and late.json()["code"] == "CLAIM_ILLEGAL_TRANSITION"
    assert AuditEntry.objects.filter(
        actor=SECOND_OFFICER.username, action="refused.deny_claim"
    ).exists()


def test_patch_replaces_the_lines_and_bad_input_names_each_field(as_user) -> None:
    application = ready()
    first = application.participants.get(position=0)
    client = Client()
    headers = {"Authorization": f"Bearer {token_for(EMPLOYER)}"}
    with during_training():
        claim = as_user(EMPLOYER).post(f"/applications/{application.pk}/claims", {}).json()
        path = f"/api/v1/claims/{claim['id']}"
        line = {"participant": first.pk, "category": "exam_fees", "amount": "120.5"}
        body = json.dumps({"lines": [line]})
        answer = client.patch(path, body, content_type="application/json", headers=headers)
        api_contract().check("PATCH", path, answer)
        assert answer.status_code == 200, answer.content
        assert [(x["category"], x["claimed"]) for x in answer.json()["lines"]] == [
            ("exam_fees", "120.50")
        ]
        bad = client.patch(
            path, '{"is_final": "yes"}', content_type="application/json", headers=headers
        )
        api_contract().check("PATCH", path, bad)
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "is_final"


def test_unreadable_bodies_are_refused_as_problems(as_user) -> None:
    application = ready()
    headers = {"Authorization": f"Bearer {token_for(EMPLOYER)}"}
    client = Client()
    with during_training():
        claim = as_user(EMPLOYER).post(f"/applications/{application.pk}/claims", {}).json()
        path = f"/api/v1/claims/{claim['id']}"
        broken = client.patch(path, "{", content_type="application/json", headers=headers)
        api_contract().check("PATCH", path, broken)
        assert broken.status_code == 400 and broken.json()["code"] == "MALFORMED_BODY"
        receipts = f"{path}/receipts"
        as_json = client.post(receipts, "{}", content_type="application/json", headers=headers)
        api_contract().check("POST", receipts, as_json)
        assert as_json.status_code == 422 and as_json.json()["errors"][0]["field"] == "(body)"
        empty = client.post(receipts, {}, headers=headers)
        api_contract().check("POST", receipts, empty)
    assert empty.status_code == 422 and empty.json()["errors"][0]["field"] == "file"
    assert not Receipt.objects.exists()


def test_a_submission_with_a_body_that_is_not_an_object_is_refused(as_user) -> None:
    """Found by Schemathesis: `[null, null]` to /submit was taken as no body and submitted."""
    application = ready()
    with during_training():
        employer = as_user(EMPLOYER)
        claim = employer.post(f"/applications/{application.pk}/claims", {}).json()
        attach(Claim.objects.get(pk=claim["id"]))
        refused = employer.post(f"/claims/{claim['id']}/submit", "[null, null]")
    assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "(body)"
    assert Claim.objects.get(pk=claim["id"]).state == "draft"


def test_an_upload_retried_with_its_key_stores_the_files_once(as_user) -> None:
    application = ready()
    with during_training():
        claim = as_user(EMPLOYER).post(f"/applications/{application.pk}/claims", {}).json()
        first = upload(EMPLOYER, claim["id"], ("invoice.pdf", pdf_bytes()), key="receipts-1")
        again = upload(EMPLOYER, claim["id"], ("invoice.pdf", pdf_bytes()), key="receipts-1")
        other = upload(EMPLOYER, claim["id"], ("other.pdf", pdf_bytes("other")), key="receipts-1")
    assert first.status_code == 201 and again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    assert other.status_code == 422 and other.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert Receipt.objects.count() == 1


def test_a_paid_claims_answer_names_its_payments(as_user) -> None:
    from tests.web.test_claim_pages import paid_claim

    _application, claim = paid_claim()
    answer = as_user(EMPLOYER).get(f"/claims/{claim.pk}")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["paid"] == "12400.00"
    assert [(p["funder"], p["net"], p["state"], p["paid_on"]) for p in body["payments"]] == [
        ("federal", "6200.00", "paid", "2027-01-23"),
        ("provincial", "6200.00", "paid", "2027-01-23"),
    ]
    assert all(p["document_number"] for p in body["payments"])


def test_a_draft_is_discarded_and_a_submitted_claim_is_not(as_user) -> None:
    application = ready()
    employer = as_user(EMPLOYER)
    with during_training():
        made = employer.post(f"/applications/{application.pk}/claims", {}, key="d-1").json()
        done = employer.post(f"/claims/{made['id']}/discard", {}, key="d-2")
        assert done.status_code == 200, done.content
        assert done.json() == {"id": made["id"], "number": made["number"], "discarded": True}
        assert not Claim.objects.exists()
        again = employer.post(f"/applications/{application.pk}/claims", {}, key="d-3").json()
        attach(Claim.objects.get(pk=again["id"]))
        employer.post(f"/claims/{again['id']}/submit", {}, key="d-4")
        refused = employer.post(f"/claims/{again['id']}/discard", {}, key="d-5")
    assert refused.status_code == 409 and refused.json()["code"] == "CLAIM_ILLEGAL_TRANSITION"
    assert Claim.objects.filter(pk=again["id"]).exists()


def test_each_refused_receipt_is_named_and_none_is_attached(as_user) -> None:
    application = ready()
    with during_training():
        claim = as_user(EMPLOYER).post(f"/applications/{application.pk}/claims", {}).json()
        answer = upload(
            EMPLOYER,
            claim["id"],
            ("invoice.pdf", pdf_bytes()),
            ("setup.pdf", elf_bytes()),
            ("tool.png", pe_bytes()),
        )
    assert answer.status_code == 422
    body = answer.json()
    assert "nothing was saved" in body["detail"] or "nothing was saved" in json.dumps(body)
    assert [(e["field"], e["message_en"].split(")")[0]) for e in body["errors"]] == [
        ("file[1]", "(“setup.pdf”"),
        ("file[2]", "(“tool.png”"),
    ]
    assert not Receipt.objects.exists()
