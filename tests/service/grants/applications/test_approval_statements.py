"""What an approval sends to the database: budget rows locked last, no stored quote rewritten.

Every approval waits for the same budget rows, so the time they stay locked bounds how many
approvals per second the service can make. These tests pin down the order that keeps that time
short (application -> employers -> ledger rows -> budgets -> audit head, the budgets taken as
late as possible: only the audit entry, the idempotent response and the commit come after them)
and that a transition does not rewrite the stored quote and explanation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from tests.personas import EMPLOYER, OFFICER, SECOND_OFFICER

pytestmark = pytest.mark.django_db


def recommended(as_user: Callable[[str | None], Any], body: dict[str, Any]) -> int:
    created = as_user(EMPLOYER).post("/applications", body)
    application_id = int(created.json()["id"])
    as_user(EMPLOYER).post(f"/applications/{application_id}/submit")
    as_user(OFFICER).post(f"/applications/{application_id}/recommend")
    return application_id


def approval_statements(as_user: Callable[[str | None], Any], application_id: int) -> list[str]:
    officer = as_user(SECOND_OFFICER)
    with CaptureQueriesContext(connection) as captured:
        response = officer.post(f"/applications/{application_id}/approve", key="approve-1")
    assert response.status_code == 200, response.content
    return [query["sql"] for query in captured.captured_queries]


def test_the_budget_rows_are_locked_after_everything_but_the_ledger_and_the_audit_entry(
    as_user, make_body
) -> None:
    statements = approval_statements(as_user, recommended(as_user, make_body()))
    first_budget_lock = next(
        i for i, sql in enumerate(statements) if sql.startswith('UPDATE "ledger_budgetaccount"')
    )
    after = statements[first_budget_lock:]
    # The audit append: one statement on PostgreSQL (WITH head AS ...), three on SQLite.
    allowed = (
        'UPDATE "ledger_budgetaccount"',
        "WITH head AS",
        'SELECT "audit_audithead"',
        'INSERT INTO "audit_auditentry"',
        'UPDATE "audit_audithead"',
        "RELEASE SAVEPOINT",
        'UPDATE "grants_idempotencykey"',
        "COMMIT",
    )
    assert [sql[:60] for sql in after if not sql.startswith(allowed)] == []
    assert sum(sql.startswith('UPDATE "ledger_budgetaccount"') for sql in after) == 2
    assert any(sql.startswith('INSERT INTO "ledger_posting"') for sql in statements)


def test_the_audit_head_is_locked_after_the_budget_rows_for_both_entries(
    as_user, make_body
) -> None:
    """Every approval waits for the audit head too: the agreement's entry is appended with the
    approval's, after the budget rows, not when the agreement is made."""
    statements = approval_statements(as_user, recommended(as_user, make_body()))
    budget = next(
        i for i, sql in enumerate(statements) if sql.startswith('UPDATE "ledger_budgetaccount"')
    )
    head = ("WITH head AS", 'SELECT "audit_audithead"')
    appends = [i for i, sql in enumerate(statements) if sql.startswith(head)]
    assert len(appends) == 2 and min(appends) > budget


def test_a_transition_does_not_rewrite_the_stored_quote_or_explanation(as_user, make_body) -> None:
    statements = approval_statements(as_user, recommended(as_user, make_body()))
    updates = [sql for sql in statements if sql.startswith('UPDATE "grants_application"')]
    assert len(updates) == 1
    assert '"state"' in updates[0]
    assert '"explanation"' not in updates[0]
    assert '"quote"' not in updates[0]
