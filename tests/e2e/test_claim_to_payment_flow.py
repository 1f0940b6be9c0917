"""The money's way out in one run, in Chromium, with the demonstration accounts: the employer
claims on a file ready to claim (the demonstration's: approved, accepted, trainees confirmed)
with a receipt, the assigned officer certifies it (s.34), one person in finance builds the
payment batch and another authorizes it (s.33), the first exports it and imports the paying
system's confirmation file; the budget's page then shows the disbursed figure exact to the
cent. Each page on the way is checked with axe; every step asks for a confirmation first."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from tests.e2e.test_accessibility import NARROW, reflow_problems
from tests.service.grants.claim_helpers import pdf_bytes

from jobgrant.service.demo import seed_ready_to_claim
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.claims import Claim, ClaimShare, ClaimState
from jobgrant.service.grants.models.payments import PaymentBatch
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount


def dollars(cents: int) -> str:
    """The pages' English money: $1,234.56."""
    return f"${cents // 100:,}.{cents % 100:02d}"


def federal_account(application: Application) -> BudgetAccount:
    return BudgetAccount.objects.get(
        funder="federal",
        jurisdiction=application.jurisdiction,
        fiscal_year=application.fiscal_year,
        stream=application.stream.code,
    )


def confirmation_of(export: bytes) -> bytes:
    """The paying system's answer to the export: every line paid as asked."""
    rows = list(csv.DictReader(io.StringIO(export.decode("utf-8"))))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(["document_number", "amount", "paid_on", "payment_reference"])
    for number, row in enumerate(rows, start=1):
        writer.writerow([row["document_number"], row["amount"], "2026-12-01", f"EFT-{number:05d}"])
    return buffer.getvalue().encode()


def narrow(web: Any, where: str) -> None:
    """The page at 390 px wide: no sideways scrolling and axe finds nothing (WCAG 1.4.10); then
    back to the width the flow runs at."""
    before = web.page.viewport_size
    web.page.set_viewport_size(NARROW)
    web.settle()
    try:
        assert reflow_problems(web) == [], where
        web.assert_accessible(f"{where}, at 390 px")
    finally:
        web.page.set_viewport_size(before)


def claim_with_a_receipt(web: Any, application: Application, tmp: Path) -> Claim:
    page = web.page
    web.sign_in("demo-employer", "en")
    web.goto(f"/en/employer/applications/{application.pk}/claims/")
    web.assert_accessible("the employer's claims, none yet")
    with page.expect_navigation():
        page.click("#start-claim")
    web.settle()
    claim = Claim.objects.get(application=application)
    web.assert_accessible("a draft claim")
    narrow(web, "a draft claim")
    with page.expect_navigation():
        page.click("#discard-claim")
    web.settle()
    web.assert_accessible("the discarding of a draft claim, to confirm")
    narrow(web, "the discarding of a draft claim, to confirm")
    with page.expect_navigation():
        page.click("#cancel-discard")  # kept: it is the one claimed below
    web.settle()
    # An amount typed, a receipt chosen, and straight to "submit": the one form keeps both.
    first = page.locator("#claim-lines input[type=text]").first
    first.fill("123.45")
    receipt = tmp / "invoice.pdf"
    receipt.write_bytes(pdf_bytes("Invoice 2211: tuition and materials, paid in full"))
    page.set_input_files("#file", str(receipt))
    with page.expect_navigation():
        page.click("#submit-claim")
    web.settle()
    web.assert_accessible("the claim's submission, to confirm")
    assert "$123.45" in page.locator("#claim-lines").inner_text()
    assert page.locator("#receipts li").count() == 1
    with page.expect_navigation():
        page.click("#confirm-submit")
    web.settle()
    claim.refresh_from_db()
    assert claim.state == ClaimState.SUBMITTED
    assert 12345 in claim.lines.values_list("claimed_cents", flat=True)
    web.sign_out()
    return claim


def certify(web: Any, claim: Claim) -> None:
    page = web.page
    web.sign_in("demo-officer-on-1", "en")  # the officer the file is assigned to
    web.goto(f"/en/officer/claims/{claim.pk}/")
    web.assert_accessible("the claim to assess")
    with page.expect_navigation():
        page.click("#approve-button")
    web.settle()
    web.assert_accessible("the approval, to confirm")
    with page.expect_navigation():
        page.click("#confirm-decision")
    web.settle()
    claim.refresh_from_db()
    assert claim.state == ClaimState.APPROVED
    assert claim.certified_by is not None and claim.certified_by.username == "demo-officer-on-1"
    web.sign_out()


def build_batch(web: Any, application: Application) -> PaymentBatch:
    page = web.page
    web.sign_in("demo-finance", "en")
    web.goto("/en/finance/payments/")
    web.assert_accessible("the payments page")
    page.select_option("#id_jurisdiction", application.jurisdiction)
    page.fill("#id_fiscal_year", application.fiscal_year)
    with page.expect_navigation():
        page.click("#build-button")
    web.settle()
    batch = PaymentBatch.objects.get()
    assert page.locator("#another-authorizes").is_visible()  # the builder may not authorize
    web.assert_accessible("the batch just built")
    web.sign_out()
    return batch


def authorize(web: Any, batch: PaymentBatch) -> None:
    page = web.page
    web.sign_in("demo-finance-2", "en")
    web.goto(f"/en/finance/payments/{batch.pk}/")
    with page.expect_navigation():
        page.click("#authorize-link")
    web.settle()
    web.assert_accessible("the authorization, to confirm")
    with page.expect_navigation():
        page.click("#authorize-button")
    web.settle()
    batch.refresh_from_db()
    assert batch.state == "authorized" and batch.authorized_by.username == "demo-finance-2"
    web.sign_out()


def export_and_confirm(web: Any, batch: PaymentBatch, tmp: Path) -> None:
    page = web.page
    web.sign_in("demo-finance", "en")
    web.goto(f"/en/finance/payments/{batch.pk}/")
    with page.expect_download() as download:
        page.click("#export-link")
    export = Path(download.value.path()).read_bytes()
    assert export.startswith(b"document_number,")
    web.goto(f"/en/finance/payments/{batch.pk}/")
    confirmation = tmp / "confirmation.csv"
    confirmation.write_bytes(confirmation_of(export))
    page.set_input_files("#id_file", str(confirmation))
    with page.expect_navigation():
        page.click("#confirm-button")
    web.settle()
    assert page.locator("#unmatched-none").is_visible()
    web.assert_accessible("what the confirmation file matched")
    batch.refresh_from_db()
    assert batch.state == "reconciled"


def test_claim_certify_batch_authorize_confirm_and_the_budget_shows_it_disbursed(
    web: Any, site: str, tmp_path: Path
) -> None:
    [application_id, *_] = seed_ready_to_claim()
    application = Application.objects.get(pk=application_id)
    account = federal_account(application)
    disbursed_before = account.disbursed_cents

    claim = claim_with_a_receipt(web, application, tmp_path)
    certify(web, claim)
    batch = build_batch(web, application)
    authorize(web, batch)
    export_and_confirm(web, batch, tmp_path)

    federal = ClaimShare.objects.get(claim=claim, funder="federal").approved_cents
    assert federal and federal > 0
    expected = disbursed_before + federal
    web.goto(f"/en/finance/budgets/{account.pk}/")
    web.assert_accessible("the federal budget after the payment")
    assert web.page.locator("#budget-disbursed").inner_text().strip() == dollars(expected)
    balances = operations.application_balances(application)["federal"]
    assert balances.disbursed == federal == balances.payable
    assert operations.verify() == []
    web.sign_out()
    the_employer_sees_it_paid(web, application, claim)


def the_employer_sees_it_paid(web: Any, application: Application, claim: Claim) -> None:
    """The claim and the application say it was paid: each payment's document number, amount
    and day, in both languages."""
    web.sign_in("demo-employer", "en")
    documents = list(claim.payments.values_list("document_number", flat=True))
    assert documents
    web.goto(f"/en/employer/claims/{claim.pk}/")
    web.assert_accessible("a paid claim")
    next_step = web.page.locator("#claim-next").inner_text()
    assert "The approved money is paid" in next_step
    payments = web.page.locator("#payments").inner_text()
    assert all(document in payments for document in documents)
    assert "December 1, 2026" in payments
    narrow(web, "a paid claim")
    web.goto(f"/fr/employeur/demandes/{application.pk}/")
    web.assert_accessible("the application of a paid claim, in French")
    narrow(web, "the application of a paid claim, in French")
    payments = web.page.locator("#payments").inner_text()
    assert all(document in payments for document in documents)
    assert "1 décembre 2026" in payments or "1er décembre 2026" in payments
