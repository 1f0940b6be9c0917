"""Migrations once per release: `jobgrant migrate`, then `jobgrant serve --no-migrate`.

A server started with --no-migrate on a database its code is ahead of refuses to start and
says what to run; `jobgrant migrate` brings the database up to date (and says so again, a no-op,
when run twice). Real processes on a real SQLite file.
"""

from __future__ import annotations

import os
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
        timeout=300,
        check=False,
    )


def test_serve_no_migrate_refuses_a_database_behind_until_migrate_has_run(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "jobgrant.service.settings",
        "JOBGRANT_ENV": "development",
        "JOBGRANT_VAR_DIR": str(tmp_path),
        "JOBGRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'release.sqlite3'}",
    }
    refused = _run("serve", "--no-migrate", "--port", "1", env=env)
    assert refused.returncode == 1
    assert "The database is behind this release" in refused.stderr
    assert "Run `jobgrant migrate` once, then start the servers." in refused.stderr

    for _ in range(2):
        migrated = _run("migrate", env=env)
        assert migrated.returncode == 0, migrated.stderr
        assert migrated.stdout.strip() == "The database is up to date."
