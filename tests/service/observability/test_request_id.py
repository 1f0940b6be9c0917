"""One request id finds every line of one action: the request's log lines and answer, the audit
entry it wrote, the outbox message it queued, and the worker's delivery of that message.

A password reset asked for with `X-Request-ID: reset-7f3a` queues a message and writes an audit
entry; the worker's delivery of the message logs a JSON line; all carry `reset-7f3a`.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.test import Client
from tests.conftest import json_lines as lines

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.notifications.delivery_actions import deliver_message
from jobgrant.service.notifications.models import Message

pytestmark = pytest.mark.django_db


def test_the_request_id_is_answered_and_a_new_one_made_when_none_or_a_bad_one_is_sent() -> None:
    kept = Client().get("/healthz", HTTP_X_REQUEST_ID="lb-42.a_b:c")
    assert kept["X-Request-ID"] == "lb-42.a_b:c"
    made = Client().get("/healthz")["X-Request-ID"]
    assert len(made) == 32 and int(made, 16) >= 0
    # A value that could forge a log line, or an overlong one, is replaced rather than kept.
    for bad in ("evil\nline", "x" * 65, "a b", '"}{'):
        answer = Client().get("/healthz", HTTP_X_REQUEST_ID=bad)
        assert answer["X-Request-ID"] != bad and len(answer["X-Request-ID"]) == 32


def test_one_id_ties_the_request_its_audit_entry_its_message_and_the_delivery(
    demo: None, settings: Any, json_log: io.StringIO
) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    answer = Client().post(
        "/en/password-reset/", {"email": "employer@example.com"}, HTTP_X_REQUEST_ID="reset-7f3a"
    )
    assert answer.status_code == 302 and answer["X-Request-ID"] == "reset-7f3a"
    entry = AuditEntry.objects.get(action="user.password_reset_requested")
    assert entry.request_id == "reset-7f3a"
    message = Message.objects.get(kind="password_reset")
    assert message.request_id == "reset-7f3a"

    assert deliver_message.call(message.pk) == "sent"
    delivered = [line for line in lines(json_log) if line.get("message_id") == message.pk]
    assert len(delivered) == 1, json_log.getvalue()
    line = delivered[0]
    assert line["request_id"] == "reset-7f3a"
    assert line["logger"] == "jobgrant.notifications" and line["level"] == "INFO"
    assert (line["kind"], line["attempt"], line["outcome"]) == ("password_reset", 1, "sent")
    assert set(line) >= {"time", "message"}
    assert "employer@example.com" not in json_log.getvalue()  # no recipient, no body


def test_django_logs_a_refused_request_with_its_id(json_log: io.StringIO) -> None:
    """Django writes "Not Found: …" after the middleware returned the answer: it still has the
    request's id."""
    Client().get("/en/no-such-page/", HTTP_X_REQUEST_ID="lost-1")
    found = [line for line in lines(json_log) if line["logger"] == "django.request"]
    assert found and found[-1]["request_id"] == "lost-1"
    assert found[-1]["message"] == "Not Found: /en/no-such-page/"


def test_a_failed_delivery_audits_with_the_request_id_of_its_message(
    demo: None, settings: Any
) -> None:
    from tests.service.notifications.conftest import queued

    from jobgrant.service.observability.request_id import bound

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", 9  # nobody listens: refused
    settings.JOBGRANT_MESSAGE_MAX_ATTEMPTS = 1
    with bound("queued-by-9"):
        message = queued()
    assert deliver_message.call(message.pk) == "failed"
    entry = AuditEntry.objects.filter(action="message.failed").latest("sequence")
    assert entry.request_id == "queued-by-9"
