"""Delivery through GC Notify's API, to a local stand-in that checks the JWT and the body as Notify
does and fails on purpose: each failure mode ends with one notification per row at Notify."""

from __future__ import annotations

import datetime as dt
import json
import time
import uuid
from typing import Any

import pytest
from django.utils import timezone
from tests.notify_stub import NotifyStub
from tests.service.notifications.conftest import EN_TEMPLATE, FR_TEMPLATE, OWN_TEMPLATE, queued

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.notifications import notify_delivery
from jobgrant.service.notifications.delivery_actions import claim, deliver_message
from jobgrant.service.notifications.models import Message, MessageState

pytestmark = pytest.mark.django_db


def make_due(message: Message) -> None:
    """Time has passed: the row's next attempt is due now."""
    Message.objects.filter(pk=message.pk).update(next_attempt_at=timezone.now())


def reference(message: Message) -> str:
    return f"outbox-{message.pk}@127.0.0.1"


def methods(stub: NotifyStub) -> list[str]:
    return [method for method, _ in stub.requests]


def test_a_message_goes_to_notify_through_its_language_template_with_its_reference(
    notify: NotifyStub,
) -> None:
    message = queued(to="employer@example.com")
    assert deliver_message.call(message.pk) == "sent"
    [accepted] = notify.accepted
    assert accepted.email_address == "employer@example.com"
    assert accepted.template_id == EN_TEMPLATE
    assert accepted.reference == reference(message)
    assert accepted.personalisation == {
        "subject": "We received your Canada Job Grant application 7",
        "body": message.body,
    }
    assert "What happens next" in accepted.personalisation["body"]
    assert methods(notify) == ["POST"]  # a first attempt does not look anything up
    message.refresh_from_db()
    assert message.state == MessageState.SENT and message.attempts == 1


def test_french_goes_through_the_french_template_and_a_kind_may_have_its_own(
    notify: NotifyStub, settings: Any
) -> None:
    english, french = queued(milestone="en"), queued(language="fr", milestone="fr")
    assert deliver_message.call(english.pk) == deliver_message.call(french.pk) == "sent"
    templates = {accepted.reference: accepted.template_id for accepted in notify.accepted}
    assert templates == {reference(english): EN_TEMPLATE, reference(french): FR_TEMPLATE}
    settings.JOBGRANT_NOTIFY_TEMPLATES = json.dumps(
        {"en": EN_TEMPLATE, "fr": FR_TEMPLATE, "application_received.fr": OWN_TEMPLATE}
    )
    own = queued(language="fr", milestone="own")
    assert deliver_message.call(own.pk) == "sent"
    assert notify.accepted[-1].template_id == OWN_TEMPLATE
    assert notify.accepted[-1].personalisation["subject"].startswith("Nous avons reçu")


def test_a_500_makes_the_row_retry_and_it_reaches_notify_once(notify: NotifyStub) -> None:
    notify.fail, notify.modes = 1.0, ("500",)
    message = queued()
    assert deliver_message.call(message.pk) == "retry"
    message.refresh_from_db()
    assert message.state == MessageState.QUEUED and message.last_error == "Notify 500"
    assert notify.accepted == []
    notify.fail = 0.0
    make_due(message)
    assert deliver_message.call(message.pk) == "sent"
    assert notify.by_reference() == {reference(message): 1}
    assert methods(notify) == ["POST", "GET", "POST"]  # looked up: not there, so sent


def test_accepted_then_500_is_found_by_its_reference_and_not_sent_again(
    notify: NotifyStub,
) -> None:
    notify.fail, notify.modes = 1.0, ("accepted-500",)
    message = queued()
    assert deliver_message.call(message.pk) == "retry"
    assert notify.by_reference() == {reference(message): 1}  # Notify has it; we do not know
    notify.fail = 0.0
    make_due(message)
    assert deliver_message.call(message.pk) == "sent"
    assert notify.by_reference() == {reference(message): 1}
    assert methods(notify) == ["POST", "GET"]
    message.refresh_from_db()
    assert message.state == MessageState.SENT and message.attempts == 2


def test_a_timeout_after_notify_accepted_is_found_by_its_reference(notify: NotifyStub) -> None:
    notify.fail, notify.modes, notify.slow_seconds = 1.0, ("slow",), 1.0  # client waits 0.5 s
    message = queued()
    assert deliver_message.call(message.pk) == "retry"
    message.refresh_from_db()
    assert message.last_error == "Notify ReadTimeout"
    notify.fail = 0.0
    make_due(message)
    assert deliver_message.call(message.pk) == "sent"
    assert notify.by_reference() == {reference(message): 1}


def test_a_429_waits_for_its_retry_after_and_pauses_the_process(
    notify: NotifyStub, settings: Any
) -> None:
    settings.JOBGRANT_MESSAGE_BACKOFF_SECONDS = 1
    notify.fail, notify.modes, notify.retry_after = 1.0, ("429",), "120"
    message = queued()
    before = timezone.now()
    assert deliver_message.call(message.pk) == "retry"
    message.refresh_from_db()
    assert message.last_error == "Notify 429"
    assert message.next_attempt_at >= before + dt.timedelta(seconds=119)
    assert notify_delivery.pace._next - time.monotonic() > 110  # no request from here for 2 min
    other = queued(milestone="other")
    assert deliver_message.call(other.pk) == "retry"  # given back at once: nothing sent
    other.refresh_from_db()
    assert other.last_error == "Notify paused"
    assert other.next_attempt_at >= before + dt.timedelta(seconds=110)
    assert len(notify.requests) == 1
    notify_delivery.pace._next, notify.fail = 0.0, 0.0
    make_due(message)
    assert deliver_message.call(message.pk) == "sent"
    assert notify.by_reference() == {reference(message): 1}


def test_an_unknown_outcome_waits_at_least_for_notify_to_list_it(
    notify: NotifyStub, settings: Any
) -> None:
    settings.JOBGRANT_MESSAGE_BACKOFF_SECONDS = 1
    settings.JOBGRANT_NOTIFY_LISTING_LAG_SECONDS = "90"
    notify.fail, notify.modes = 1.0, ("accepted-500",)
    message = queued()
    before = timezone.now()
    assert deliver_message.call(message.pk) == "retry"
    message.refresh_from_db()
    assert message.next_attempt_at >= before + dt.timedelta(seconds=90)


def test_a_listing_that_lags_longer_than_the_wait_lets_a_second_copy_through(
    notify: NotifyStub,
) -> None:
    """The window ADR 0025 names: Notify accepted, its listing does not show it yet when the
    retry asks (here the stand-in lists after 5 s and the service waits 0 s), so it is sent
    again with the same reference."""
    notify.fail, notify.modes, notify.listing_lag = 1.0, ("accepted-500",), 5.0
    message = queued()
    assert deliver_message.call(message.pk) == "retry"
    notify.fail = 0.0
    make_due(message)
    assert deliver_message.call(message.pk) == "sent"
    assert notify.by_reference() == {reference(message): 2}


def test_a_worker_killed_after_notify_accepted_is_not_sent_again_by_the_next(
    notify: NotifyStub,
) -> None:
    message = queued()
    killed = claim(message.pk)
    assert killed is not None
    notify_delivery.send(killed)  # Notify accepted it; then the worker died before recording it
    Message.objects.filter(pk=message.pk).update(
        lease_until=timezone.now() - dt.timedelta(seconds=1)
    )
    assert deliver_message.call(message.pk) == "sent"
    assert notify.by_reference() == {reference(message): 1}
    assert methods(notify) == ["POST", "GET"]


def test_an_address_notify_refuses_fails_for_good_and_is_audited(notify: NotifyStub) -> None:
    message = queued(to="nobody@localhost")  # no top-level domain: Notify says 400
    assert deliver_message.call(message.pk) == "failed"
    message.refresh_from_db()
    assert message.state == MessageState.FAILED and message.attempts == 1
    assert message.last_error == "Notify 400"
    entry = AuditEntry.objects.get(action="message.failed", object_id=str(message.pk))
    assert entry.summary == {
        "kind": "application_received",
        "attempts": 1,
        "error": "Notify 400",
    }
    assert notify.refused == {"ValidationError": 1} and notify.accepted == []


def test_a_key_notify_does_not_know_fails_for_good(notify: NotifyStub, settings: Any) -> None:
    settings.JOBGRANT_NOTIFY_API_KEY = f"jobgrant_test-{notify.service_id}-{uuid.uuid4()}"
    message = queued()
    assert deliver_message.call(message.pk) == "failed"
    message.refresh_from_db()
    assert message.last_error == "Notify 403"
    assert notify.refused == {"AuthError": 1}
    assert AuditEntry.objects.filter(action="message.failed", object_id=str(message.pk)).exists()


def test_a_template_notify_does_not_have_fails_for_good(notify: NotifyStub, settings: Any) -> None:
    settings.JOBGRANT_NOTIFY_TEMPLATES = json.dumps({"en": str(uuid.uuid4()), "fr": FR_TEMPLATE})
    message = queued()
    assert deliver_message.call(message.pk) == "failed"
    assert notify.refused == {"BadRequestError": 1}


def test_every_failure_mode_at_random_ends_with_one_notification_per_recipient(
    notify: NotifyStub, settings: Any
) -> None:
    settings.JOBGRANT_MESSAGE_MAX_ATTEMPTS = 60
    settings.JOBGRANT_NOTIFY_TIMEOUT_SECONDS = "0.25"
    notify.fail, notify.slow_seconds, notify.seed = 0.5, 0.4, 20261202
    notify.retry_after = "0"  # the pause a 429 makes is the test above's: here it only slows
    notify.__post_init__()  # reseed
    rows = [queued(to=f"person-{n}@example.com", milestone=f"m-{n}") for n in range(30)]
    for _ in range(60):
        waiting = Message.objects.exclude(state=MessageState.SENT)
        if not waiting.exists():
            break
        for message in waiting:
            make_due(message)
            deliver_message.call(message.pk)
    assert not Message.objects.exclude(state=MessageState.SENT).exists()
    assert notify.by_reference() == {reference(row): 1 for row in rows}
    recipients = {accepted.reference: accepted.email_address for accepted in notify.accepted}
    assert recipients == {reference(row): row.recipient for row in rows}
    assert set(notify.failed_on_purpose) == {"500", "429", "slow", "accepted-500"}


def test_paced_to_the_limit_the_worker_never_meets_notify_rate_limit(
    notify: NotifyStub, settings: Any
) -> None:
    settings.JOBGRANT_NOTIFY_RATE_PER_MINUTE = "240"  # 4 a second
    notify.rate_limit = (5, 1.0)  # the stand-in refuses the 6th request in any second
    rows = [queued(to=f"person-{n}@example.com", milestone=f"m-{n}") for n in range(12)]
    began = time.monotonic()
    assert [deliver_message.call(row.pk) for row in rows] == ["sent"] * 12
    assert time.monotonic() - began >= 11 / 4
    assert notify.refused == {}


def test_unpaced_the_same_sends_meet_the_stand_ins_rate_limit(notify: NotifyStub) -> None:
    """The check above can fail: without the pace, the stand-in refuses with 429."""
    notify.rate_limit = (5, 1.0)  # 6 sends within a second, even on a loaded machine
    rows = [queued(to=f"person-{n}@example.com", milestone=f"m-{n}") for n in range(30)]
    outcomes = [deliver_message.call(row.pk) for row in rows]
    assert "retry" in outcomes and notify.refused["RateLimitError"] > 0
