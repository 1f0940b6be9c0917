"""A fresh SQLite database starts as a copy of the migrated template (migrated_template.py): it
then holds every migration, a database that is not fresh is never replaced, and the template's
name changes with what a migration's result depends on."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from django.db.migrations.loader import MigrationLoader

from jobgrant.service.migrated_template import digest, start_from_template


def applied(database: Path) -> set[tuple[str, str]]:
    connection = sqlite3.connect(database)
    try:
        return set(connection.execute("SELECT app, name FROM django_migrations").fetchall())
    finally:
        connection.close()


def tables(database: Path) -> set[str]:
    connection = sqlite3.connect(database)
    try:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {name for (name,) in rows}
    finally:
        connection.close()


def test_a_fresh_database_is_a_copy_holding_every_migration(tmp_path: Path) -> None:
    database = tmp_path / "fresh.sqlite3"
    assert start_from_template(database)
    every_migration = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    assert applied(database) == every_migration
    assert {"grants_application", "ledger_posting", "audit_auditentry"} <= tables(database)


def test_an_empty_file_is_fresh_too(tmp_path: Path) -> None:
    database = tmp_path / "empty.sqlite3"
    database.touch()
    assert start_from_template(database)
    assert "django_migrations" in tables(database)


def test_a_database_that_is_not_fresh_is_never_replaced(tmp_path: Path) -> None:
    database = tmp_path / "kept.sqlite3"
    connection = sqlite3.connect(database)
    connection.execute("CREATE TABLE kept (value TEXT)")
    connection.execute("INSERT INTO kept VALUES ('mine')")
    connection.commit()
    connection.close()
    assert not start_from_template(database)
    assert tables(database) == {"kept"}


def test_without_a_build_directory_nothing_is_copied(tmp_path: Path, settings: Any) -> None:
    settings.JOBGRANT_BUILD_DIR = None  # production's default
    assert not start_from_template(tmp_path / "fresh.sqlite3")
    assert not (tmp_path / "fresh.sqlite3").exists()


def test_the_template_is_named_by_what_a_migration_depends_on(settings: Any) -> None:
    before = digest()
    assert digest() == before
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    assert digest() != before
