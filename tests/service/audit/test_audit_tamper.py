"""T10: the database refuses to change audit entries, and any tampering is named at its entry.

A chain of JOBGRANT_AUDIT_ENTRIES entries (default 3,000; the T10 figure is 100,000) is built with
`record()`; then JOBGRANT_AUDIT_TRIALS trials per kind (default 25; T10: 100) each tamper with one
random entry as someone who can bypass the triggers would (the PostgreSQL superuser's
`session_replication_role = replica`; dropping the triggers in the SQLite file), and `verify()`
must name exactly that entry. Each trial runs in a savepoint that is rolled back.
"""

from __future__ import annotations

import datetime as dt
import os
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.models import F
from tests.personas import AUDITOR, FINANCE, OFFICER, SECOND_OFFICER
from typer.testing import CliRunner

from jobgrant.cli.app import app
from jobgrant.service.audit import append_only
from jobgrant.service.audit.chain import GENESIS, entry_hash, record, verify
from jobgrant.service.audit.models import AuditEntry, AuditHead

ENTRIES = int(os.environ.get("JOBGRANT_AUDIT_ENTRIES", "3000"))
TRIALS = int(os.environ.get("JOBGRANT_AUDIT_TRIALS", "25"))
OFFSET = 10**12  # parks renumbered entries out of the way of the unique sequence numbers
ACTORS = [OFFICER.username, SECOND_OFFICER.username, FINANCE.username, "Zoë Lévesque-Tremblay"]
ACTIONS = ["application.submit", "application.approve", "budget.allocate", "trainee.view_sin"]


def build_chain(count: int, seed: int = 2013) -> None:
    """Append `count` varied entries, in one transaction, the way actions do."""
    rng = random.Random(seed)
    with transaction.atomic():
        for i in range(count):
            summary: dict[str, Any] = {
                "state": rng.choice(["submitted", "approved", "denied"]),
                "federal_cents": rng.randrange(10**9),
                "note": rng.choice(["", "ok", "Révisé — « urgent »", "a\nb"]),
                "tags": [i % 7, None, True],
            }
            # object ids no file has: the seed's ranked intake has files 1 to 9, whose notes
            # `audit verify` checks against their history
            record(rng.choice(ACTORS), rng.choice(ACTIONS), "application", 10**6 + i, summary)


@pytest.fixture(scope="module")
def chain(django_db_setup: None, django_db_blocker: Any) -> Iterator[int]:
    """One chain for the whole module, inside a transaction that is rolled back at the end."""
    with django_db_blocker.unblock(), transaction.atomic():
        build_chain(ENTRIES)
        yield AuditEntry.objects.count()
        transaction.set_rollback(True)


@contextmanager
def superuser() -> Iterator[None]:
    """What only a database superuser (or the SQLite file's holder) can do: bypass the guard."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL session_replication_role = replica")
            yield
            cursor.execute("SET LOCAL session_replication_role = origin")
    else:
        append_only.uninstall(connection)
        yield
        append_only.install(connection)


def entry(sequence: int) -> AuditEntry:
    return AuditEntry.objects.get(sequence=sequence)


def edit(sequence: int, rng: random.Random) -> int:
    """Change one field of the entry, leaving its hash alone."""
    changes: dict[str, Any] = rng.choice(
        [
            {"actor": "intruder"},
            {"action": "application.deny"},
            {"object_id": "999999"},
            {"summary": {"state": "approved", "federal_cents": 1}},
            {"at": entry(sequence).at + dt.timedelta(seconds=1)},
        ]
    )
    AuditEntry.objects.filter(sequence=sequence).update(**changes)
    return sequence


def rewrite(sequence: int, rng: random.Random) -> int:
    """Change the entry's content and give it the hash that content deserves."""
    forged = entry(sequence)
    forged.summary = {**forged.summary, "federal_cents": rng.randrange(10**9)}
    forged.hash = entry_hash(forged.previous_hash, content(forged))
    AuditEntry.objects.filter(pk=forged.pk).update(summary=forged.summary, hash=forged.hash)
    return sequence


def delete(sequence: int, rng: random.Random) -> int:
    AuditEntry.objects.filter(sequence=sequence).delete()
    return sequence


def insert(sequence: int, rng: random.Random) -> int:
    """Slip a well-formed entry in at `sequence`, chained to the one before, renumbering after."""
    later = AuditEntry.objects.filter(sequence__gte=sequence)
    later.update(sequence=F("sequence") + OFFSET)
    AuditEntry.objects.filter(sequence__gte=OFFSET).update(sequence=F("sequence") - OFFSET + 1)
    previous = AuditEntry.objects.filter(sequence=sequence - 1).first()
    forged = AuditEntry(
        sequence=sequence,
        at=dt.datetime(2026, 11, 29, 12, tzinfo=dt.UTC),
        actor="intruder",
        action="application.approve",
        object_type="application",
        object_id="1",
        summary={"state": "approved"},
        previous_hash=previous.hash if previous else GENESIS,
    )
    forged.hash = entry_hash(forged.previous_hash, content(forged))
    forged.save()
    return sequence


def reorder(sequence: int, rng: random.Random) -> int:
    """Swap the entry with a later one."""
    last = AuditEntry.objects.count()
    if sequence == last:
        sequence -= 1
    other = rng.randint(sequence + 1, last)
    AuditEntry.objects.filter(sequence=sequence).update(sequence=OFFSET)
    AuditEntry.objects.filter(sequence=other).update(sequence=sequence)
    AuditEntry.objects.filter(sequence=OFFSET).update(sequence=other)
    return sequence


def content(forged: AuditEntry) -> dict[str, Any]:
    return {
        "sequence": forged.sequence,
        "at": forged.at.isoformat(),
        "actor": forged.actor,
        "action": forged.action,
        "object_type": forged.object_type,
        "object_id": forged.object_id,
        "summary": forged.summary,
    }


TAMPERINGS: dict[str, Callable[[int, random.Random], int]] = {
    "edit": edit,
    "rewrite": rewrite,
    "delete": delete,
    "insert": insert,
    "reorder": reorder,
}


def detected_at_the_tampered_entry(kind: str, total: int, seed: int) -> tuple[int, list[str]]:
    """Run the trials; return how many were flagged, and what went wrong with the others."""
    rng, flagged, misses = random.Random(seed), 0, []
    last = total + 1 if kind == "insert" else total  # an insert may also go after the last entry
    for _ in range(TRIALS):
        target = rng.randint(1, last)
        with transaction.atomic():
            with superuser():
                tampered = TAMPERINGS[kind](target, rng)
            result = verify()
            transaction.set_rollback(True)
        if result.first_broken == tampered:
            flagged += 1
        else:
            misses.append(f"{kind} at {tampered}: verify said {result}")
    return flagged, misses


@pytest.mark.parametrize("kind", TAMPERINGS)
def test_verify_names_the_tampered_entry_in_every_trial(db: None, chain: int, kind: str) -> None:
    assert verify().ok, "the chain must start intact"
    flagged, misses = detected_at_the_tampered_entry(
        kind, chain, seed=sorted(TAMPERINGS).index(kind)
    )
    assert misses == []
    assert flagged == TRIALS
    assert verify().ok, "each trial was rolled back"


def test_the_intact_chain_verifies_end_to_end(db: None, chain: int) -> None:
    result = verify()
    assert result.ok
    assert result.checked == chain == AuditHead.objects.get().sequence


# The database refuses the application's own connection.


def test_the_database_refuses_to_update_an_audit_entry(db: None, chain: int) -> None:
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        AuditEntry.objects.filter(sequence=5).update(actor="intruder")
    assert entry(5).actor != "intruder"


def test_the_database_refuses_to_save_changes_to_an_audit_entry(db: None, chain: int) -> None:
    changed = entry(7)
    changed.summary = {"state": "approved"}
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        changed.save()


def test_the_database_refuses_to_delete_an_audit_entry(db: None, chain: int) -> None:
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        AuditEntry.objects.filter(sequence=chain).delete()
    assert AuditEntry.objects.count() == chain


def test_the_database_refuses_raw_sql_that_renumbers_entries(db: None, chain: int) -> None:
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("UPDATE audit_auditentry SET sequence = sequence + 1000000")
    assert verify().ok


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLSTATE is PostgreSQL's")
def test_postgresql_answers_the_refusal_as_insufficient_privilege(db: None, chain: int) -> None:
    with pytest.raises(DatabaseError) as error, transaction.atomic():
        AuditEntry.objects.filter(sequence=3).delete()
    assert error.value.__cause__.sqlstate == "42501"  # type: ignore[union-attr]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="TRUNCATE is PostgreSQL's")
def test_the_database_refuses_to_truncate_the_audit_trail(db: None, chain: int) -> None:
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("TRUNCATE audit_auditentry CASCADE")
    assert AuditEntry.objects.count() == chain


def test_the_database_refuses_to_wind_the_chain_head_back(db: None, chain: int) -> None:
    with pytest.raises(DatabaseError, match="only advances"), transaction.atomic():
        AuditHead.objects.filter(pk=1).update(sequence=chain - 1)


def test_the_database_refuses_a_chain_head_that_skips_ahead(db: None, chain: int) -> None:
    with pytest.raises(DatabaseError, match="only advances"), transaction.atomic():
        AuditHead.objects.filter(pk=1).update(sequence=chain + 1, hash="f" * 64)


def test_the_database_refuses_to_delete_the_chain_head(db: None, chain: int) -> None:
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        AuditHead.objects.all().delete()


def test_appending_still_works_with_the_guard_in_place(db: None, chain: int) -> None:
    with transaction.atomic():
        appended = record(AUDITOR.username, "kpis.refresh", "kpis", 0, {"ok": True})
    assert appended.sequence == chain + 1
    assert verify().ok


# `jobgrant audit verify`


def test_the_verify_command_exits_0_and_counts_the_entries_when_intact(
    db: None, chain: int
) -> None:
    result = CliRunner().invoke(app, ["audit", "verify"])
    assert result.exit_code == 0
    assert f"audit chain intact: {chain} entries verified" in result.output


def test_the_verify_command_exits_1_naming_the_edited_entry(db: None, chain: int) -> None:
    with superuser():
        AuditEntry.objects.filter(sequence=1234 % chain).update(actor="intruder")
    result = CliRunner().invoke(app, ["audit", "verify"])
    assert result.exit_code == 1
    assert f"audit chain broken at entry {1234 % chain}: its content does not match" in (
        result.output
    )
