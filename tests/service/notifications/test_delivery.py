"""Delivery to a real SMTP server (aiosmtpd on a local port): what arrives, retries, leases."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
import time_machine
from django.utils import timezone
from tests.personas import EMPLOYER, OFFICER
from tests.service.notifications.conftest import queued
from tests.smtp_sink import SmtpSink

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.notifications import delivery_actions
from jobgrant.service.notifications.delivery_actions import claim, deliver_message, sweep
from jobgrant.service.notifications.models import Message, MessageState

pytestmark = pytest.mark.django_db


def later(message: Message, seconds: float = 1) -> Any:
    """Travel to just after the row's next attempt is due."""
    message.refresh_from_db()
    return time_machine.travel(message.next_attempt_at + dt.timedelta(seconds=seconds))


def test_a_delivered_message_arrives_with_its_headers_subject_and_body(smtp: SmtpSink) -> None:
    message = queued(to="employer@example.com")
    assert deliver_message.call(message.pk) == "sent"
    [arrived] = smtp.arrived
    assert arrived.recipients == ["employer@example.com"]
    assert arrived.message["To"] == "employer@example.com"
    assert arrived.message["Message-ID"] == message.message_id == f"<outbox-{message.pk}@127.0.0.1>"
    assert arrived.message["Subject"] == "We received your Canada Job Grant application 7"
    assert arrived.message["Content-Language"] == "en-CA"
    assert arrived.message["Auto-Submitted"] == "auto-generated"
    body = arrived.message.get_content()
    assert "What happens next" in body and "http://x/" in body
    message.refresh_from_db()
    assert message.state == MessageState.SENT and message.attempts == 1
    assert message.sent_at is not None and message.lease_until is None


def test_a_french_recipient_receives_the_french_text_in_utf8(smtp: SmtpSink) -> None:
    message = queued(to="employeur@example.com", language="fr")
    deliver_message.call(message.pk)
    [arrived] = smtp.arrived
    # Django folds a long encoded subject after "Subject:"; unfolded, it starts with a space.
    assert arrived.message["Subject"].strip().startswith("Nous avons reçu votre demande")
    assert arrived.message["Content-Language"] == "fr-CA"
    assert "Prochaines étapes" in arrived.message.get_content()


def test_a_sent_message_is_not_sent_again(smtp: SmtpSink) -> None:
    message = queued()
    assert deliver_message.call(message.pk) == "sent"
    assert deliver_message.call(message.pk) == "skipped"
    assert len(smtp.arrived) == 1


def test_a_server_that_refuses_for_now_makes_the_row_retry_later_then_succeed(
    smtp: SmtpSink,
) -> None:
    smtp.refuse = 1.0
    message = queued()
    assert deliver_message.call(message.pk) == "retry"
    message.refresh_from_db()
    assert message.state == MessageState.QUEUED and message.attempts == 1
    assert message.last_error == "SMTPDataError 451"
    assert message.next_attempt_at > timezone.now()
    assert deliver_message.call(message.pk) == "skipped"  # not due yet
    assert smtp.arrived == [] and smtp.refused == 1
    smtp.refuse = 0.0
    with later(message):
        assert deliver_message.call(message.pk) == "sent"
    [arrived] = smtp.arrived
    assert arrived.message_id == message.message_id
    message.refresh_from_db()
    assert message.state == MessageState.SENT and message.attempts == 2


def test_the_back_off_doubles_up_to_its_cap(settings: Any) -> None:
    settings.JOBGRANT_MESSAGE_BACKOFF_SECONDS = 10
    settings.JOBGRANT_MESSAGE_BACKOFF_CAP_SECONDS = 100
    waits = [delivery_actions.backoff(attempt).total_seconds() for attempt in range(1, 7)]
    for wait, nominal in zip(waits, [10, 20, 40, 80, 100, 100], strict=True):
        assert 0.8 * nominal <= wait <= 1.2 * nominal


def test_after_the_last_attempt_the_row_fails_and_the_failure_is_audited(
    smtp: SmtpSink, settings: Any
) -> None:
    settings.JOBGRANT_MESSAGE_MAX_ATTEMPTS = 2
    smtp.refuse = 1.0
    message = queued()
    assert deliver_message.call(message.pk) == "retry"
    with later(message):
        assert deliver_message.call(message.pk) == "failed"
    message.refresh_from_db()
    assert message.state == MessageState.FAILED and message.attempts == 2
    entry = AuditEntry.objects.get(action="message.failed", object_id=str(message.pk))
    assert entry.summary == {
        "kind": "application_received",
        "attempts": 2,
        "error": "SMTPDataError 451",
    }
    assert "What happens next" not in str(entry.summary)  # the body is never logged


def test_a_permanent_refusal_fails_at_once(smtp: SmtpSink) -> None:
    smtp.refuse, smtp.refusal = 1.0, "550 5.1.1 No such mailbox"
    message = queued()
    assert deliver_message.call(message.pk) == "failed"
    message.refresh_from_db()
    assert message.state == MessageState.FAILED and message.last_error == "SMTPDataError 550"


def test_a_server_that_is_down_is_a_transient_failure(settings: Any) -> None:
    from tests.smtp_sink import free_port

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()
    delivery_actions.close_connection()
    message = queued()
    assert deliver_message.call(message.pk) == "retry"
    message.refresh_from_db()
    assert message.last_error == "ConnectionRefusedError"


def test_a_claimed_row_is_not_claimed_again_until_its_lease_runs_out(settings: Any) -> None:
    message = queued()
    first = claim(message.pk)
    assert first is not None and first.state == MessageState.SENDING
    assert claim(message.pk) is None  # another worker finds it taken
    assert first.lease_until is not None
    with time_machine.travel(first.lease_until + dt.timedelta(seconds=1)):
        again = claim(message.pk)  # the first worker was killed: its lease ran out
    assert again is not None and again.attempts == 2


def test_a_worker_whose_lease_ran_out_does_not_overwrite_the_new_owner(smtp: SmtpSink) -> None:
    message = queued()
    late = claim(message.pk)
    assert late is not None and late.lease_until is not None
    with time_machine.travel(late.lease_until + dt.timedelta(seconds=1)):
        assert deliver_message.call(message.pk) == "sent"  # the new owner
    Message.objects.filter(pk=message.pk).update(state=MessageState.SENDING)
    # The old owner's outcome is recorded only while it holds the row (same attempt number).
    assert not Message.objects.filter(pk=message.pk, attempts=late.attempts).exists()


def test_the_sweep_hands_over_rows_whose_task_was_lost(settings: Any) -> None:
    from django_tasks_db.models import DBTaskResult

    settings.JOBGRANT_MESSAGE_SWEEP_SECONDS = 10
    message = queued()
    assert DBTaskResult.objects.filter(args_kwargs__args=[message.pk]).exists()
    DBTaskResult.objects.all().delete()  # its task lost (deleted, say)
    assert sweep() == 0  # too recent: its task may simply not have run yet
    with later(message, seconds=11):
        assert sweep() == 1
        assert sweep() == 0  # its task is waiting now
    [task] = DBTaskResult.objects.all()
    assert task.args_kwargs == {"args": [message.pk], "kwargs": {}}


@pytest.mark.django_db(transaction=True)
def test_a_commit_hands_the_row_to_a_task_and_the_worker_delivers_it(
    smtp: SmtpSink, demo: None
) -> None:
    from django_tasks_db.models import DBTaskResult

    from jobgrant.service.notifications.worker import OutboxWorker

    message = queued()
    [task] = DBTaskResult.objects.all()
    assert task.args_kwargs["args"] == [message.pk]
    assert OutboxWorker("test-worker", interval=0).turn() == 1
    assert len(smtp.arrived) == 1


def test_submitting_and_denying_an_application_tells_the_applicant(
    as_user: Callable[[Any], Any], make_body: Callable[..., dict[str, Any]], smtp: SmtpSink
) -> None:
    User.objects.filter(username=EMPLOYER.username).update(preferred_language="fr")
    created = as_user(EMPLOYER).post("/applications", make_body()).json()
    assert as_user(EMPLOYER).post(f"/applications/{created['id']}/submit").status_code == 200
    denied = as_user(OFFICER).post(
        f"/applications/{created['id']}/deny", {"reason": "La formation a déjà commencé."}
    )
    assert denied.status_code == 200, denied.content
    rows = Message.objects.filter(subject_type="grants.application", subject_id=str(created["id"]))
    assert sorted(rows.values_list("kind", flat=True)) == [
        "application_denied",
        "application_received",
    ]
    for row in rows:
        assert deliver_message.call(row.pk) == "sent"
    by_subject = {arrived.message["Subject"].strip(): arrived for arrived in smtp.arrived}
    number = created["id"]
    received = by_subject[
        f"Nous avons reçu votre demande de Subvention canadienne pour l'emploi {number}"
    ]
    assert "Prochaines étapes" in received.message.get_content()
    assert received.recipients == [f"{EMPLOYER.username}@example.com"]
    denial = next(a for s, a in by_subject.items() if "n'a pas été approuvée" in s)
    body = denial.message.get_content()
    assert "La formation a déjà commencé." in body
    assert f"/fr/employeur/demandes/{created['id']}/" in body


def test_a_worker_killed_after_the_server_accepted_resends_with_the_same_message_id(
    smtp: SmtpSink,
) -> None:
    """The one duplicate no protocol avoids: sent, then killed before recording it. The lease
    expires, the row is sent again, and the recipient's mail system sees one Message-ID."""
    message = queued()
    killed = claim(message.pk)
    assert killed is not None and killed.lease_until is not None
    delivery_actions.email_for(killed).send()  # accepted by the server; then the worker dies
    with time_machine.travel(killed.lease_until + dt.timedelta(seconds=1)):
        assert deliver_message.call(message.pk) == "sent"
    assert len(smtp.arrived) == 2
    assert {arrived.message_id for arrived in smtp.arrived} == {message.message_id}


def test_a_message_delivered_after_the_demonstration_history_reaches_the_real_server(
    smtp: SmtpSink,
) -> None:
    """The demonstration history delivers its years-old messages to Django's dummy backend; the
    worker's connection must not stay the dummy one, or every later message is marked sent and
    written nowhere."""
    from django.test import override_settings

    old = queued(to="history@example.com")
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.dummy.EmailBackend"):
        assert deliver_message.call(old.pk) == "sent"
    assert smtp.arrived == []
    today = queued(to="registrant@example.com")
    assert deliver_message.call(today.pk) == "sent"
    assert [arrived.recipients for arrived in smtp.arrived] == [["registrant@example.com"]]
