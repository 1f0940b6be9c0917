"""Fresh databases start as a copy of one migrated once per content of the code.

Migrating an empty database runs every migration (SQLite rebuilds a table for most changes of a
column): 6 to 8 s of CPU, which every server started on a fresh SQLite file (the fuzzing, the outbox
reliability run, `make run`, the tests that start `jobgrant serve`) and every test process (its test
database, SQLite or PostgreSQL) spent. So one database is migrated once into the build directory
(settings.JOBGRANT_BUILD_DIR), and a fresh SQLite database is a copy of its file; the tests'
PostgreSQL databases are created from a template database migrated the same way (CREATE DATABASE ...
TEMPLATE, tests/conftest.py). `migrate` still runs after the copy: it finds everything applied.

A template is named by a digest of everything a fresh migration's result depends on: the
migration files of every installed app, the service's own code (a migration's RunPython may
call it, as the audit trail's triggers do), Django's version, the installed apps and the cache
settings (the rate limits' cache table is made by a migration). Any change of those is a new
template, never a stale one.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from jobgrant.service.static_files import installed_version, locked

# Templates of other digests kept beside the newest (a developer switching branches).
KEPT_TEMPLATES = 4


def digest() -> str:
    """What a freshly migrated database depends on (the module's docstring), as a hex digest."""
    from django.apps import apps
    from django.conf import settings

    import jobgrant.service

    hashed = hashlib.sha256(
        repr(
            [installed_version("django"), settings.INSTALLED_APPS, settings.CACHES, settings.USE_TZ]
        ).encode()
    )
    directories = {"jobgrant.service": Path(jobgrant.service.__file__).parent}
    for app in apps.get_app_configs():
        spec = importlib.util.find_spec(f"{app.name}.migrations")
        if spec is not None and spec.submodule_search_locations:
            directories[f"{app.name}.migrations"] = Path(spec.submodule_search_locations[0])
    for package, directory in sorted(directories.items()):
        for path in sorted(directory.rglob("*.py")):
            hashed.update(f"{package}/{path.relative_to(directory)}".encode() + b"\0")
            hashed.update(hashlib.sha256(path.read_bytes()).digest())
    return hashed.hexdigest()


# --- SQLite: a file copied --------------------------------------------------------------------


def start_from_template(database: Path) -> bool:
    """Make a fresh SQLite database at `database` a copy of the migrated template (built now if
    missing); False, touching nothing, when the database is not fresh or there is no build
    directory (production). Called before Django opens the database."""
    from django.conf import settings

    if settings.JOBGRANT_BUILD_DIR is None or not _is_fresh(database):
        return False
    copy_into_place(sqlite_template(Path(settings.JOBGRANT_BUILD_DIR) / "migrated"), database)
    return True


def copy_into_place(source: Path, database: Path) -> None:
    """`database` (not yet opened) becomes a copy of the single-file SQLite `source`."""
    partial = database.with_name(database.name + ".copying")
    shutil.copyfile(source, partial)
    for leftover in ("-wal", "-shm", "-journal"):  # of an empty database: nothing in them
        database.with_name(database.name + leftover).unlink(missing_ok=True)
    partial.rename(database)


def sqlite_template(directory: Path) -> Path:
    """The migrated SQLite file of the current digest, migrated now (in a process of its own,
    its database URL the template's) if it is not there yet."""
    return built_once(directory, digest(), lambda building: _migrate(f"sqlite:///{building}"))


def built_once(directory: Path, name: str, make: Callable[[Path], None]) -> Path:
    """`directory/name.sqlite3`, made by `make(file)` if it is not there yet. Processes starting
    at once take turns on a lock; the file is renamed into place only once made (its write-ahead
    log folded in), so a process killed half-way leaves nothing that looks finished."""
    done = directory / f"{name}.sqlite3"
    if done.exists():
        return done
    directory.mkdir(parents=True, exist_ok=True)
    with locked(directory / ".lock"):
        if done.exists():
            return done
        _remove_old(directory)
        building = directory / f"{name}.building.sqlite3"
        make(building)
        _single_file(building)
        building.rename(done)
    return done


def _is_fresh(database: Path) -> bool:
    if not database.exists() or database.stat().st_size == 0:
        return True
    connection = sqlite3.connect(database)
    try:
        (tables,) = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
    finally:
        connection.close()
    return int(tables) == 0


def _single_file(database: Path) -> None:
    """Fold the write-ahead log into the file, so that the file alone is the database."""
    connection = sqlite3.connect(database)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    for leftover in ("-wal", "-shm"):
        database.with_name(database.name + leftover).unlink(missing_ok=True)


# --- PostgreSQL: a template database ----------------------------------------------------------


def postgres_template(settings_dict: dict[str, object]) -> str | None:
    """The name of a database on `settings_dict`'s server migrated at the current digest, to
    create the tests' databases from; made now if missing. None without a build directory."""
    import psycopg
    from django.conf import settings

    if settings.JOBGRANT_BUILD_DIR is None:
        return None
    name = f"{settings_dict['NAME']}_migrated_{digest()[:16]}"
    with psycopg.connect(_maintenance_url(settings_dict), autocommit=True) as server:
        server.execute("SELECT pg_advisory_lock(hashtext(%s))", [name])
        if not _database_exists(server, name):
            _make_postgres_template(server, settings_dict, name)
    return name


def _make_postgres_template(server: object, settings_dict: dict[str, object], name: str) -> None:
    import psycopg
    from psycopg import sql

    assert isinstance(server, psycopg.Connection)
    building = f"{name}_building"
    drop_old_databases(server, f"{settings_dict['NAME']}_migrated_")
    server.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(building)))
    _migrate(_url(settings_dict, building))
    _wait_until_unused(server, building)
    server.execute(
        sql.SQL("ALTER DATABASE {} RENAME TO {}").format(
            sql.Identifier(building), sql.Identifier(name)
        )
    )


def drop_old_databases(server: object, prefix: str) -> None:
    """The databases named `prefix…` left half-built, and all but the newest KEPT_TEMPLATES
    finished ones (another checkout of the same database name may be creating its tests'
    databases from one); one in use is left for later."""
    import psycopg
    from psycopg import sql

    assert isinstance(server, psycopg.Connection)
    found = [
        database
        for (database,) in server.execute(
            "SELECT datname FROM pg_database WHERE starts_with(datname, %s) ORDER BY oid DESC",
            [prefix],
        ).fetchall()
    ]
    unfinished = [database for database in found if database.endswith("_building")]
    finished = [database for database in found if database not in unfinished]
    for old in unfinished + finished[KEPT_TEMPLATES:]:
        with contextlib.suppress(psycopg.errors.ObjectInUse):
            server.execute(sql.SQL("DROP DATABASE {}").format(sql.Identifier(old)))


def _wait_until_unused(server: object, name: str) -> None:
    """Until the server has ended the migrating process's session (it ends it just after the
    process exits): renaming a database, or copying it, is refused while anyone is on it."""
    import time

    import psycopg

    assert isinstance(server, psycopg.Connection)
    for _ in range(100):
        sessions = server.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [name]
        ).fetchone()
        if sessions is None or sessions[0] == 0:
            return
        time.sleep(0.1)


def _database_exists(server: object, name: str) -> bool:
    import psycopg

    assert isinstance(server, psycopg.Connection)
    found = server.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
    return found is not None


def _url(settings_dict: dict[str, object], name: str) -> str:
    from urllib.parse import quote

    user = quote(str(settings_dict.get("USER") or ""))
    password = quote(str(settings_dict.get("PASSWORD") or ""))
    credentials = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = settings_dict.get("HOST") or "localhost"
    port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
    return f"postgresql://{credentials}{host}{port}/{name}"


def _maintenance_url(settings_dict: dict[str, object]) -> str:
    return _url(settings_dict, "postgres")


# --- Both -------------------------------------------------------------------------------------


def _migrate(database_url: str) -> None:
    """`migrate` on `database_url` in a process of its own, with this process's settings."""
    environment = {
        **os.environ,
        "JOBGRANT_DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": os.environ.get(
            "DJANGO_SETTINGS_MODULE", "jobgrant.service.settings"
        ),
    }
    command = [sys.executable, "-m", "django", "migrate", "--verbosity", "0", "--no-input"]
    subprocess.run(command, env=environment, check=True)


def _remove_old(directory: Path) -> None:
    """Under the lock: files half-built by a killed process, and all but the newest
    KEPT_TEMPLATES finished templates."""
    for unfinished in directory.glob("*.building.sqlite3*"):
        unfinished.unlink(missing_ok=True)
    finished = sorted(
        directory.glob("*.sqlite3"), key=lambda path: path.stat().st_mtime, reverse=True
    )
    for old in finished[KEPT_TEMPLATES:]:
        old.unlink(missing_ok=True)
