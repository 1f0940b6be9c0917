"""The PostgreSQL backend (service/postgresql, ADR 0056): parameters bound by PostgreSQL, the
statements a connection runs often prepared, and every integer bound whole.

Django binds a bare integer in an expression as a 4-byte one; bound on the server in binary, a
budget of $28.8 million added to an account came out as −$14.2 million. These tests fail on
Django's own backend with server-side binding."""

from __future__ import annotations

import pytest
from django.db import DataError, connection, transaction
from django.db.models import F
from tests.personas import APPLICANT

from jobgrant.service.ledger.models import BudgetAccount
from jobgrant.service.registry.models import Employer

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's binding"),
]

#: $28,792,728.49: more than a 4-byte integer holds (2,147,483,647).
LARGE = 2_879_272_849


def test_an_amount_beyond_four_bytes_is_added_exactly_once_the_statement_is_prepared() -> None:
    account = BudgetAccount.objects.create(
        funder="federal", jurisdiction="ON", fiscal_year="2099-00"
    )
    added = [5, 6, 7, 8, 9, 10, 70_000, LARGE]  # prepared after five runs, then larger amounts
    for cents in added:
        BudgetAccount.objects.filter(pk=account.pk).update(
            allocated_cents=F("allocated_cents") + cents
        )
    account.refresh_from_db()
    assert account.allocated_cents == sum(added)


def test_a_statement_run_often_is_prepared_on_its_connection() -> None:
    for _ in range(6):
        list(BudgetAccount.objects.filter(jurisdiction="NS", fiscal_year="2099-00"))
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [statement for (statement,) in cursor.fetchall()]
    assert any('"ledger_budgetaccount"."jurisdiction" = $2' in s for s in prepared), prepared


def test_a_number_too_large_for_its_column_is_refused_never_wrapped() -> None:
    employer = APPLICANT.get()  # 40 employees
    with pytest.raises(DataError), transaction.atomic():
        Employer.objects.filter(pk=employer.pk).update(employees=LARGE)
    employer.refresh_from_db()
    assert employer.employees == 40
