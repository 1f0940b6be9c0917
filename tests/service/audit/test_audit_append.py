"""Appending to the audit chain: PostgreSQL hashes the entry itself (one statement per append),
and must hash exactly what `verify` recomputes in Python, whatever the entry holds."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from jobgrant.service.audit.chain import around_sequence, canonical, entry_hash, record, verify
from jobgrant.service.audit.models import AuditEntry, AuditHead

pytestmark = pytest.mark.django_db

AWKWARD: list[dict[str, Any]] = [
    {"note": "quotes \" and ' and \\ backslashes", "percent": "100 % sure %s %(x)s"},
    {"note": "émojis 🇨🇦 and « guillemets », tab\there", "n": -1},
    {"sequence": 7, "summary": {"nested": [1, 2.5, None, False]}},
    {},
]


def test_the_canonical_text_splits_around_the_sequence_number() -> None:
    for summary in AWKWARD:
        fields = {
            "sequence": 123,
            "at": "2026-11-29T21:31:21.157870+00:00",
            "actor": "Zoë",
            "action": "x.y",
            "object_type": "t",
            "object_id": "4",
            "summary": summary,
        }
        before, after = around_sequence(fields)
        assert before + "123" + after == canonical(fields)


def test_entries_appended_by_the_database_verify_in_python() -> None:
    with transaction.atomic():
        entries = [
            record('Zoë "o\'neil"', "application.submit", "application", i, summary)
            for i, summary in enumerate(AWKWARD)
        ]
    head = AuditHead.objects.get(pk=1)
    assert (head.sequence, head.hash) == (entries[-1].sequence, entries[-1].hash)
    for entry in entries:
        stored = AuditEntry.objects.get(pk=entry.pk)
        assert (stored.sequence, stored.previous_hash, stored.hash) == (
            entry.sequence,
            entry.previous_hash,
            entry.hash,
        )
        fields = {
            "sequence": stored.sequence,
            "at": stored.at.isoformat(),
            "actor": stored.actor,
            "action": stored.action,
            "object_type": stored.object_type,
            "object_id": stored.object_id,
            "summary": stored.summary,
        }
        assert entry_hash(stored.previous_hash, fields) == stored.hash
    assert verify().ok
