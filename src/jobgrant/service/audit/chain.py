"""Appending to and verifying the hash chain.

hash(entry) = SHA-256(previous hash ‖ canonical JSON of the entry's fields). Editing, deleting,
inserting or reordering any entry breaks the chain at that entry, which `verify` names.
Appends lock the single head row (SELECT ... FOR UPDATE) in the caller's transaction, so
concurrent actions are chained in commit order and an action and its entry commit together.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from jobgrant.service.audit.models import AuditEntry, AuditHead

GENESIS = "0" * 64


def entry_hash(previous_hash: str, fields: dict[str, Any]) -> str:
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256((previous_hash + canonical).encode()).hexdigest()


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
    """Append an entry; must run inside the transaction of the change it records."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("audit entries are written in the transaction of their change")
    head, _ = AuditHead.objects.select_for_update().get_or_create(pk=1)
    entry = AuditEntry(
        sequence=head.sequence + 1,
        at=timezone.now(),
        actor=actor,
        action=action,
        object_type=obj_type,
        object_id=str(obj_id),
        summary=summary,
        previous_hash=head.hash,
    )
    entry.hash = entry_hash(head.hash, _fields(entry))
    entry.save()
    head.sequence, head.hash = entry.sequence, entry.hash
    head.save(update_fields=["sequence", "hash"])
    return entry


@dataclass(frozen=True)
class Verification:
    checked: int
    first_broken: int | None  # sequence number of the first entry that does not verify
    problem: str

    @property
    def ok(self) -> bool:
        return self.first_broken is None


def verify(batch_size: int = 5000) -> Verification:
    """Walk the chain from the start; report the first entry that breaks it."""
    previous, expected_sequence, checked = GENESIS, 1, 0
    for entry in _entries(batch_size):
        problem = _check(entry, previous, expected_sequence)
        if problem:
            return Verification(checked, entry.sequence, problem)
        previous, expected_sequence, checked = entry.hash, entry.sequence + 1, checked + 1
    head = AuditHead.objects.filter(pk=1).first()
    if head is not None and (head.sequence != checked or head.hash != previous):
        return Verification(checked, checked + 1, "entries after the last one were deleted")
    return Verification(checked, None, "")


def _check(entry: AuditEntry, previous: str, expected_sequence: int) -> str:
    if entry.sequence != expected_sequence:
        return f"expected entry {expected_sequence}, found {entry.sequence} (deleted or inserted)"
    if entry.previous_hash != previous:
        return "its previous hash is not the hash of the entry before it"
    if entry.hash != entry_hash(previous, _fields(entry)):
        return "its content does not match its hash (edited)"
    return ""


def _entries(batch_size: int) -> Iterator[AuditEntry]:
    return AuditEntry.objects.order_by("sequence").iterator(chunk_size=batch_size)
