"""Delivering an outbox row: claim it, send it (through Django's email backend, or GC Notify's
API with JOBGRANT_DELIVERY=notify: notify_delivery.py), record the outcome.

The row's life (declared here once; each arrow is one conditional UPDATE, so two workers never
both move a row):

    queued  --claim (due)-->            sending   attempts + 1, lease_until = now + lease
    sending --claim (lease expired)-->  sending   a worker died mid-send: the row is tried again
    sending --accepted by the server--> sent
    sending --refused for now-->        queued    next_attempt_at = now + back-off
    sending --refused for good, or the last attempt failed--> failed   (audited)

Exactly once, honestly: a worker killed after the SMTP server accepted a message but before it
recorded `sent` leaves a lease that expires, and the row is sent again. Every attempt carries the
row's stable Message-ID, so the recipient's mail system shows it once; the server may see it
twice. The guarantee is: every message reaches the server, and each has one Message-ID.
Through GC Notify the re-send first looks the row up by its reference (notify_delivery.py).
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import smtplib
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django_tasks import TaskResultStatus, task
from django_tasks_db.models import DBTaskResult

from jobgrant.service.audit.chain import record
from jobgrant.service.log_redaction import redact
from jobgrant.service.notifications.failures import Failure, smtp_failure
from jobgrant.service.notifications.models import Message, MessageState
from jobgrant.service.observability import request_id
from jobgrant.service.observability.metrics import DELIVERIES

log = logging.getLogger("jobgrant.notifications")
_connection: Any = None  # one open connection to the mail server per worker process
_connection_backend = ""  # the EMAIL_BACKEND it was opened for


def backoff(attempts: int) -> dt.timedelta:
    """How long to wait after the `attempts`-th failed attempt: doubling from the base, capped,
    with a jitter of ±20% so that rows refused together are not retried together."""
    base = settings.JOBGRANT_MESSAGE_BACKOFF_SECONDS
    seconds = min(base * 2 ** max(attempts - 1, 0), settings.JOBGRANT_MESSAGE_BACKOFF_CAP_SECONDS)
    return dt.timedelta(seconds=seconds * random.uniform(0.8, 1.2))


def wait_after(attempts: int, failure: Failure) -> dt.timedelta:
    """The back-off, or longer if the failure asks for it (a 429's Retry-After; the time GC
    Notify needs to list a notification it may have accepted), never past the back-off's cap."""
    cap = settings.JOBGRANT_MESSAGE_BACKOFF_CAP_SECONDS
    at_least = dt.timedelta(seconds=min(failure.at_least_seconds, cap))
    return max(backoff(attempts), at_least)


def _claimable(now: dt.datetime) -> Q:
    due = Q(state=MessageState.QUEUED, next_attempt_at__lte=now)
    abandoned = Q(state=MessageState.SENDING, lease_until__lt=now)
    return due | abandoned


def claim(message_id: int) -> Message | None:
    """Take the row for this worker if it is due (or its last sender's lease ran out)."""
    now = timezone.now()
    lease = dt.timedelta(seconds=settings.JOBGRANT_MESSAGE_LEASE_SECONDS)
    taken = Message.objects.filter(_claimable(now), pk=message_id).update(
        state=MessageState.SENDING, lease_until=now + lease, attempts=F("attempts") + 1
    )
    if not taken:
        return None
    return Message.objects.get(pk=message_id)


@task()
def deliver_message(message_id: int) -> str:
    """The worker's task for one outbox row (`.enqueue` hands it over, `.call` runs it here):
    claim, send and record it: "sent", "retry", "failed", or "skipped" (not due, or another
    worker has it)."""
    message = claim(message_id)
    if message is None:
        DELIVERIES.labels("", "skipped").inc()
        return "skipped"
    # The lines and the audit entry of this delivery carry the id of the request that queued it.
    with request_id.bound(message.request_id or request_id.new_id()):
        outcome = _deliver(message)
    DELIVERIES.labels(message.kind, outcome).inc()
    return outcome


def _fields(message: Message, outcome: str) -> dict[str, object]:
    """The structured fields of a delivery's log line (never the recipient or the body)."""
    return {
        "message_id": message.pk,
        "kind": message.kind,
        "attempt": message.attempts,
        "outcome": outcome,
    }


def _deliver(message: Message) -> str:
    try:
        _send(message)
    except Exception as error:  # every failure is recorded on the row, none stops the worker
        return _failed(message, error)
    mine = Message.objects.filter(
        pk=message.pk, state=MessageState.SENDING, attempts=message.attempts
    )
    sent = {"state": MessageState.SENT, "sent_at": timezone.now(), "lease_until": None}
    if not mine.update(**sent, body=kept_body(message.body)):
        log.warning(
            "message %s: sent after its lease ran out (may reach the server twice)", message.pk
        )
    log.info(
        "message %s (%s) sent, attempt %s",
        message.pk,
        message.kind,
        message.attempts,
        extra=_fields(message, "sent"),
    )
    return "sent"


def kept_body(body: str) -> str:
    """What the outbox keeps of a body once it is sent (or failed for good): every e-mailed
    link's token redacted (log_redaction.redact: /password-reset/[redacted]/), so that a copy of
    the database opens no form, invitation, set-up or reset. The demonstration's mailbox
    (JOBGRANT_DEMO_MAIL, never in production) keeps its links: it is how a demonstration
    follows them."""
    return body if settings.JOBGRANT_DEMO_MAIL else redact(body)


def prune_sent_bodies() -> int:
    """A periodic job: empty the body of every message sent (or failed for good) more than
    JOBGRANT_MESSAGE_BODY_DAYS ago; the row stays, the record of what was sent to whom and
    when. Returns how many were emptied."""
    cutoff = timezone.now() - dt.timedelta(days=settings.JOBGRANT_MESSAGE_BODY_DAYS)
    old = Q(state=MessageState.SENT, sent_at__lt=cutoff) | Q(
        state=MessageState.FAILED, created_at__lt=cutoff
    )
    return Message.objects.filter(old).exclude(body="").update(body="")


def email_for(message: Message) -> EmailMessage:
    return EmailMessage(
        subject=message.subject_line,
        body=message.body,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[message.recipient],
        headers={
            "Message-ID": message.message_id,
            "Content-Language": f"{message.language}-CA",
            "Auto-Submitted": "auto-generated",
        },
    )


def _send(message: Message) -> None:
    if settings.JOBGRANT_DELIVERY == "notify":
        _notify().send(message)
    else:
        _send_by_smtp(message)


def _notify() -> Any:
    """The GC Notify delivery, imported when used: its HTTP client and JWT libraries take a
    second to import on the loaded machine, which an SMTP worker need not spend."""
    from jobgrant.service.notifications import notify_delivery

    return notify_delivery


def _send_by_smtp(message: Message) -> None:
    """Send through the process's open connection; one that the server closed while idle is
    opened again once (the server accepted nothing on it, so this is not a second attempt)."""
    global _connection, _connection_backend
    if _connection is not None and _connection_backend != settings.EMAIL_BACKEND:
        close_connection()  # opened for another backend (the demonstration history's dummy one)
    reused = _connection is not None
    for _ in range(2):
        if _connection is None:
            _connection = get_connection(fail_silently=False)
            _connection_backend = settings.EMAIL_BACKEND
            _connection.open()
        try:
            _connection.send_messages([email_for(message)])
            return
        except smtplib.SMTPServerDisconnected:
            close_connection()
            if not reused:
                raise
            reused = False
        except Exception:
            close_connection()
            raise


def close_connection() -> None:
    global _connection
    if _connection is not None:
        try:
            _connection.close()
        except Exception:  # the connection is being thrown away anyway
            log.debug("closing a broken mail connection failed")
    _connection = None


def classify(error: Exception) -> Failure:
    if settings.JOBGRANT_DELIVERY == "notify":
        return _notify().failure(error) or smtp_failure(error)
    return smtp_failure(error)


def _failed(message: Message, error: Exception) -> str:
    failure = classify(error)
    last = message.attempts >= settings.JOBGRANT_MESSAGE_MAX_ATTEMPTS
    described = failure.described
    mine = Message.objects.filter(
        pk=message.pk, state=MessageState.SENDING, attempts=message.attempts
    )
    if failure.permanent or last:
        with transaction.atomic():
            failed = {"state": MessageState.FAILED, "lease_until": None, "last_error": described}
            if mine.update(**failed, body=kept_body(message.body)):
                record(
                    "worker",
                    "message.failed",
                    "message",
                    message.pk,
                    {"kind": message.kind, "attempts": message.attempts, "error": described},
                )
        log.error(
            "message %s (%s) failed for good: %s",
            message.pk,
            message.kind,
            described,
            extra=_fields(message, "failed"),
        )
        return "failed"
    when = timezone.now() + wait_after(message.attempts, failure)
    if mine.update(
        state=MessageState.QUEUED, next_attempt_at=when, lease_until=None, last_error=described
    ):
        deliver_message.using(run_after=when).enqueue(message.pk)
    log.warning(
        "message %s (%s) attempt %s: %s; next at %s",
        message.pk,
        message.kind,
        message.attempts,
        described,
        when.isoformat(timespec="seconds"),
        extra=_fields(message, "retry"),
    )
    return "retry"


def sweep(limit: int = 500) -> int:
    """Hand the worker the rows it may have missed: queued and due for longer than a sweep
    period (their task was lost: a crash between the commit and the hand-over), or sending under
    an expired lease (their worker was killed). Returns how many were handed over."""
    now = timezone.now()
    late = now - dt.timedelta(seconds=settings.JOBGRANT_MESSAGE_SWEEP_SECONDS)
    missed = Q(state=MessageState.QUEUED, next_attempt_at__lte=late) | Q(
        state=MessageState.SENDING, lease_until__lt=now
    )
    waiting = DBTaskResult.objects.filter(
        status=TaskResultStatus.READY, task_path=deliver_message.module_path
    ).values_list("args_kwargs", flat=True)
    handed_over = {entry["args"][0] for entry in waiting if entry.get("args")}
    rows = Message.objects.filter(missed).order_by("next_attempt_at").values_list("pk", flat=True)
    ids = [pk for pk in rows[: limit + len(handed_over)] if pk not in handed_over][:limit]
    for pk in ids:
        deliver_message.enqueue(pk)
    return len(ids)
