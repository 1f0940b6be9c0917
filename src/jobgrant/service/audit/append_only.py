"""The database itself refuses to change or remove audit entries (ASVS 16.4.2).

Triggers reject UPDATE and DELETE (and, on PostgreSQL, TRUNCATE) of audit entries, and let the
chain head only advance, one entry at a time, to the entry just appended. The application's
connection therefore cannot rewrite history even through raw SQL; only someone who can disable
triggers (a PostgreSQL superuser or the table owner, whoever holds the SQLite file) can, and the
hash chain makes that visible to `jobgrant audit verify`.

`lifted()` is for wiping a whole database (`manage.py flush`, which tests run between
transactional tests); nothing in the application calls it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction
from django.db.backends.base.base import BaseDatabaseWrapper

ENTRIES = "audit_auditentry"
HEAD = "audit_audithead"
REFUSED = "audit entries are append-only"
HEAD_REFUSED = "the audit head only advances to the entry just appended"

_HEAD_ADVANCES = (
    "NEW.id = OLD.id AND NEW.sequence = OLD.sequence + 1 AND EXISTS "
    f"(SELECT 1 FROM {ENTRIES} e WHERE e.sequence = NEW.sequence AND e.hash = NEW.hash)"
)

POSTGRESQL_INSTALL = [
    f"""CREATE OR REPLACE FUNCTION jobgrant_audit_refuse() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION '{REFUSED}: % on % refused', TG_OP, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END $$""",
    f"""CREATE OR REPLACE FUNCTION jobgrant_audit_head_advance() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF {_HEAD_ADVANCES} THEN
            RETURN NEW;
        END IF;
        RAISE EXCEPTION '{HEAD_REFUSED}' USING ERRCODE = 'insufficient_privilege';
    END $$""",
    f"""CREATE TRIGGER audit_entry_append_only BEFORE UPDATE OR DELETE ON {ENTRIES}
    FOR EACH ROW EXECUTE FUNCTION jobgrant_audit_refuse()""",
    f"""CREATE TRIGGER audit_entry_no_truncate BEFORE TRUNCATE ON {ENTRIES}
    FOR EACH STATEMENT EXECUTE FUNCTION jobgrant_audit_refuse()""",
    f"""CREATE TRIGGER audit_head_advance_only BEFORE UPDATE ON {HEAD}
    FOR EACH ROW EXECUTE FUNCTION jobgrant_audit_head_advance()""",
    f"""CREATE TRIGGER audit_head_no_delete BEFORE DELETE ON {HEAD}
    FOR EACH ROW EXECUTE FUNCTION jobgrant_audit_refuse()""",
    f"""CREATE TRIGGER audit_head_no_truncate BEFORE TRUNCATE ON {HEAD}
    FOR EACH STATEMENT EXECUTE FUNCTION jobgrant_audit_refuse()""",
]
POSTGRESQL_UNINSTALL = [
    f"DROP TRIGGER IF EXISTS audit_entry_append_only ON {ENTRIES}",
    f"DROP TRIGGER IF EXISTS audit_entry_no_truncate ON {ENTRIES}",
    f"DROP TRIGGER IF EXISTS audit_head_advance_only ON {HEAD}",
    f"DROP TRIGGER IF EXISTS audit_head_no_delete ON {HEAD}",
    f"DROP TRIGGER IF EXISTS audit_head_no_truncate ON {HEAD}",
    "DROP FUNCTION IF EXISTS jobgrant_audit_head_advance()",
    "DROP FUNCTION IF EXISTS jobgrant_audit_refuse()",
]

SQLITE_TRIGGERS = {
    "audit_entry_no_update": f"""BEFORE UPDATE ON {ENTRIES}
    BEGIN SELECT RAISE(ABORT, '{REFUSED}: UPDATE on {ENTRIES} refused'); END""",
    "audit_entry_no_delete": f"""BEFORE DELETE ON {ENTRIES}
    BEGIN SELECT RAISE(ABORT, '{REFUSED}: DELETE on {ENTRIES} refused'); END""",
    "audit_head_advance_only": f"""BEFORE UPDATE ON {HEAD} WHEN NOT ({_HEAD_ADVANCES})
    BEGIN SELECT RAISE(ABORT, '{HEAD_REFUSED}'); END""",
    "audit_head_no_delete": f"""BEFORE DELETE ON {HEAD}
    BEGIN SELECT RAISE(ABORT, '{REFUSED}: DELETE on {HEAD} refused'); END""",
}
SQLITE_INSTALL = [f"CREATE TRIGGER {name} {body}" for name, body in SQLITE_TRIGGERS.items()]
SQLITE_UNINSTALL = [f"DROP TRIGGER IF EXISTS {name}" for name in SQLITE_TRIGGERS]

# Disabling needs the table's owner (PostgreSQL) and is undone when the transaction ends badly.
POSTGRESQL_DISABLE = [f"ALTER TABLE {table} DISABLE TRIGGER USER" for table in (ENTRIES, HEAD)]
POSTGRESQL_ENABLE = [f"ALTER TABLE {table} ENABLE TRIGGER USER" for table in (ENTRIES, HEAD)]


def _run(connection: BaseDatabaseWrapper, statements: list[str]) -> None:
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)  # no parameters: '%' in the SQL stays literal


def _statements(connection: BaseDatabaseWrapper, *, install: bool) -> list[str]:
    if connection.vendor == "postgresql":
        return POSTGRESQL_INSTALL if install else POSTGRESQL_UNINSTALL
    if connection.vendor == "sqlite":
        return SQLITE_INSTALL if install else SQLITE_UNINSTALL
    raise NotImplementedError(f"no append-only triggers for {connection.vendor}")


def install(connection: BaseDatabaseWrapper) -> None:
    _run(connection, _statements(connection, install=True))


def uninstall(connection: BaseDatabaseWrapper) -> None:
    _run(connection, _statements(connection, install=False))


@contextmanager
def lifted(connection: BaseDatabaseWrapper) -> Iterator[None]:
    """Suspend the guard inside one transaction (to wipe the database); it is back afterwards."""
    with transaction.atomic(using=connection.alias):
        if ENTRIES not in connection.introspection.table_names():  # not migrated yet
            yield
        elif connection.vendor == "postgresql":
            _run(connection, POSTGRESQL_DISABLE)
            yield
            _run(connection, POSTGRESQL_ENABLE)
        else:
            uninstall(connection)
            yield
            install(connection)
