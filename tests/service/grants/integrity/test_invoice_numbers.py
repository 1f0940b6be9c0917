"""A receipt's invoice number: checked (optional, at most 60 printable characters), compared by
its key (case, spaces, dashes and leading zeros aside), and the flag "Receipt used in another
file" raised when the number and the provider are those of a receipt of another file."""

from __future__ import annotations

import pytest
from tests.personas import EMPLOYER
from tests.service.grants.claim_helpers import (
    approved_file,
    attach,
    confirm,
    during_training,
    pdf_bytes,
    refusal,
    trainee,
)

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.claims import actions as claim_actions
from jobgrant.service.grants.claims.receipts import invoice_key, invoice_number
from jobgrant.service.grants.integrity.sentences import sentence
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.claims import Claim, Receipt
from jobgrant.service.grants.models.integrity import FlagKind, RiskFlag

pytestmark = pytest.mark.django_db


def test_the_key_ignores_case_spaces_dashes_and_leading_zeros() -> None:
    assert invoice_key("INV-000123") == invoice_key("inv 123") == "inv123"
    assert invoice_key("F-2027-0042") == invoice_key("f 2027-42") == invoice_key("F202742")
    assert invoice_key("Inv – 004 5") == "inv45"
    assert invoice_key("0") == "0"
    assert invoice_key("12000") == "12000"  # zeros after a digit count
    assert invoice_key("A-10") != invoice_key("A-1")


def test_the_number_is_optional_trimmed_and_bounded() -> None:
    assert invoice_number(None) == ("", "")
    assert invoice_number("   ") == ("", "")
    assert invoice_number(" F-2027-0042 ") == ("F-2027-0042", "f202742")
    assert invoice_number("N° 7" + "x" * 56)[0] == "N° 7" + "x" * 56
    for bad in ["x" * 61, "INV\t7", "INV\n7", "---", 7]:
        error = refusal(lambda bad=bad: invoice_number(bad))
        assert error.status == 422
        [found] = error.problems
        assert found["field"] == "invoice_number"
        assert "invoice number" in found["message_en"]
        assert "numéro de facture" in found["message_fr"]


def started(application: Application) -> Claim:
    with during_training():
        return claim_actions.start_claim(EMPLOYER.get(), application, {})


def claimed(application: Application, content: bytes, invoice: str | None) -> Claim:
    claim = started(application)
    with during_training():
        attach(claim, content, invoice=invoice)
        claim_actions.submit_claim(EMPLOYER.get(), claim)
    return claim


def two_files(second_provider: str | None = None) -> tuple[Application, Application]:
    first = approved_file([trainee()])
    second = approved_file([trainee()], provider=second_provider)
    confirm(first, 0)
    confirm(second, 0, sin="193 456 787")
    return first, second


def invoice_flags(application: Application) -> list[RiskFlag]:
    found = RiskFlag.objects.filter(application=application, kind=FlagKind.RECEIPT_REUSED)
    return [flag for flag in found.order_by("id") if ":invoice:" in flag.subject]


def test_an_invoice_number_in_two_files_is_flagged_on_the_second_whatever_its_format() -> None:
    first, second = two_files()
    claimed(first, pdf_bytes("Invoice 42, scanned"), "INV-000042")
    assert invoice_flags(first) == []
    claim = claimed(second, pdf_bytes("Invoice 42, photographed"), "inv 42")
    [flag] = invoice_flags(second)
    assert flag.claim_id == claim.pk
    assert flag.figures["files"] == [first.pk]
    assert flag.figures["invoice"] == "inv 42"
    assert flag.figures["provider"] == "Mohawk College"
    said = sentence(flag)
    assert "inv 42" in said and str(first.pk) in said and "Mohawk College" in said
    # Not the same bytes: only the invoice number raised it.
    assert RiskFlag.objects.filter(kind=FlagKind.RECEIPT_REUSED).count() == 1


def test_the_same_number_from_another_provider_is_not_flagged() -> None:
    first, second = two_files(second_provider="Conestoga College")
    claimed(first, pdf_bytes("Invoice 42, Mohawk"), "INV-42")
    claimed(second, pdf_bytes("Invoice 42, Conestoga"), "INV-42")
    assert RiskFlag.objects.filter(kind=FlagKind.RECEIPT_REUSED).count() == 0


def test_a_different_number_or_none_raises_nothing() -> None:
    first, second = two_files()
    claimed(first, pdf_bytes("Invoice 42"), "INV-42")
    claimed(second, pdf_bytes("Invoice 420"), "INV-420")
    third = approved_file([trainee()])
    confirm(third, 0, sin="130 692 544")
    claimed(third, pdf_bytes("Invoice without number"), None)
    assert RiskFlag.objects.filter(kind=FlagKind.RECEIPT_REUSED).count() == 0


def test_a_bad_number_attaches_nothing_and_says_why_in_both_languages() -> None:
    application = approved_file([trainee()])
    confirm(application, 0)
    claim = started(application)
    error = refusal(lambda: attach(claim, pdf_bytes("Invoice 1"), invoice="x" * 61))
    assert error.status == 422
    assert [p["field"] for p in error.problems] == ["invoice_number"]
    assert Receipt.objects.filter(claim=claim).count() == 0
    assert not AuditEntry.objects.filter(action="receipt.upload").exists()  # only the refusal


def test_the_number_is_kept_and_audited() -> None:
    application = approved_file([trainee()])
    confirm(application, 0)
    claim = started(application)
    attach(claim, pdf_bytes("Invoice 9"), invoice=" F-0009 ")
    [receipt] = Receipt.objects.filter(claim=claim)
    assert (receipt.invoice_number, receipt.invoice_key) == ("F-0009", "f9")
    entry = AuditEntry.objects.filter(action="receipt.upload").latest("sequence")
    assert entry.summary["invoice_number"] == "F-0009"
