"""The migration check (`make migration-lint`, tests/migration_lint.py) refuses a migration that
breaks the servers of the release before or locks a table, unless it is allowed with its reason;
an allowance without a reason, or for a migration that does not exist, is refused too.

It reads the SQL PostgreSQL would run, so it runs in the PostgreSQL pass (skipped on SQLite).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.conf import settings
from tests.migration_lint import ROOT, lint, reasons

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        "postgresql" not in settings.DATABASES["default"]["ENGINE"],
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


#: Two migrations a developer might write next, after registry's newest: an index built while
#: the table is locked, and a column dropped that the servers of the release before still read.
NEW_MIGRATIONS = {
    "0098_employer_city_index": """
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("registry", "{leaf}")]
    operations = [
        migrations.AddIndex(
            "employer", models.Index(fields=["city"], name="registry_employer_city_idx")
        )
    ]
""",
    "0099_drop_employer_naics": """
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("registry", "0098_employer_city_index")]
    operations = [migrations.RemoveField("employer", "naics")]
""",
}


def test_a_new_locking_or_breaking_migration_not_listed_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The registry's migrations as they are, and two new ones on disk (a copy of its migrations
    package, put in its place by MIGRATION_MODULES): the check refuses both with the list as it
    is in the repository, and lets them through once they are listed with a reason."""
    from django.test import override_settings

    source = ROOT / "src" / "jobgrant" / "service" / "registry" / "migrations"
    package = tmp_path / "registry_next_migrations"
    shutil.copytree(source, package, ignore=shutil.ignore_patterns("__pycache__"))
    leaf = max(p.stem for p in source.glob("0*.py"))
    for name, text in NEW_MIGRATIONS.items():
        (package / f"{name}.py").write_text(text.replace("{leaf}", leaf))
    monkeypatch.syspath_prepend(str(tmp_path))
    new = {f"registry.{name}" for name in NEW_MIGRATIONS}
    with override_settings(MIGRATION_MODULES={"registry": "registry_next_migrations"}):
        outcome = lint(reasons(), apps=["registry"])
        assert set(outcome.refused) == new
        assert not outcome.ok and outcome.problems == []
        listed = lint(
            {**reasons(), **dict.fromkeys(new, "run while the old servers are stopped")},
            apps=["registry"],
        )
        assert listed.ok and listed.refused == [] and new <= set(listed.allowed)
