"""Appending to and verifying the hash chain.

hash(entry) = SHA-256(previous hash ‖ canonical JSON of the entry's fields). Editing, deleting,
inserting or reordering any entry breaks the chain at that entry, which `verify` names.
Appends lock the single head row (SELECT ... FOR UPDATE) in the caller's transaction, so
concurrent actions are chained in commit order and an action and its entry commit together.
Every action waits for that row, so on PostgreSQL an append is one statement: it locks the
head, inserts the entry with its hash computed by the database (SHA-256 of the same canonical
JSON, which Python writes around the sequence number) and advances the head.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.db import connection, transaction
from django.utils import timezone

from jobgrant.service.audit.codes import check
from jobgrant.service.audit.models import AuditEntry, AuditHead
from jobgrant.service.observability import request_id

GENESIS = "0" * 64


def canonical(fields: dict[str, Any]) -> str:
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def entry_hash(previous_hash: str, fields: dict[str, Any]) -> str:
    return hashlib.sha256((previous_hash + canonical(fields)).encode()).hexdigest()


def around_sequence(fields: dict[str, Any]) -> tuple[str, str]:
    """The canonical JSON of an entry's fields but its sequence number, as the text before and
    after that number: canonical(fields) == before + str(sequence) + after. (Keys are sorted,
    and "sequence" is followed only by "summary".)"""
    rest = {k: v for k, v in fields.items() if k not in ("sequence", "summary")}
    before = canonical(rest)[:-1] + ',"sequence":'
    return before, ',"summary":' + canonical(fields["summary"]) + "}"


def _fields(entry: AuditEntry) -> dict[str, Any]:
    return {
        "sequence": entry.sequence,
        "at": entry.at.isoformat(),
        "actor": entry.actor,
        "action": entry.action,
        "object_type": entry.object_type,
        "object_id": entry.object_id,
        "summary": entry.summary,
    }


def record(
    actor: str, action: str, obj_type: str, obj_id: object, summary: dict[str, Any]
) -> AuditEntry:
    """Append an entry; must run inside the transaction of the change it records. The actor is
    always named, and the action and the object type are declared in `audit.codes`."""
    check(actor, action, obj_type)
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("audit entries are written in the transaction of their change")
    entry = AuditEntry(
        at=timezone.now(),
        actor=actor,
        action=action,
        object_type=obj_type,
        object_id=str(obj_id),
        summary=summary,
        request_id=request_id.current() or None,
    )
    if connection.vendor == "postgresql" and _append_in_one_statement(entry):
        return entry
    head, _ = AuditHead.objects.select_for_update().get_or_create(pk=1)
    entry.sequence, entry.previous_hash = head.sequence + 1, head.hash
    entry.hash = entry_hash(head.hash, _fields(entry))
    entry.save()
    head.sequence, head.hash = entry.sequence, entry.hash
    head.save(update_fields=["sequence", "hash"])
    return entry


_ENTRIES, _HEAD = AuditEntry._meta.db_table, AuditHead._meta.db_table
_APPEND_SQL = f"""WITH head AS (
    SELECT "sequence" + 1 AS "next", "hash" AS "previous" FROM "{_HEAD}" WHERE "id" = 1 FOR UPDATE
), entry AS (
    INSERT INTO "{_ENTRIES}" ("sequence", "at", "actor", "action", "object_type", "object_id",
                              "summary", "request_id", "previous_hash", "hash")
    SELECT "next", %s, %s, %s, %s, %s, %s::jsonb, %s, "previous",
           encode(sha256(convert_to("previous" || %s || "next"::text || %s, 'UTF8')), 'hex')
    FROM head
    RETURNING "id", "sequence", "previous_hash", "hash"
)
UPDATE "{_HEAD}" SET "sequence" = entry."sequence", "hash" = entry."hash" FROM entry
WHERE "{_HEAD}"."id" = 1
RETURNING entry."id", entry."sequence", entry."previous_hash", entry."hash"
"""


def _append_in_one_statement(entry: AuditEntry) -> bool:
    """Lock the head, insert `entry` chained to it and advance the head, in one statement
    (PostgreSQL; the head's trigger sees the entry inserted by the same statement). False, with
    nothing written, if there is no head row yet."""
    before, after = around_sequence(_fields(entry) | {"sequence": 0})
    with connection.cursor() as cursor:
        cursor.execute(
            _APPEND_SQL,
            [
                entry.at,
                entry.actor,
                entry.action,
                entry.object_type,
                entry.object_id,
                json.dumps(entry.summary),
                entry.request_id,
                before,
                after,
            ],
        )
        row = cursor.fetchone()
    if row is None:
        return False
    entry.pk, entry.sequence, entry.previous_hash, entry.hash = row
    entry._state.adding = False
    return True


@dataclass(frozen=True)
class Verification:
    checked: int  # entries verified before the first broken one
    first_broken: int | None  # sequence number of the first entry that does not verify
    problem: str

    @property
    def ok(self) -> bool:
        return self.first_broken is None


class _Row(NamedTuple):
    sequence: int
    at: dt.datetime
    actor: str
    action: str
    object_type: str
    object_id: str
    summary: dict[str, Any]
    previous_hash: str
    hash: str

    def content(self, sequence: int | None = None) -> dict[str, Any]:
        """The hashed fields, optionally as if the entry had another sequence number."""
        return {
            "sequence": self.sequence if sequence is None else sequence,
            "at": self.at.isoformat(),
            "actor": self.actor,
            "action": self.action,
            "object_type": self.object_type,
            "object_id": self.object_id,
            "summary": self.summary,
        }

    def intact(self, sequence: int | None = None) -> bool:
        """Its hash is the hash of its own previous hash and content."""
        return self.hash == entry_hash(self.previous_hash, self.content(sequence))


def verify(batch_size: int = 5000) -> Verification:
    """Walk the chain from the start; name the first entry that was edited, deleted, inserted,
    moved or rewritten. (Rewriting every entry from some point on, head included, can only be
    seen against a copy of the head kept elsewhere.)"""
    before: _Row | None = None
    for row in _rows(batch_size):
        expected = before.sequence + 1 if before else 1
        broken = _check(row, before, expected)
        if broken:
            return Verification(broken[0] - 1, *broken)
        before = row
    return _check_head(before)


def _check(row: _Row, before: _Row | None, expected: int) -> tuple[int, str] | None:
    """None if `row` continues the chain, else (the entry to blame, what is wrong)."""
    if row.sequence != expected:
        return expected, f"entry {expected} is missing (deleted), or the entries were renumbered"
    intact = row.intact()
    if row.previous_hash == (before.hash if before else GENESIS) and intact:
        return None
    if before is None:
        return expected, "the first entry is not chained to the start"
    if intact:  # the entry is whole, so the one before it is not what it was chained to
        return before.sequence, (
            f"entry {before.sequence} was rewritten: its hash is not the one entry "
            f"{row.sequence} was chained to"
        )
    if row.previous_hash == before.previous_hash and row.intact(before.sequence):
        return before.sequence, (
            f"entry {before.sequence} was inserted: entry {row.sequence} is the former entry "
            f"{before.sequence}, renumbered"
        )
    if row.previous_hash != before.hash:
        return expected, "its previous hash is not the hash of the entry before it (moved?)"
    return expected, "its content does not match its hash (edited)"


def _check_head(last: _Row | None) -> Verification:
    """The head row records how far the chain went and the hash it ended with."""
    count, last_hash = (last.sequence, last.hash) if last else (0, GENESIS)
    head = AuditHead.objects.filter(pk=1).first()
    head_sequence, head_hash = (head.sequence, head.hash) if head else (0, GENESIS)
    if head_sequence > count:
        return Verification(
            count,
            count + 1,
            f"entries {count + 1} to {head_sequence} are missing (deleted from the end)",
        )
    if head_sequence < count:
        return Verification(
            head_sequence,
            head_sequence + 1,
            f"entry {head_sequence + 1} was added after the chain head (inserted)",
        )
    if head_hash != last_hash:
        return Verification(
            count - 1, count, f"entry {count} was rewritten: the chain head holds another hash"
        )
    return Verification(count, None, "")


def _rows(batch_size: int) -> Iterator[_Row]:
    rows = AuditEntry.objects.order_by("sequence").values_list(*_Row._fields)
    return (_Row(*values) for values in rows.iterator(chunk_size=batch_size))
