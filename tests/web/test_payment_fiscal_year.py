"""The fiscal year a finance officer types to build a batch: "2026-2027" is read as 2026-27
(nothing cuts it to "2026-20"), and a year that is not one is refused naming the field and the
form it must take."""

from __future__ import annotations

import html

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.personas import FINANCE
from tests.service.grants.payment_helpers import accepted_file, certified_claim

from jobgrant.service.grants.models.payments import PaymentBatch

pytestmark = pytest.mark.django_db
PAYMENTS = "/finance/payments/"


@pytest.fixture
def finance(demo: None) -> Client:
    client = Client()
    client.force_login(FINANCE.get())
    return client


def test_the_field_does_not_cut_a_fiscal_year_written_in_full(finance: Client) -> None:
    page = finance.get(page_path("en", PAYMENTS)).content.decode()
    field = page[page.index('id="id_fiscal_year"') - 200 : page.index('id="id_fiscal_year"') + 200]
    assert 'maxlength="7"' not in field


@pytest.mark.parametrize("typed", ["2026-2027", " 2026 - 2027 ", "2026–27", "2026-27"])
def test_a_fiscal_year_written_in_full_builds_the_batch_of_2026_27(
    finance: Client, typed: str
) -> None:
    certified_claim(accepted_file(), federal=123_456, provincial=10_000)
    built = finance.post(page_path("en", PAYMENTS), {"jurisdiction": "ON", "fiscal_year": typed})
    assert built.status_code == 302, html.unescape(built.content.decode())[-3000:]
    assert PaymentBatch.objects.get().fiscal_year == "2026-27"


@pytest.mark.parametrize(
    ("lang", "typed", "said"),
    [
        ("en", "2026-20", "2026-20 is not a fiscal year: write the year it starts and the next"),
        ("en", "2026-2029", "2026-2029 is not a fiscal year"),
        ("en", "26-27", "for example 2026-27 or 2026-2027"),
        ("fr", "2026-20", "2026-20 n'est pas un exercice : écrivez l'année où il commence et la"),
    ],
)
def test_a_year_that_is_not_a_fiscal_year_is_refused_naming_the_field(
    finance: Client, lang: str, typed: str, said: str
) -> None:
    refused = finance.post(page_path(lang, PAYMENTS), {"jurisdiction": "ON", "fiscal_year": typed})
    assert refused.status_code == 422
    page = html.unescape(refused.content.decode()).replace("\u00a0", " ")
    assert 'href="#id_fiscal_year"' in page
    error = page[page.index('id="id_fiscal_year_error"') :][:400]
    assert said in error
    assert not PaymentBatch.objects.exists()
