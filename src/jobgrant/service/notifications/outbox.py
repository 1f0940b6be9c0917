"""enqueue(): how an action says "tell this person", inside its transaction.

The row commits or rolls back with the event that caused it (a transactional outbox), so a
message is never sent for something that did not happen, nor lost for something that did.
The row is handed to the worker as a django-tasks task in the same transaction (the task's row
commits with the message, where a hand-over after the commit was a transaction of its own for
every approval and submit, and could be lost in a crash between the two); the worker also
sweeps for due rows whose task is gone.
"""

from __future__ import annotations

import re
import uuid

from django.conf import settings
from django.db import models, transaction
from django.template import Context, Engine, engines
from django.utils import translation
from django_tasks_db.backend import DatabaseBackend
from django_tasks_db.models import DBTaskResult, get_date_max

from jobgrant.service import rows
from jobgrant.service.notifications import notify_config
from jobgrant.service.notifications.delivery_actions import deliver_message
from jobgrant.service.notifications.kinds import LANGUAGES, known_kinds
from jobgrant.service.notifications.models import Message
from jobgrant.service.observability import request_id
from jobgrant.service.registry.identifiers import looks_like_sin

#: What a mail program would turn into a link: an address with a scheme, one starting with
#: www., or a bare domain name (letters, a dot, two letters or more), with its path.
_LINK_LIKE = re.compile(
    r"(?:[a-z][a-z0-9+.-]*://|www\.)\S*|\b[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b(?:/\S*)?",
    re.IGNORECASE,
)
_QUOTES = {"en": ("“", "”"), "fr": ("« ", " »")}


def quoted(text: str, language: str = "en") -> str:
    """A name someone typed (a person's, an organization's), as a message to somebody else
    shows it: anything a mail program would make a link of removed, spaces collapsed, between
    quotation marks, so that it reads as what it is, a name typed by a registrant."""
    plain = " ".join(_LINK_LIKE.sub(" ", str(text)).split())
    opening, closing = _QUOTES.get(language, _QUOTES["en"])
    return f"{opening}{plain}{closing}" if plain else f"{opening.strip()}{closing.strip()}"


class OutboxError(ValueError):
    """A programming error in a call to enqueue (never shown to a user)."""


def render(kind: str, language: str, context: dict[str, str | int]) -> tuple[str, str]:
    """(subject, body) of a kind's template in a language: its first line is `Subject: …`."""
    engine: Engine = engines["django"].engine  # type: ignore[attr-defined]
    template = engine.get_template(f"notifications/{kind}.{language}.txt")
    with translation.override(language):  # plain text: nothing is HTML-escaped
        text = template.render(Context(context, autoescape=False))
    first, _, rest = text.lstrip("\n").partition("\n")
    if not first.startswith("Subject:"):
        raise OutboxError(f"notifications/{kind}.{language}.txt must start with 'Subject: '")
    return first.removeprefix("Subject:").strip(), rest.strip("\n") + "\n"


def enqueue(
    kind: str,
    *,
    subject: models.Model,
    milestone: str = "",
    to: str,
    language: str,
    context: dict[str, str | int],
) -> Message | None:
    """Queue one message to `to` about `subject`, in the recipient's `language`.

    Returns None, writing nothing, when this (kind, subject, milestone, recipient) was queued
    before: an event that happens twice (a retried request, two workers) tells a person once."""
    if not transaction.get_connection().in_atomic_block:
        raise OutboxError("enqueue runs inside the transaction of the event that causes it")
    if kind not in known_kinds():
        raise OutboxError(f"no templates notifications/{kind}.en.txt and .fr.txt")
    if language not in LANGUAGES:
        raise OutboxError(f"language must be one of {LANGUAGES}, not {language!r}")
    if subject.pk is None:
        raise OutboxError("the subject of a message must be saved first")
    for name, value in context.items():
        if looks_like_sin(value):
            raise OutboxError(
                f"context value {name!r} looks like a SIN: never put one in a message"
            )
    recipient = to.strip().lower()
    if "@" not in recipient:
        raise OutboxError("`to` must be an email address")
    if settings.JOBGRANT_DELIVERY == "notify":
        notify_config.check_kind(kind, language)
    subject_line, body = render(kind, language, context)
    message = Message(
        kind=kind,
        subject_type=subject._meta.label_lower,
        subject_id=str(subject.pk),
        milestone=milestone,
        recipient=recipient,
        language=language,
        subject_line=subject_line[:255],
        body=body,
        request_id=request_id.current() or None,
    )
    if not rows.insert(message, unless_exists=_ONCE):
        return None
    _hand_over(message.pk)
    return message


#: The fields of the constraint that keeps a message to one (one_message_per_event_and_recipient):
#: a duplicate is not inserted, in one statement (where a savepoint, an INSERT and a release
#: were three; every submit and approval queues a message).
_ONCE = ("kind", "subject_type", "subject_id", "milestone", "recipient")


def _hand_over(pk: int) -> None:
    """Give the row to the worker (a django-tasks task, its row written in the message's
    transaction: the worker sees both once they commit). If the task is lost, the worker's sweep
    finds the row anyway. With the database backend the task's row is inserted by one prepared
    statement (service.rows), with the values django-tasks' own enqueue gives it: its ORM
    create and the two results it builds were a tenth of an approval's CPU."""
    backend = deliver_message.get_backend()
    if not isinstance(backend, DatabaseBackend) or backend.id_function is not None:
        deliver_message.enqueue(pk)
        return
    rows.insert(
        DBTaskResult(
            id=uuid.uuid4(),
            args_kwargs={"args": [pk], "kwargs": {}},
            priority=deliver_message.priority,
            task_path=deliver_message.module_path,
            queue_name=deliver_message.queue_name,
            run_after=get_date_max(),  # as django-tasks-db stores "no time set"
            backend_name=backend.alias,
        )
    )
