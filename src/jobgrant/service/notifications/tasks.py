"""The django-tasks task the outbox hands a committed row to (run by `jobgrant worker`)."""

from __future__ import annotations

from django_tasks import task

from jobgrant.service.notifications import delivery_actions


@task()
def deliver_message(message_id: int) -> str:
    """Try to deliver one outbox row; returns what happened ("sent", "retry", "failed",
    "skipped" when the row is not due or another worker holds it)."""
    return delivery_actions.deliver(message_id)
