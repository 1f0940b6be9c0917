"""The outbox: a message is written in the transaction of its cause, once, in its language."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, transaction
from tests.personas import EMPLOYER

from jobgrant.service.accounts.models import User
from jobgrant.service.notifications.models import Message, MessageState
from jobgrant.service.notifications.outbox import (
    OutboxError,
    enqueue,
    known_kinds,
)

CONTEXT = {
    "reference": "12",
    "employer": "Birchwood Tool and Die",
    "submitted_on": "November 29, 2026",
    "link": "http://127.0.0.1:8000/en/employer/applications/12/",
}


def queue(subject: Any, **changes: Any) -> Message | None:
    arguments: dict[str, Any] = {
        "subject": subject,
        "to": "employer@example.com",
        "language": "en",
        "context": CONTEXT,
    }
    arguments.update(changes)
    return enqueue(arguments.pop("kind", "application_received"), **arguments)


@pytest.fixture
def someone(db: None) -> User:
    return User.objects.get(username=EMPLOYER.username)


def test_a_message_is_written_inside_the_transaction_with_its_rendered_text(someone) -> None:
    with transaction.atomic():
        message = queue(someone)
    assert message is not None
    stored = Message.objects.get(pk=message.pk)
    assert stored.state == MessageState.QUEUED and stored.attempts == 0
    assert (stored.subject_type, stored.subject_id) == ("accounts.user", str(someone.pk))
    assert stored.subject_line == "We received your Canada Job Grant application 12"
    assert "What happens next" in stored.body and CONTEXT["link"] in stored.body
    assert not stored.body.startswith("Subject:")


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_enqueue_refuses_and_writes_nothing() -> None:
    user = User.objects.create(username="nobody-in-particular")
    assert not connection.in_atomic_block
    with pytest.raises(OutboxError, match="inside the transaction"):
        queue(user)
    assert not Message.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_transaction_takes_its_message_with_it() -> None:
    user = User.objects.create(username="rolled-back")

    class CauseError(Exception):
        pass

    def cause_fails() -> None:
        with transaction.atomic():
            assert queue(user) is not None
            raise CauseError

    with pytest.raises(CauseError):
        cause_fails()
    assert not Message.objects.exists()
    with transaction.atomic():
        assert queue(user) is not None
    assert Message.objects.count() == 1


def test_the_same_kind_subject_milestone_and_recipient_is_one_message(someone) -> None:
    with transaction.atomic():
        first = queue(someone, milestone="version-1")
        again = queue(someone, milestone="version-1", to=" Employer@Example.com ")
        other_milestone = queue(someone, milestone="version-2")
        other_recipient = queue(someone, milestone="version-1", to="partner@example.com")
        other_kind = queue(
            someone,
            kind="application_denied",
            milestone="version-1",
            context={**CONTEXT, "decided_on": "x", "reason": "y"},
        )
    assert first is not None and again is None
    assert None not in (other_milestone, other_recipient, other_kind)
    assert Message.objects.count() == 4


def test_a_duplicate_leaves_the_rest_of_its_transaction_intact(someone) -> None:
    with transaction.atomic():
        queue(someone)
        User.objects.filter(pk=someone.pk).update(first_name="Still")
        assert queue(someone) is None  # the savepoint rolled back alone
        User.objects.filter(pk=someone.pk).update(last_name="Here")
    someone.refresh_from_db()
    assert (someone.first_name, someone.last_name) == ("Still", "Here")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_transactions_racing_for_the_same_message_write_one_row() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("a race between two connections needs PostgreSQL (SQLite serialises them)")
    user = User.objects.create(username="racing")
    start, results = threading.Barrier(2), []

    def race() -> None:
        try:
            start.wait()
            with transaction.atomic():
                results.append(queue(user))
        finally:
            connection.close()

    threads = [threading.Thread(target=race) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(result is None for result in results) == [False, True]
    assert Message.objects.count() == 1


@pytest.mark.parametrize("sin", ["046454286", "046 454 286", "046-454-286", "SIN: 046-454-286."])
def test_a_context_value_that_looks_like_a_sin_is_refused(someone, sin: str) -> None:
    with transaction.atomic(), pytest.raises(OutboxError, match="looks like a SIN"):
        queue(someone, context={**CONTEXT, "employer": sin})
    assert not Message.objects.exists()


def test_a_kind_without_both_templates_is_refused(someone) -> None:
    assert {"application_received", "application_denied"} <= known_kinds()
    with transaction.atomic(), pytest.raises(OutboxError, match="no templates"):
        queue(someone, kind="application_lost_in_the_mail")
    with transaction.atomic(), pytest.raises(OutboxError, match="language"):
        queue(someone, language="de")


def test_the_recipients_language_chooses_the_template(someone) -> None:
    with transaction.atomic():
        english = queue(someone, to="en@example.com")
        french = queue(someone, to="fr@example.com", language="fr")
    assert english is not None and french is not None
    assert english.subject_line.startswith("We received")
    assert french.subject_line.startswith("Nous avons reçu")
    assert "Prochaines étapes" in french.body and "What happens next" not in french.body
    assert (english.language, french.language) == ("en", "fr")


def test_template_text_is_not_html_escaped(someone) -> None:
    with transaction.atomic():
        message = queue(someone, context={**CONTEXT, "employer": "Smith & Daughters <Ltd>"})
    assert message is not None and "Smith & Daughters <Ltd>" in message.body


def test_the_hand_over_writes_the_task_row_django_tasks_writes(someone) -> None:
    """The task row inserted by one statement is the row django-tasks' own enqueue writes, so
    the worker runs it as its own (its id, a UUID, and its time of queueing aside)."""
    from django_tasks_db.models import DBTaskResult

    from jobgrant.service.notifications.delivery_actions import deliver_message

    with transaction.atomic():
        message = queue(someone)
    assert message is not None
    ours = DBTaskResult.objects.get(args_kwargs__args=[message.pk])
    with transaction.atomic():
        theirs = DBTaskResult.objects.get(id=deliver_message.enqueue(message.pk).id)
    kept = ("status", "args_kwargs", "priority", "task_path", "queue_name", "backend_name")
    kept += ("run_after", "worker_ids", "return_value", "exception_class_path", "traceback")
    assert {f: getattr(ours, f) for f in kept} == {f: getattr(theirs, f) for f in kept}
    assert ours.id != theirs.id and ours.enqueued_at <= theirs.enqueued_at
    assert ours.task_result.task == theirs.task_result.task
