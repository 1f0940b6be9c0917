"""A real SMTP server for the notification tests, and Django's SMTP backend pointed at it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.smtp_sink import RunningSink, SmtpSink


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
