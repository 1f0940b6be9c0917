"""The finance officer's budgets: filters, the bars and their figures, the CSV export."""

from __future__ import annotations

import csv
import html
import io
from typing import Any

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.personas import FINANCE

from jobgrant.service.ledger.models import BudgetAccount

pytestmark = pytest.mark.django_db


def finance() -> Client:
    client = Client()
    client.force_login(FINANCE.get())
    return client


def text(response: Any) -> str:
    return html.unescape(response.content.decode()).replace("\u00a0", " ").replace("\u202f", " ")


def ontario(funder: str, year: str = "2026-27") -> BudgetAccount:
    return BudgetAccount.objects.get(funder=funder, jurisdiction="ON", fiscal_year=year)


@pytest.mark.parametrize(
    ("language", "heading", "allocated", "bar"),
    [
        ("en", "Budgets", "$115,170,913.98", "0.0% committed, 100.0% available"),
        ("fr", "Budgets", "115 170 913,98 $", "0,0 % engagé, 100,0 % disponible"),
    ],
)
def test_the_budgets_of_this_fiscal_year_with_their_bars_in_both_languages(
    demo: None, language: str, heading: str, allocated: str, bar: str
) -> None:
    response = finance().get(page_path(language, "/finance/budgets/"))
    assert response.status_code == 200
    page = text(response)
    assert f'<html lang="{language}">' in page
    assert f"<h1>{heading}</h1>" in page
    assert page.count('<tr id="budget-2026-27-') == 26  # 13 jurisdictions x 2 funders
    assert "budget-2025-26" not in page
    row = page[page.index('id="budget-2026-27-ON-federal-CJG"') :]
    row = row[: row.index("</tr>")]
    assert allocated in row and bar in row
    assert '<svg class="jg-bar"' in row and 'aria-hidden="true"' in row
    assert "no-store" in response["Cache-Control"]


def test_the_filters_choose_the_budgets_and_a_commitment_shows_in_figures_and_bar(
    demo: None,
) -> None:
    account = ontario("federal")
    BudgetAccount.objects.filter(pk=account.pk).update(committed_cents=account.allocated_cents // 4)
    page = text(
        finance().get("/en/finance/budgets/?jurisdiction=ON&funder=federal&fiscal_year=all")
    )
    assert page.count('<tr id="budget-') == 13  # 2014-15 to 2026-27
    assert "provincial-CJG" not in page
    row = page[page.index('id="budget-2026-27-ON-federal-CJG"') :]
    row = row[: row.index("</tr>")]
    assert "25.0% committed, 75.0% available" in row
    assert 'width="25.00%"' in row


def test_bad_filters_are_named_in_the_error_summary(demo: None) -> None:
    response = finance().get("/fr/finances/budgets/?fiscal_year=1999-00&funder=nobody")
    assert response.status_code == 200
    page = text(response)
    assert "gcds-error-summary" in page
    assert 'href="#id_fiscal_year"' in page and 'href="#id_funder"' in page


def test_the_csv_export_has_a_bom_a_header_decimal_strings_and_the_filters_in_its_name(
    demo: None,
) -> None:
    account = ontario("provincial")
    BudgetAccount.objects.filter(pk=account.pk).update(committed_cents=500_000)
    response = finance().get("/en/finance/budgets.csv?jurisdiction=ON&fiscal_year=2026-27")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="budgets_2026-27_ON.csv"'
    assert response.content.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == [
        "Fiscal year",
        "Jurisdiction",
        "Funder",
        "Stream",
        "Allocated",
        "Committed to date",
        "Claimed, awaiting a decision",
        "Certified, still to pay",
        "Disbursed",
        "Recovered",
        "Available",
    ]
    nothing_paid = ["0.00"] * 4  # awaiting a decision, to pay, disbursed, recovered
    assert rows[1:] == [
        [
            "2026-27",
            "Ontario",
            "Federal",
            "CJG",
            "115170913.98",
            "0.00",
            *nothing_paid,
            "114670913.98",  # $500,000 earmarked for the ranked intake
        ],
        [
            "2026-27",
            "Ontario",
            "Provincial or territorial",
            "CJG",
            "115170913.98",
            "5000.00",
            *nothing_paid,
            "115165913.98",
        ],
    ]


def test_the_csv_export_in_french_and_unfiltered(demo: None) -> None:
    response = finance().get("/fr/finances/budgets.csv?fiscal_year=all")
    assert response["Content-Disposition"] == 'attachment; filename="budgets_all.csv"'
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0][:4] == ["Exercice", "Province ou territoire", "Bailleur de fonds", "Volet"]
    assert len(rows) == 1 + BudgetAccount.objects.count()
    # the values are in French too: the jurisdictions', the funders' and the stream's names
    federal = [r for r in rows[1:] if r[:3] == ["2017-18", "Ontario", "Fédéral"]]
    assert federal == [
        ["2017-18", "Ontario", "Fédéral", "SCE", "115170913.98", *["0.00"] * 5, "115170913.98"]
    ]
    assert {r[2] for r in rows[1:]} == {"Fédéral", "Provincial ou territorial"}
    assert "Québec" in {r[1] for r in rows[1:]}
    total = sum(
        int(r[4].replace(".", "")) for r in rows[1:] if r[0] == "2017-18" and r[2] == "Fédéral"
    )
    assert total == 300_000_000_00  # the federal grant at full implementation, to the cent
