"""The invoice number on the claim's page: typed with the files and shown with each receipt, in
English and French, with its help; a bad one (or one without a file) saves nothing, neither the
amounts nor the files, and says why in the page's language."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from tests.personas import EMPLOYER
from tests.service.grants.claim_helpers import during_training, pdf_bytes
from tests.web.test_claim_pages import ready, signed_in, started, text, typed

from jobgrant.service.grants.models.claims import Receipt

pytestmark = pytest.mark.django_db


def invoice_pdf() -> SimpleUploadedFile:
    return SimpleUploadedFile("invoice.pdf", pdf_bytes("Invoice 42"), "application/pdf")


def test_the_number_typed_is_kept_with_the_files_and_shown_in_both_languages(demo) -> None:
    application = ready()
    with during_training():
        client = signed_in(EMPLOYER)
        claim = started(client, application)
        page = text(client.get(f"/en/employer/claims/{claim.pk}/"))
        assert "Invoice or receipt number (optional)" in page
        assert 'aria-describedby="invoice_number-hint"' in page
        fields: dict[str, Any] = typed(client, claim)
        fields.update({"file": [invoice_pdf()], "invoice_number": " INV-0042 ", "then": "stay"})
        answer = client.post(f"/en/employer/claims/{claim.pk}/", fields)
        assert answer.status_code == 302, text(answer)
        french = text(client.get(f"/fr/employeur/demandes-de-remboursement/{claim.pk}/"))
    [receipt] = Receipt.objects.filter(claim=claim)
    assert (receipt.invoice_number, receipt.invoice_key) == ("INV-0042", "inv42")
    assert "numéro de facture INV-0042" in french
    assert "Numéro de facture ou de reçu (facultatif)" in french


def test_a_bad_number_saves_nothing_and_says_why(demo) -> None:
    application = ready()
    with during_training():
        client = signed_in(EMPLOYER)
        claim = started(client, application)
        fields: dict[str, Any] = typed(client, claim)
        first = sorted(fields)[0]
        fields.update({first: "100.00", "file": [invoice_pdf()], "invoice_number": "x" * 61})
        answer = client.post(f"/en/employer/claims/{claim.pk}/", fields)
        page = text(answer)
        assert answer.status_code == 422 and "gcds-error-summary" in page
        assert "The invoice number must be at most 60 characters." in page
        assert 'href="#invoice_number"' in page
        alone = {"invoice_number": "INV-42"}
        french = client.post(f"/fr/employeur/demandes-de-remboursement/{claim.pk}/", alone)
    assert french.status_code == 422
    assert "Choisissez le fichier de la facture ou du reçu qui porte ce numéro" in text(french)
    assert Receipt.objects.filter(claim=claim).count() == 0
    assert not any(line.claimed_cents == 10000 for line in claim.lines.all())
