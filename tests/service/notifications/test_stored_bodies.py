"""What the outbox keeps of a message once it is sent: no live link, and after
JOBGRANT_MESSAGE_BODY_DAYS no body at all (delivery_actions.deliver_message,
delivery_actions.prune_sent_bodies)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
import time_machine
from django.utils import timezone
from tests.personas import EMPLOYER
from tests.service.notifications.conftest import queued
from tests.smtp_sink import SmtpSink

from jobgrant.service import schedule
from jobgrant.service.notifications.delivery_actions import deliver_message, prune_sent_bodies
from jobgrant.service.notifications.models import Message, MessageState
from jobgrant.service.people.password_reset import send_password_reset

pytestmark = pytest.mark.django_db
TOKEN = re.compile(r"/(?:password-reset|mot-de-passe-oublie)/([^/\s]+)/")


def test_a_sent_reset_message_keeps_no_working_link(demo: None, smtp: SmtpSink) -> None:
    assert send_password_reset(EMPLOYER.get().email, "en")
    message = Message.objects.get(kind="password_reset")
    token = TOKEN.search(message.body)[1]  # type: ignore[index]
    assert deliver_message.call(message.pk) == "sent"
    [arrived] = smtp.arrived
    assert token in arrived.message.get_content()  # the person gets the link
    message.refresh_from_db()
    assert message.state == MessageState.SENT
    assert token not in message.body and "/password-reset/[redacted]/" in message.body


def test_the_demonstration_mailbox_keeps_its_links(
    demo: None, smtp: SmtpSink, settings: Any
) -> None:
    settings.JOBGRANT_DEMO_MAIL = True  # (never in production: settings.py refuses it)
    assert send_password_reset(EMPLOYER.get().email, "en")
    message = Message.objects.get(kind="password_reset")
    deliver_message.call(message.pk)
    message.refresh_from_db()
    assert TOKEN.search(message.body)[1] != "[redacted]"  # type: ignore[index]


def test_sent_bodies_are_pruned_after_the_documented_days(demo: None, smtp: SmtpSink) -> None:
    old, recent, waiting = queued(milestone="a"), queued(milestone="b"), queued(milestone="c")
    assert deliver_message.call(old.pk) == deliver_message.call(recent.pk) == "sent"
    with time_machine.travel(timezone.now() + dt.timedelta(days=29, hours=23)):
        assert prune_sent_bodies() == 0  # kept 30 days
    Message.objects.filter(pk=old.pk).update(sent_at=timezone.now() - dt.timedelta(days=30))
    assert prune_sent_bodies() == 1
    bodies = dict(Message.objects.values_list("pk", "body"))
    assert bodies[old.pk] == ""
    assert "What happens next" in bodies[recent.pk] and "What happens next" in bodies[waiting.pk]
    assert prune_sent_bodies() == 0  # idempotent
    assert any(job[0] == "prune_sent_bodies" for job in schedule.PERIODIC_JOBS)


def test_the_documented_figure(settings: Any) -> None:
    assert settings.JOBGRANT_MESSAGE_BODY_DAYS == 30
