"""`jobgrant demo-history` (what `make run`'s worker does first) on a fresh SQLite file: it
migrates, loads the demonstration data and a (small) history, says so; run again it adds
nothing; the ledger and the audit chain verify afterwards. Real processes on a real file."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

JOBGRANT = Path(sys.executable).with_name("jobgrant")


def _run(*arguments: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(JOBGRANT), *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def _count(database: Path, table: str) -> int:
    with sqlite3.connect(database) as connection:
        return int(connection.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0])


def test_the_history_loads_once_on_a_fresh_database_and_verifies(tmp_path: Path) -> None:
    database = tmp_path / "fresh.sqlite3"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "jobgrant.service.settings",
        "JOBGRANT_ENV": "development",
        "JOBGRANT_VAR_DIR": str(tmp_path),
        "JOBGRANT_DATABASE_URL": f"sqlite:///{database}",
    }
    small = ("demo-history", "--seed", "7", "--files-per-year", "ON=1")
    first = _run(*small, env=env)
    assert first.returncode == 0, first.stderr
    assert "Loaded the demonstration data" in first.stdout
    assert "demonstration history: loaded 4 files" in first.stdout
    applications = _count(database, "grants_application")

    again = _run(*small, env=env)
    assert again.returncode == 0, again.stderr
    assert "demonstration history: already loaded" in again.stdout
    assert _count(database, "grants_application") == applications

    ledger = _run("ledger", "verify", env=env)
    assert ledger.returncode == 0 and "ledger balanced" in ledger.stdout, ledger.stdout
    audit = _run("audit", "verify", env=env)
    assert audit.returncode == 0 and "audit chain intact" in audit.stdout, audit.stdout


def test_a_bad_size_names_the_option(tmp_path: Path) -> None:
    env = {**os.environ, "JOBGRANT_VAR_DIR": str(tmp_path)}
    refused = _run("demo-history", "--files-per-year", "ON", env=env)
    assert refused.returncode == 2
    assert "--files-per-year" in refused.stderr
