"""`make migration-lint`: every migration of the service's apps is read by django-migration-linter
on PostgreSQL (the production engine: the SQL it would run), and refused if it breaks the
servers of the release before (NOT NULL without a default in the database, a dropped or renamed
column or table, a changed column, a unique constraint added) or locks a table while it runs (an
index created or dropped without CONCURRENTLY, a REINDEX), unless migrations-allowed.toml lists it
with its reason. A reason left empty, or a listed migration that does not exist, is refused too.

    JOBGRANT_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/x python tests/migration_lint.py

Only the SQL is generated (sqlmigrate, on the server's `postgres` database): nothing is written.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ALLOWED = ROOT / "migrations-allowed.toml"
#: The linter's warnings that are refusals here: each of them locks the table while it runs.
LOCKING = ["CREATE_INDEX", "CREATE_INDEX_EXCLUSIVE", "DROP_INDEX", "REINDEX"]


@dataclass
class Outcome:
    refused: list[str] = field(default_factory=list)  # "app.migration: what it does"
    allowed: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # in the list of allowed migrations

    @property
    def ok(self) -> bool:
        return not self.refused and not self.problems


def reasons(path: Path = ALLOWED) -> dict[str, str]:
    """Each allowed migration ("app.name") with its reason."""
    data = tomllib.loads(path.read_text())
    found = dict.fromkeys(data["baseline"]["migrations"], str(data["baseline"]["reason"]))
    found.update({str(k): str(v) for k, v in data.get("allowed", {}).items()})
    return found


def lint(allowed: dict[str, str], apps: Iterable[str] | None = None) -> Outcome:
    """Lint the service's migrations (or those of `apps`); Django must be set up on PostgreSQL."""
    from django.apps import apps as registry
    from django.db import connection
    from django_migration_linter import MigrationLinter

    if connection.vendor != "postgresql":
        raise SystemExit(
            "the migration check reads the SQL PostgreSQL would run: set a postgresql URL"
        )
    ours = [c.label for c in registry.get_app_configs() if c.name.startswith("jobgrant.")]
    chosen = [label for label in ours if apps is None or label in set(apps)]
    outcome = Outcome()

    class Linter(MigrationLinter):  # type: ignore[misc]
        def lint_migration(self, migration: Any) -> None:
            before = self.nb_erroneous
            super().lint_migration(migration)
            if self.nb_erroneous > before:
                outcome.refused.append(f"{migration.app_label}.{migration.name}")

        def should_ignore_migration(
            self,
            app_label: str,
            migration_name: str,
            operations: Any = (),
            is_initial: bool = False,
        ) -> bool:
            key = f"{app_label}.{migration_name}"
            if app_label in chosen and key in allowed:
                outcome.allowed.append(key)
                return True
            return bool(
                super().should_ignore_migration(app_label, migration_name, operations, is_initial)
            )

    linter = Linter(
        include_apps=chosen,
        no_cache=True,
        warnings_as_errors_tests=LOCKING,
        quiet=["ok", "ignore"],
    )
    linter.lint_all_migrations()
    linter.print_summary()
    on_disk = {f"{app}.{name}" for app, name in linter.migration_loader.disk_migrations}
    for key, reason in sorted(allowed.items()):
        if key.split(".")[0] not in chosen:
            continue
        if key not in on_disk:
            outcome.problems.append(f"{key} is allowed but there is no such migration")
        if not reason.strip():
            outcome.problems.append(f"{key} is allowed without a reason")
    return outcome


def setup(url: str) -> None:
    """Django on the `postgres` database of the server `url` names (it always exists; only SQL is
    generated from it)."""
    server, _, _ = url.rpartition("/")
    os.environ["JOBGRANT_DATABASE_URL"] = f"{server}/postgres"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jobgrant.service.settings")
    import django

    django.setup()


def main() -> int:
    url = os.environ.get("JOBGRANT_DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        print("Set JOBGRANT_DATABASE_URL to a PostgreSQL server: the check reads its SQL.")
        return 2
    setup(url)
    outcome = lint(reasons())
    for problem in outcome.problems:
        print(f"migrations-allowed.toml: {problem}")
    if outcome.refused:
        print(
            "Refused: " + ", ".join(outcome.refused) + ". Make each one safe for the servers "
            "of the release before (docs/deployment.md, 'Migrations that never stop the "
            "service'), or list it in migrations-allowed.toml with its reason."
        )
    verdict = "passed" if outcome.ok else "failed"
    print(f"migration check: {verdict} ({len(outcome.allowed)} allowed with a reason)")
    return 0 if outcome.ok else 1


if __name__ == "__main__":
    sys.exit(main())
