"""The finance officer's payment and recovery pages, walked as two finance officers would: build a
batch, authorize it (the builder is refused, on the page), export it, import the paying system's
file, read what matched; a receivable repaid in part and written off by two people; the budgets
and their drill-down to the applications, claims and payments — in English and French."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from tests.addresses import page_path
from tests.personas import FINANCE, OFFICER
from tests.service.grants.payment_helpers import (
    accepted_file,
    account,
    certified_claim,
    confirm_all,
    second_finance,
)

from jobgrant.service.grants.models.payments import PaymentBatch, ReceivableState
from jobgrant.service.grants.payments import recovery as recovery_actions

pytestmark = pytest.mark.django_db


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def text(response: Any) -> str:
    return html.unescape(response.content.decode()).replace("\u00a0", " ").replace("\u202f", " ")


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_batch_from_build_to_reconciled_through_the_pages(demo: None, language: str) -> None:
    application = accepted_file()
    certified_claim(application, federal=123_456, provincial=10_000)
    builder, authorizer = signed_in(FINANCE.get()), signed_in(second_finance())
    base = page_path(language, "/finance/payments/")
    assert builder.get(base).status_code == 200
    bad = builder.post(base, {"jurisdiction": "", "fiscal_year": "26-27"})
    assert bad.status_code == 422 and "gcds-error-summary" in bad.content.decode()
    built = builder.post(base, {"jurisdiction": "ON", "fiscal_year": "2026-27"})
    assert built.status_code == 302
    batch = PaymentBatch.objects.get()
    page = builder.get(built["Location"])
    assert page.status_code == 200 and "CJG-ON-2026-0000001" in text(page)
    refused = builder.post(page_path(language, f"/finance/payments/{batch.pk}/authorize/"))
    assert refused.status_code == 403 and 'id="refusal"' in refused.content.decode()
    confirm_page = authorizer.get(page_path(language, f"/finance/payments/{batch.pk}/authorize/"))
    assert confirm_page.status_code == 200 and "authorize-button" in confirm_page.content.decode()
    assert (
        authorizer.post(page_path(language, f"/finance/payments/{batch.pk}/authorize/")).status_code
        == 302
    )
    export = builder.get(page_path(language, f"/finance/payments/{batch.pk}/export.csv"))
    assert export.status_code == 200 and export["Content-Type"].startswith("text/csv")
    upload = SimpleUploadedFile("confirm.csv", confirm_all(export.content), "text/csv")
    confirmed = builder.post(
        page_path(language, f"/finance/payments/{batch.pk}/confirmations/"), {"file": upload}
    )
    assert confirmed.status_code == 302
    result = builder.get(confirmed["Location"])
    assert result.status_code == 200 and 'id="unmatched-none"' in result.content.decode()
    batch.refresh_from_db()
    assert batch.state == "reconciled"
    budgets = text(builder.get(page_path(language, "/finance/budgets/")))
    federal = account(application, "federal")
    assert f"open-budget-{federal.pk}" in budgets
    drill = builder.get(page_path(language, f"/finance/budgets/{federal.pk}/"))
    assert drill.status_code == 200 and f'id="file-{application.pk}"' in drill.content.decode()
    file_page = builder.get(
        page_path(language, f"/finance/budgets/{federal.pk}/applications/{application.pk}/")
    )
    shown = text(file_page)
    amount = "$1,234.56" if language == "en" else "1 234,56 $"
    assert re.search(r'id="file-disbursed">' + re.escape(amount), shown), shown[:2000]


def test_a_bad_confirmation_file_is_shown_on_the_batch_page(demo: None) -> None:
    application = accepted_file()
    certified_claim(application, federal=10_000)
    builder = signed_in(FINANCE.get())
    builder.post("/en/finance/payments/", {"jurisdiction": "ON", "fiscal_year": "2026-27"})
    batch = PaymentBatch.objects.get()
    upload = SimpleUploadedFile("x.csv", b"nothing,here\r\n", "text/csv")
    answer = builder.post(f"/en/finance/payments/{batch.pk}/confirmations/", {"file": upload})
    assert answer.status_code == 422 and "document_number" in text(answer)


def test_a_receivable_repaid_in_part_then_written_off_by_two_people(demo: None) -> None:
    application = accepted_file()
    certified_claim(application, federal=300_000)
    builder, other = signed_in(FINANCE.get()), signed_in(second_finance())
    builder.post("/en/finance/payments/", {"jurisdiction": "ON", "fiscal_year": "2026-27"})
    batch = PaymentBatch.objects.get()
    other.post(f"/en/finance/payments/{batch.pk}/authorize/")
    export = builder.get(f"/en/finance/payments/{batch.pk}/export.csv")
    upload = SimpleUploadedFile("c.csv", confirm_all(export.content), "text/csv")
    builder.post(f"/en/finance/payments/{batch.pk}/confirmations/", {"file": upload})
    receivable = recovery_actions.raise_by_hand(
        OFFICER.get(),
        {
            "application": application.pk,
            "funder": "federal",
            "cause": "ineligible_cost",
            "amount": "500.00",
            "reason": "The exam fee was paid twice.",
        },
    )
    base = f"/fr/finances/sommes-a-recouvrer/{receivable.pk}/"
    assert builder.get("/fr/finances/sommes-a-recouvrer/").status_code == 200
    assert builder.get(base).status_code == 200
    too_much = builder.post(
        f"{base}remboursements/", {"amount": "600.00", "received_on": "2026-11-29"}
    )
    assert too_much.status_code == 422 and "gcds-error-summary" in too_much.content.decode()
    repaid = builder.post(
        f"{base}remboursements/",
        {"amount": "200.00", "received_on": "2026-11-29", "reference": "C1"},
    )
    assert repaid.status_code == 302
    empty = builder.post(f"{base}radiation/", {"reason": ""})
    assert empty.status_code == 422
    assert builder.post(f"{base}radiation/", {"reason": "Faillite."}).status_code == 302
    refused = builder.post(f"{base}radiation/", {})
    assert refused.status_code == 403
    assert other.post(f"{base}radiation/", {}).status_code == 302
    receivable.refresh_from_db()
    assert receivable.state == ReceivableState.WRITTEN_OFF
    assert receivable.written_off_cents == 30_000


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_receivable_that_does_not_exist_is_not_found_on_each_of_its_pages(
    demo: None, language: str
) -> None:
    finance = signed_in(FINANCE.get())
    base = "/finance/receivables/999999/"
    assert finance.get(page_path(language, base)).status_code == 404
    repay = {"amount": "1.00", "received_on": "2026-11-29"}
    assert finance.post(page_path(language, f"{base}repayments/"), repay).status_code == 404
    written_off = finance.post(page_path(language, f"{base}write-off/"), {"reason": "None."})
    assert written_off.status_code == 404


@pytest.mark.parametrize(
    ("language", "paid", "nothing", "to_pay", "awaiting"),
    [
        ("en", "$1,234.56", "$0.00", "Certified, still to pay", "Claimed, awaiting a decision"),
        (
            "fr",
            "1 234,56 $",
            "0,00 $",
            "Certifié, reste à payer",
            "Réclamé, en attente d'une décision",
        ),
    ],
)
def test_once_everything_is_paid_the_budgets_show_nothing_left_to_pay(
    demo: None, language: str, paid: str, nothing: str, to_pay: str, awaiting: str
) -> None:
    """The budget's balances nest (what was paid was also certified and claimed): the pages show
    what is still to pay and what still awaits a decision, not the running totals under the
    names of balances, and say what each column counts."""
    application = accepted_file()
    certified_claim(application, federal=123_456)
    builder, authorizer = signed_in(FINANCE.get()), signed_in(second_finance())
    builder.post("/en/finance/payments/", {"jurisdiction": "ON", "fiscal_year": "2026-27"})
    batch = PaymentBatch.objects.get()
    authorizer.post(f"/en/finance/payments/{batch.pk}/authorize/")
    export = builder.get(f"/en/finance/payments/{batch.pk}/export.csv")
    upload = SimpleUploadedFile("c.csv", confirm_all(export.content), "text/csv")
    builder.post(f"/en/finance/payments/{batch.pk}/confirmations/", {"file": upload})
    federal = account(application, "federal")
    pages = {
        "budgets": page_path(language, "/finance/budgets/?jurisdiction=ON&funder=federal"),
        "budget": page_path(language, f"/finance/budgets/{federal.pk}/"),
        "file": page_path(
            language, f"/finance/budgets/{federal.pk}/applications/{application.pk}/"
        ),
    }
    for name, path in pages.items():
        page = text(builder.get(path))
        assert to_pay in page and awaiting in page, name
        assert ">Payable<" not in page and ">À payer<" not in page, name
        assert 'id="budget-legend"' in page, name
        figures = re.findall(
            r'id="(?:total|budget|file)-(to-pay|awaiting|disbursed)">([^<]*)<', page
        )
        assert dict(figures).get("to-pay") == nothing, (name, figures)
        assert dict(figures).get("awaiting") == nothing, (name, figures)
        if name != "budgets":
            assert dict(figures).get("disbursed") == paid, (name, figures)
    row = text(builder.get(pages["budget"]))
    row = row[row.index(f'id="file-{application.pk}"') :]
    row = row[: row.index("</tr>")]
    assert re.findall(r'class="jg-num">([^<]*)<', row)[1:4] == [nothing, nothing, paid]
    csv_rows = builder.get(
        page_path(language, "/finance/budgets.csv?jurisdiction=ON&funder=federal")
    )
    header, line = csv_rows.content.decode("utf-8-sig").splitlines()[:2]
    assert to_pay in header and "Payable" not in header and "À payer" not in header
    assert line.split(",")[6:9] == ["0.00", "0.00", "1234.56"]  # awaiting, to pay, disbursed


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "The confirmation file must start with its header line, "),
        ("fr", "Le fichier de confirmation doit commencer par sa ligne d'en-tête, "),
    ],
)
def test_a_confirmation_file_without_its_header_says_which_header_is_expected(
    demo: None, language: str, expected: str
) -> None:
    application = accepted_file()
    certified_claim(application, federal=10_000)
    builder = signed_in(FINANCE.get())
    builder.post("/en/finance/payments/", {"jurisdiction": "ON", "fiscal_year": "2026-27"})
    batch = PaymentBatch.objects.get()
    headless = b"CJG-ON-2026-0000001,100.00,2026-11-30,EFT-1\r\n"
    upload = SimpleUploadedFile("paid.csv", headless, "text/csv")
    answer = builder.post(
        page_path(language, f"/finance/payments/{batch.pk}/confirmations/"), {"file": upload}
    )
    page = text(answer)
    assert answer.status_code == 422
    assert expected + "document_number,amount,paid_on,payment_reference" in page
    assert "CJG-ON-2026-0000001,100.00,2026-11-30,EFT-1" in page
    assert "nothing was saved. has" not in page and "rien n'a été enregistré. n'a" not in page


def test_a_line_of_the_wrong_amount_says_the_amount_expected(demo: None) -> None:
    from tests.service.grants.payment_helpers import confirmation_file, exported_rows

    application = accepted_file()
    certified_claim(application, federal=123_456)
    builder, authorizer = signed_in(FINANCE.get()), signed_in(second_finance())
    builder.post("/en/finance/payments/", {"jurisdiction": "ON", "fiscal_year": "2026-27"})
    batch = PaymentBatch.objects.get()
    authorizer.post(f"/en/finance/payments/{batch.pk}/authorize/")
    export = builder.get(f"/en/finance/payments/{batch.pk}/export.csv")
    [row] = exported_rows(
        b"".join(export.streaming_content) if export.streaming else export.content
    )
    wrong = confirmation_file([(row["document_number"], "1000.00")])
    upload = SimpleUploadedFile("paid.csv", wrong, "text/csv")
    answer = builder.post(f"/en/finance/payments/{batch.pk}/confirmations/", {"file": upload})
    assert answer.status_code == 302, text(answer)
    page = text(builder.get(answer["Location"]))
    assert "Wrong amount: $1,234.56 expected" in page
    french = text(builder.get(page_path("fr", answer["Location"].removeprefix("/en"))))
    assert "1 234,56 $ attendus" in french
