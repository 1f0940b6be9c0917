"""The migration check (`make migration-lint`, tests/migration_lint.py) refuses a migration that
breaks the servers of the release before or locks a table, unless it is allowed with its reason;
an allowance without a reason, or for a migration that does not exist, is refused too.

It reads the SQL PostgreSQL would run, so it runs in the PostgreSQL pass (skipped on SQLite).
"""

from __future__ import annotations

import pytest
from django.conf import settings
from tests.migration_lint import lint, reasons

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
        reason="the migration check reads PostgreSQL's SQL (the PostgreSQL pass runs it)",
    ),
]


def test_a_backward_incompatible_migration_is_refused_unless_allowed_with_its_reason() -> None:
    refused = lint({}, apps=["registry"])
    # NOT NULL without a default in the database (old servers' inserts fail); a unique
    # constraint and its index built while the table is locked.
    assert set(refused.refused) == {
        "registry.0002_one_trainee_per_sin",
        "registry.0004_organization_address",
    }
    assert not refused.ok
    allowed = lint(reasons(), apps=["registry"])
    assert allowed.ok and allowed.refused == []
    assert set(allowed.allowed) == set(refused.refused)


def test_an_allowance_needs_a_reason_and_a_migration() -> None:
    outcome = lint(
        {
            "registry.0002_one_trainee_per_sin": "  ",
            "registry.0004_organization_address": "baseline",
            "registry.0099_never_written": "a reason",
        },
        apps=["registry"],
    )
    assert not outcome.ok
    assert outcome.problems == [
        "registry.0002_one_trainee_per_sin is allowed without a reason",
        "registry.0099_never_written is allowed but there is no such migration",
    ]


def test_the_services_migrations_pass_with_the_allowed_list() -> None:
    outcome = lint(reasons())
    assert outcome.ok, (outcome.refused, outcome.problems)
