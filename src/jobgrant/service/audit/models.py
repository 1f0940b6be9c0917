"""The audit trail: append-only entries, each chained to the previous one by a SHA-256 hash."""

from __future__ import annotations

from django.db import models


class AuditEntry(models.Model):
    sequence = models.PositiveBigIntegerField(unique=True)
    at = models.DateTimeField()
    actor = models.CharField(max_length=150)
    action = models.CharField(max_length=64)
    object_type = models.CharField(max_length=64)
    object_id = models.CharField(max_length=64)
    summary = models.JSONField(default=dict)
    previous_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64, unique=True)
    # The id of the request (or job) that wrote it (observability/request_id.py): it finds the
    # request's log lines and its messages. Not part of the hashed content: it is a way to look
    # things up, not a fact the chain vouches for. Nullable: a server of the release before,
    # running while this column is added, inserts entries without it.
    request_id = models.CharField(max_length=64, null=True, blank=True)

    class Meta:
        ordering = ["sequence"]
        verbose_name_plural = "audit entries"


class AuditHead(models.Model):
    """One row, locked by every append so that entries are chained one at a time."""

    sequence = models.PositiveBigIntegerField(default=0)
    hash = models.CharField(max_length=64, default="0" * 64)
