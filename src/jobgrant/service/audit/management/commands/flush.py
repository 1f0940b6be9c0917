"""`flush` that can empty the append-only audit tables: the triggers are lifted while it runs.

Django's test runner flushes the database after each transactional test, and a developer may
wipe a development database; both are whole-database resets, never an edit of the history.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import flush
from django.db import connections

from jobgrant.service.audit.append_only import lifted


class Command(flush.Command):
    def handle(self, **options: Any) -> None:
        with lifted(connections[options["database"]]):
            super().handle(**options)
