"""`jobgrant audit verify` run as a separate process against a committed, tampered database.

It lives apart from test_audit_tamper.py because it commits: that module keeps one long
transaction open around its chain.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection, transaction
from tests.personas import OFFICER

from jobgrant.service.audit.append_only import lifted
from jobgrant.service.audit.chain import record
from jobgrant.service.audit.models import AuditEntry


def database_url() -> str:
    """The test database, as JOBGRANT_DATABASE_URL spells it, for a separate process."""
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    user = settings["USER"] + (f":{settings['PASSWORD']}" if settings["PASSWORD"] else "")
    return f"postgresql://{user}@{settings['HOST']}:{settings['PORT']}/{settings['NAME']}"


@pytest.mark.django_db(transaction=True)
def test_the_installed_command_names_a_deleted_entry_in_the_database(demo: None) -> None:
    with transaction.atomic():
        for i in range(50):
            record(OFFICER.username, "application.submit", "application", i, {"i": i})
    total = AuditEntry.objects.count()
    with lifted(connection):  # as the tables' owner
        AuditEntry.objects.filter(sequence=total - 10).delete()
    done = subprocess.run(
        [str(Path(sys.executable).with_name("jobgrant")), "audit", "verify"],
        env={**os.environ, "JOBGRANT_DATABASE_URL": database_url()},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert f"audit chain broken at entry {total - 10}: entry {total - 10} is missing" in (
        done.stdout
    )
