"""A real SMTP server for the notification tests, and Django's SMTP backend pointed at it; a
GC Notify stand-in (tests/notify_stub.py) and the GC Notify delivery pointed at it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import transaction
from tests.notify_stub import NotifyStub
from tests.personas import EMPLOYER
from tests.smtp_sink import RunningSink, SmtpSink

from jobgrant.service.accounts.models import User
from jobgrant.service.notifications.models import Message
from jobgrant.service.notifications.outbox import enqueue


def queued(to: str = "someone@example.com", language: str = "en", milestone: str = "") -> Message:
    """One application-received message in the outbox (the delivery tests' unit of work)."""
    subject = User.objects.get(username=EMPLOYER.username)
    context = {"reference": "7", "employer": "Acme", "submitted_on": "today", "link": "http://x/"}
    with transaction.atomic():
        message = enqueue(
            "application_received",
            subject=subject,
            milestone=milestone,
            to=to,
            language=language,
            context=context,
        )
    assert message is not None
    return message


@pytest.fixture
def smtp(settings: Any) -> Iterator[SmtpSink]:
    """Messages go to a local aiosmtpd server; the fixture is its record of what arrived."""
    running = RunningSink(SmtpSink())
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", running.port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    from jobgrant.service.notifications import delivery_actions

    delivery_actions.close_connection()  # none kept from another test's server
    yield running.sink
    delivery_actions.close_connection()
    running.stop()


EN_TEMPLATE = "5a1e3c1e-0000-4000-8000-00000000e001"
FR_TEMPLATE = "5a1e3c1e-0000-4000-8000-00000000f002"
OWN_TEMPLATE = "5a1e3c1e-0000-4000-8000-0000000000c3"  # a kind's own template


@pytest.fixture
def notify(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[NotifyStub]:
    """Delivery through GC Notify's API, to a local stand-in that checks what it receives; the
    fixture is the stand-in (what it accepted, what it refused)."""
    from jobgrant.service.notifications import notify_delivery
    from jobgrant.service.notifications.pacing import Pace

    placeholders = {"subject", "body"}
    templates = {EN_TEMPLATE: placeholders, FR_TEMPLATE: placeholders, OWN_TEMPLATE: placeholders}
    stub = NotifyStub(templates=templates).start()
    settings.JOBGRANT_DELIVERY = "notify"
    settings.JOBGRANT_NOTIFY_BASE_URL = stub.base_url
    settings.JOBGRANT_NOTIFY_API_KEY = stub.api_key
    settings.JOBGRANT_NOTIFY_TEMPLATES = json.dumps({"en": EN_TEMPLATE, "fr": FR_TEMPLATE})
    settings.JOBGRANT_NOTIFY_TIMEOUT_SECONDS = "0.5"
    settings.JOBGRANT_NOTIFY_RATE_PER_MINUTE = "600000"  # unpaced unless a test says otherwise
    settings.JOBGRANT_NOTIFY_LISTING_LAG_SECONDS = "0"
    monkeypatch.setattr(notify_delivery, "pace", Pace())
    yield stub
    stub.stop()
