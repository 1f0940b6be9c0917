"""The tests' seeded database: a build product, made once per content of what it is made from.

Every test database starts with the demonstration data (the funding model's budgets for each
year, the programs, the demonstration accounts) and the test personas. Seeding that takes about
3 s of CPU; a transactional test (a browser test, a race) empties the database when it ends, and
the next one used to seed it again. So the seeded database is built once, beside the migrated
template (`var/build/seeded/`, ADR 0037), and

- a test process's database starts as a copy of it (SQLite: the file copied; PostgreSQL: the
  test database created from a template database), and
- after each transactional test the database is put back to it instead of being emptied
  (SQLite: the backup API copies the seeded file's pages into the open database; PostgreSQL:
  every table emptied and refilled from the copy kept in the schema `seeded`).

It is named by a digest of the migrated template's digest (the service's code and migrations),
the rest of the package (the rules, the funding model), the scenarios, the personas and the
tests' date: any change of those is a new seeded database, never a stale one.

The canonical files (tests/canonical.py: one file at each stage, approved to completed) are
made in the seeding process too, each on the seeded rows alone by the service's actions; the rows
each added or changed are kept aside in the seeded database (PostgreSQL: the schema `canonical`;
SQLite: tables named `canonical__<stage>__<table>`), the tables put back to the seeded rows, and a
test that asks for a stage has them put into its database (`put_canonical`).

The same for the demonstration history (`var/build/history/`): the seeded SQLite file with the
whole history loaded, which the KPI test over it copies in (on SQLite, the engine of `make run`).

`python -m tests.seeded [POSTGRES_URL]` builds them (`make test` does, before the tests start);
otherwise the first test process to need one builds it while the others wait.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: The date the tests' world is seeded at, and the moment the server tests' clock is set to
#: (conftest.py's frozen_today), at which the demonstration history is loaded too.
TODAY = dt.date(2026, 11, 29)
NOW = dt.datetime(2026, 11, 29, 15, 0, tzinfo=dt.UTC)
#: Where PostgreSQL keeps the seeded rows to refill each table from.
SNAPSHOT_SCHEMA = "seeded"
#: Where the canonical files' rows are kept: a PostgreSQL schema; on SQLite, a table prefix.
CANONICAL = "canonical"
#: The stage's receipts' bytes (the receipts' storage is each test process's own).
FILES_TABLE = "receipt_files"


def digest() -> str:
    from jobgrant.service.migrated_template import digest as migrated_digest

    hashed = hashlib.sha256(f"{migrated_digest()} {TODAY.isoformat()}".encode())
    from tests.canonical import SOURCES

    sources = [ROOT / "tests" / "personas.py", ROOT / "tests" / "seeded.py"]
    sources += [ROOT / source for source in SOURCES]  # the canonical files' makers
    sources += sorted((ROOT / "scenarios").rglob("*.yaml"))
    package = ROOT / "src" / "jobgrant"
    sources += sorted(
        path
        for path in package.rglob("*")
        if path.suffix in {".py", ".yaml", ".yml", ".json", ".csv"}
        and not (path.suffix == ".py" and path.relative_to(package).parts[0] == "service")
        and "__pycache__" not in path.parts
    )  # the service's Python files are in the migrated digest already
    for path in sources:
        hashed.update(str(path.relative_to(ROOT)).encode() + b"\0")
        hashed.update(hashlib.sha256(path.read_bytes()).digest())
    return hashed.hexdigest()


def seed_here() -> None:
    """Seed the database Django is connected to: the demonstration data and the personas."""
    from tests.personas import create_personas

    from jobgrant.service.demo import seed

    seed(TODAY)
    create_personas()


# --- SQLite: a file ------------------------------------------------------------------------------


def sqlite_seeded(build: Path) -> Path:
    """The seeded SQLite file of the current digest, built now (in a process of its own) if
    missing, as the migrated template is (migrated_template.built_once)."""
    from jobgrant.service.migrated_template import built_once, sqlite_template

    def make(building: Path) -> None:
        shutil.copyfile(sqlite_template(build / "migrated"), building)
        _in_a_process(f"sqlite:///{building}", "--seed-here")

    return built_once(build / "seeded", digest(), make)


def start_seeded(database: Path, build: Path) -> None:
    """Make `database` (a test process's SQLite file, not yet opened) a copy of the seeded one."""
    from jobgrant.service.migrated_template import copy_into_place

    copy_into_place(sqlite_seeded(build), database)


def sqlite_history(build: Path) -> Path:
    """The seeded SQLite file with the whole demonstration history loaded (as `make run`'s
    worker loads it, at the tests' moment), built now if missing, for the KPI and report tests
    that read it: about 53 s of CPU once per digest rather than in the test."""
    from jobgrant.service.migrated_template import built_once

    def make(building: Path) -> None:
        shutil.copyfile(sqlite_seeded(build), building)
        _in_a_process(f"sqlite:///{building}", "--history-here")

    return built_once(build / "history", digest(), make)


def load_history(connection: Any) -> None:
    """The whole demonstration history in the test's database (a transactional test's: it is put
    back to the seeded one afterwards): on SQLite the built file's pages copied in; on another
    engine, or without a build directory, loaded in place."""
    from django.conf import settings

    from jobgrant.service.demo_history.load import seed_history

    if connection.vendor == "sqlite" and settings.JOBGRANT_BUILD_DIR is not None:
        restore_sqlite(connection, sqlite_history(Path(settings.JOBGRANT_BUILD_DIR)))
    else:
        seed_history()


def restore_sqlite(connection: Any, seeded_file: Path) -> None:
    """Put the open SQLite database back to the seeded file, page by page (the backup API)."""
    connection.ensure_connection()
    source = sqlite3.connect(seeded_file)
    try:
        source.backup(connection.connection)
    finally:
        source.close()


# --- PostgreSQL: a template database -------------------------------------------------------


def postgres_seeded(settings_dict: dict[str, object]) -> str:
    """The name of a template database on `settings_dict`'s server, migrated and seeded at the
    current digest, with a copy of every table in the schema `seeded`; made now if missing."""
    import psycopg
    from psycopg import sql

    from jobgrant.service.migrated_template import (
        _database_exists,
        _maintenance_url,
        _url,
        _wait_until_unused,
        drop_old_databases,
        postgres_template,
    )

    name = f"{settings_dict['NAME']}_seeded_{digest()[:16]}"
    with psycopg.connect(_maintenance_url(settings_dict), autocommit=True) as server:
        server.execute("SELECT pg_advisory_lock(hashtext(%s))", [name])
        if _database_exists(server, name):
            return name
        drop_old_databases(server, f"{settings_dict['NAME']}_seeded_")
        migrated = postgres_template(settings_dict)
        building = f"{name}_building"
        server.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(building), sql.Identifier(str(migrated))
            )
        )
        _in_a_process(_url(settings_dict, building), "--seed-here")
        _wait_until_unused(server, building)
        server.execute(
            sql.SQL("ALTER DATABASE {} RENAME TO {}").format(
                sql.Identifier(building), sql.Identifier(name)
            )
        )
    return name


def keep_snapshot(connection: Any) -> None:
    """In the seeding process, on PostgreSQL: a copy of every table in the schema `seeded`."""
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE SCHEMA {SNAPSHOT_SCHEMA}")
        for table in _tables(connection):
            cursor.execute(f'CREATE TABLE {SNAPSHOT_SCHEMA}."{table}" AS TABLE public."{table}"')


def restore_postgres(connection: Any) -> None:
    """Put every table back to its seeded rows: each emptied and refilled from the schema
    `seeded`, in one transaction, its triggers (the audit trail's append-only guard, the foreign
    keys' checks) off for it as a superuser may (the tests' role is one). DELETE rather than
    TRUNCATE: on 66 small tables it is about ten times faster. The sequences stay where they
    are: past every seeded id, since they only go up."""
    from django.db import transaction

    tables = _tables(connection)
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        for table in tables:
            cursor.execute(f'DELETE FROM public."{table}"')
        for table in tables:
            copy = f'INSERT INTO public."{table}" SELECT * FROM {SNAPSHOT_SCHEMA}."{table}"'
            cursor.execute(copy)


def _tables(connection: Any) -> list[str]:
    """The service's tables (not the canonical files' rows kept aside, nor the migrations')."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
                " AND tablename <> 'django_migrations' ORDER BY tablename"
            )
        else:
            cursor.execute(
                "SELECT name FROM main.sqlite_master WHERE type = 'table'"
                " AND name <> 'django_migrations' AND substr(name, 1, 7) <> 'sqlite_'"
                " AND substr(name, 1, %s) <> %s ORDER BY name",
                [len(CANONICAL) + 2, f"{CANONICAL}__"],
            )
        return [table for (table,) in cursor.fetchall()]


# --- The canonical files (tests/canonical.py) ----------------------------------------------------


def make_canonical(connection: Any) -> None:
    """In the seeding process, once the database is seeded: each stage's file made by the
    service's actions, the rows it added or changed kept aside (`keep_canonical`), then the
    tables put back to the seeded rows, their id sequences left past the file's ids (so that
    a test's own rows never take a canonical file's ids, and the next stage starts there)."""
    from tests import canonical

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            before = SNAPSHOT_SCHEMA
            cursor.execute(f"CREATE SCHEMA {CANONICAL}")
        else:  # the seeded rows, in a copy attached beside the database being built
            before = "before_canonical"
            snapshot = Path(f"{connection.settings_dict['NAME']}.before-canonical")
            copy = sqlite3.connect(snapshot)
            connection.ensure_connection()
            connection.connection.backup(copy)
            copy.close()
            cursor.execute(f"ATTACH DATABASE %s AS {before}", [str(snapshot)])
        cursor.execute(_ddl(connection, "manifest", "stage text, tbl text, pk text, n integer"))
    tables = _tables(connection)
    for stage in canonical.STAGES:
        canonical.build(stage)
        keep_canonical(connection, stage, tables, before)
        _put_back(connection, tables, before)
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute(f"DETACH DATABASE {before}")
        snapshot.unlink()


def _kept(connection: Any, name: str) -> str:
    """Where the canonical rows named `name` are kept."""
    if connection.vendor == "postgresql":
        return f'{CANONICAL}."{name}"'
    return f'main."{CANONICAL}__{name}"'


def _ddl(connection: Any, name: str, columns: str) -> str:
    return f"CREATE TABLE {_kept(connection, name)} ({columns})"


def _main(connection: Any, table: str) -> str:
    return f'{"public" if connection.vendor == "postgresql" else "main"}."{table}"'


def keep_canonical(connection: Any, stage: str, tables: list[str], before: str) -> None:
    """The rows the stage's file added or changed, table by table, kept aside as
    `<stage>__<table>` and listed in the manifest; and its receipts' bytes. A file that removed
    a seeded row could not be put back by adding rows: refused."""
    from django.core.files.storage import storages

    from jobgrant.service.grants.models.claims import Receipt

    with connection.cursor() as cursor:
        for position, table in enumerate(tables):
            pk = connection.introspection.get_primary_key_column(cursor, table)
            old, new = f'{before}."{table}"', _main(connection, table)
            cursor.execute(f"SELECT count(*) FROM {old} WHERE {pk} NOT IN (SELECT {pk} FROM {new})")
            (removed,) = cursor.fetchone()
            if removed:
                raise RuntimeError(f"the {stage} file removed {removed} seeded rows of {table}")
            kept = _kept(connection, f"{stage}__{table}")
            cursor.execute(f"CREATE TABLE {kept} AS SELECT * FROM {new} EXCEPT SELECT * FROM {old}")
            cursor.execute(f"SELECT count(*) FROM {kept}")
            if cursor.fetchone()[0] == 0:
                cursor.execute(f"DROP TABLE {kept}")
                continue
            cursor.execute(
                f"INSERT INTO {_kept(connection, 'manifest')} VALUES (%s, %s, %s, %s)",
                [stage, table, pk, position],
            )
        cursor.execute(_ddl(connection, f"{stage}__{FILES_TABLE}", "name text, content bytea"))
        storage = storages["receipts"]
        for receipt in Receipt.objects.all():
            with storage.open(receipt.file.name) as opened:
                content = opened.read()
            cursor.execute(
                f"INSERT INTO {_kept(connection, f'{stage}__{FILES_TABLE}')} VALUES (%s, %s)",
                [receipt.file.name, content],
            )


def _put_back(connection: Any, tables: list[str], before: str) -> None:
    """Every table back to the seeded rows (`before`), the triggers off meanwhile; the id
    sequences stay where they are."""
    from django.db import transaction

    from jobgrant.service.audit import append_only

    if connection.vendor == "postgresql":
        restore_postgres(connection)
        return
    with connection.cursor() as cursor:
        # SQLite's count of deferred foreign-key violations is not brought back down by every
        # parent row put back, so the keys are off for this (it works outside a transaction).
        cursor.execute("PRAGMA foreign_keys = OFF")
        with transaction.atomic(using=connection.alias):
            append_only.uninstall(connection)
            for table in tables:
                cursor.execute(f'DELETE FROM main."{table}"')
                cursor.execute(f'INSERT INTO main."{table}" SELECT * FROM {before}."{table}"')
            append_only.install(connection)
            cursor.execute("PRAGMA main.foreign_key_check")
            if cursor.fetchall():
                raise RuntimeError("the seeded rows put back break a foreign key")
        cursor.execute("PRAGMA foreign_keys = ON")


_MANIFESTS: dict[tuple[str, str], list[tuple[str, str]]] = {}


def put_canonical(connection: Any, stage: str) -> int:
    """Put the canonical file of `stage` into the test's database, in a transaction (the test's
    own when it has one: rolled back with it; a transactional test's database is put back to
    the seeded one afterwards anyway): its rows added, the seeded rows it changed replaced, the
    triggers off meanwhile (the audit head moves to the file's last entry); its receipts into
    the receipts' storage. The file's application id."""
    from django.core.files.base import ContentFile
    from django.core.files.storage import storages
    from django.db import transaction

    from jobgrant.service.audit import append_only

    key = (connection.alias, stage)
    if key not in _MANIFESTS:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT tbl, pk FROM {_kept(connection, 'manifest')} WHERE stage = %s ORDER BY n",
                [stage],
            )
            _MANIFESTS[key] = [(table, pk) for table, pk in cursor.fetchall()]
    if not _MANIFESTS[key]:
        raise LookupError(f"no canonical file of the stage {stage!r} in the seeded database")
    postgresql = connection.vendor == "postgresql"
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT min(sequence) FROM {_kept(connection, f'{stage}__audit_auditentry')})"
            ' - (SELECT sequence FROM "audit_audithead" WHERE id = 1)'
        )
        if cursor.fetchone()[0] != 1:
            raise RuntimeError(
                "a canonical file goes in first, before the test writes to the audit trail,"
                f" and one a test: its entries continue the seeded chain ({stage})"
            )
        if postgresql:
            cursor.execute("SET LOCAL session_replication_role = replica")
        else:
            append_only.uninstall(connection)
        for table, pk in _MANIFESTS[key]:
            kept, main = _kept(connection, f"{stage}__{table}"), _main(connection, table)
            cursor.execute(f"DELETE FROM {main} WHERE {pk} IN (SELECT {pk} FROM {kept})")
            cursor.execute(f"INSERT INTO {main} SELECT * FROM {kept}")
        if postgresql:
            cursor.execute("SET LOCAL session_replication_role = origin")
        else:
            append_only.install(connection)
        cursor.execute(f"SELECT name, content FROM {_kept(connection, f'{stage}__{FILES_TABLE}')}")
        files = cursor.fetchall()
        cursor.execute(f"SELECT id FROM {_kept(connection, f'{stage}__grants_application')}")
        (application_id,) = cursor.fetchone()
    storage = storages["receipts"]
    for name, content in files:
        if not storage.exists(name):
            assert storage.save(name, ContentFile(bytes(content))) == name
    return int(application_id)


# --- Both ----------------------------------------------------------------------------------


def _in_a_process(database_url: str, what: str) -> None:
    """Seed `database_url` (or load the history into it) in a process of its own, with the
    tests' settings."""
    environment = {
        **os.environ,
        "JOBGRANT_DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "jobgrant.service.test_settings",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    command = [sys.executable, "-m", "tests.seeded", what]
    subprocess.run(command, env=environment, check=True, cwd=ROOT)


def _seed_and_keep() -> None:
    import django

    django.setup()
    from django.db import connection

    seed_here()
    if connection.vendor == "postgresql":
        keep_snapshot(connection)
    make_canonical(connection)
    connection.close()


def _load_history() -> None:
    import django
    import time_machine

    django.setup()
    from django.db import connection

    from jobgrant.service.demo_history.load import seed_history

    with time_machine.travel(NOW, tick=True):
        seed_history()
    connection.close()


def build(postgres_urls: list[str]) -> None:
    """`make test`: the seeded SQLite file and, for each PostgreSQL URL, the seeded template."""
    import time

    import django

    django.setup()
    from django.conf import settings

    from jobgrant.service.settings import database_from_url

    started = time.perf_counter()
    build = Path(settings.JOBGRANT_BUILD_DIR)
    # Each template is seeded by a process of its own: the PostgreSQL ones beside the SQLite
    # file and its history, which wait on each other (one after the other: 50 to 55 s of wall).
    with ThreadPoolExecutor() as pool:
        templates = [pool.submit(postgres_seeded, database_from_url(url)) for url in postgres_urls]
        made: list[object] = [sqlite_seeded(build), sqlite_history(build)]
        made += [template.result() for template in templates]
    print(f"Seeded in {time.perf_counter() - started:.1f} s: {', '.join(map(str, made))}")


if __name__ == "__main__":  # python -m tests.seeded [POSTGRES_URL ...]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jobgrant.service.test_settings")
    if sys.argv[1:] == ["--seed-here"]:
        _seed_and_keep()
    elif sys.argv[1:] == ["--history-here"]:
        _load_history()
    else:
        build(sys.argv[1:])
