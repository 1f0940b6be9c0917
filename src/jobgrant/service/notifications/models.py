"""The outbox: one row per message to one person, written in the transaction of its cause.

A row is unique per (kind, subject, milestone, recipient): the same event cannot queue the same
message twice. The worker moves it queued → sending (a lease, so that two workers never send the
same row, and a worker killed mid-send leaves a lease that expires) → sent, or back to queued
with a later `next_attempt_at` after a transient failure, or to failed after the last attempt.
The subject and body are rendered when the row is written, in the recipient's language, so what
is sent is what the event said at the time; they never hold a SIN (outbox.enqueue refuses one).
"""

from __future__ import annotations

from urllib.parse import urlparse

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import pgettext_lazy


class MessageState(models.TextChoices):
    QUEUED = "queued", pgettext_lazy("message state", "Queued")
    SENDING = "sending", pgettext_lazy("message state", "Sending")
    SENT = "sent", pgettext_lazy("message state", "Sent")
    FAILED = "failed", pgettext_lazy("message state", "Failed")


class Message(models.Model):
    kind = models.CharField(max_length=64)
    subject_type = models.CharField(max_length=100)  # the model's label, e.g. "grants.application"
    subject_id = models.CharField(max_length=64)
    milestone = models.CharField(max_length=100, blank=True, default="")
    recipient = models.EmailField(max_length=254)
    language = models.CharField(max_length=2)
    subject_line = models.CharField(max_length=255)
    body = models.TextField()
    state = models.CharField(
        max_length=8, choices=MessageState.choices, default=MessageState.QUEUED
    )
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    lease_until = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=255, blank=True, default="")
    sent_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    # The id of the request (or job) that queued it, carried into the worker's delivery lines
    # (observability/request_id.py). Nullable: a server of the release before, running while
    # this column is added, inserts rows without it.
    request_id = models.CharField(max_length=64, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "subject_type", "subject_id", "milestone", "recipient"],
                name="one_message_per_event_and_recipient",
            ),
            models.CheckConstraint(
                condition=Q(state__in=[state.value for state in MessageState]),
                name="message_state_known",
            ),
        ]
        indexes = [models.Index(fields=["state", "next_attempt_at"], name="message_due")]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.state})"

    @property
    def message_id(self) -> str:
        """The RFC 5322 Message-ID every attempt of this row carries: a re-send after a crash
        is the same message to the recipient's mail system, not a new one."""
        return message_id_for(self.pk)


def message_id_for(pk: int) -> str:
    """<outbox-ID@host>, the host being JOBGRANT_BASE_URL's: two deployments (a staging and a
    production one) never give two different messages the same Message-ID."""
    host = urlparse(settings.JOBGRANT_BASE_URL).hostname or "jobgrant"
    return f"<outbox-{pk}@{host}>"
