"""The gauges read from the database when the metrics are scraped: the outbox, the task queue
and the payment batches. One query each, at each scrape, on a connection closed after it; served
by the servers' metrics listener only (endpoint.py), so that N workers do not report the same
figures N times.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator
from typing import Any

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

log = logging.getLogger("jobgrant.metrics")

#: The outbox's states whose oldest row's age is reported: the ones still to be delivered. (A
#: sent or failed row stays for the record; its age says nothing.)
IN_FLIGHT = ("queued", "sending")
#: Payment batches not reconciled yet, whose oldest age is reported.
OPEN_BATCHES = ("built", "authorized", "exported")


def _age(now: dt.datetime, since: dt.datetime | None) -> float:
    return max(0.0, (now - since).total_seconds()) if since is not None else 0.0


class DatabaseCollector(Collector):
    def collect(self) -> Iterator[Metric]:
        from django.db import DatabaseError, connections

        try:
            yield from self._families()
        except DatabaseError as error:
            log.warning("metrics: the database does not answer (%s)", type(error).__name__)
            up = GaugeMetricFamily("jobgrant_database_up", "Whether the database answered")
            up.add_metric([], 0)
            yield up
        finally:
            connections.close_all()

    def _families(self) -> Iterator[Metric]:
        _setup_django()
        from django.utils import timezone

        now = timezone.now()
        yield from _outbox(now)
        yield from _tasks(now)
        yield from _payment_batches(now)
        up = GaugeMetricFamily("jobgrant_database_up", "Whether the database answered")
        up.add_metric([], 1)
        yield up


def _outbox(now: dt.datetime) -> list[Metric]:

    from jobgrant.service.notifications.models import Message, MessageState

    depth = GaugeMetricFamily(
        "jobgrant_outbox_messages", "Outbox messages by state", labels=["state"]
    )
    oldest = GaugeMetricFamily(
        "jobgrant_outbox_oldest_age_seconds",
        "Age of the oldest outbox message in a state still to be delivered",
        labels=["state"],
    )
    _count_and_age_by_state(
        Message.objects, "created_at", MessageState.values, IN_FLIGHT, now, depth, oldest
    )
    return [depth, oldest]


def _count_and_age_by_state(
    rows: Any,
    stamp: str,
    states: Any,
    still_open: Any,
    now: dt.datetime,
    count: GaugeMetricFamily,
    age: GaugeMetricFamily,
) -> None:
    """Each state's count into `count`, and for the states still open the age of the oldest
    row (by its `stamp`) into `age`: one grouped query."""
    from django.db.models import Count, Min

    counted = rows.values("state").annotate(n=Count("pk"), first=Min(stamp))
    found: dict[str, dict[str, Any]] = {str(row["state"]): dict(row) for row in counted}
    for state in states:
        row = found.get(state, {})
        count.add_metric([state], row.get("n", 0))
        if state in still_open:
            age.add_metric([state], _age(now, row.get("first")))


def _tasks(now: dt.datetime) -> list[Metric]:
    from django.db.models import Count, Min, Q
    from django_tasks import TaskResultStatus
    from django_tasks_db.models import DBTaskResult, get_date_max

    never = get_date_max()  # django-tasks-db's run_after of a task to run at once
    due = DBTaskResult.objects.filter(
        Q(run_after__lte=now) | Q(run_after=never), status=TaskResultStatus.READY
    )
    tasks = GaugeMetricFamily(
        "jobgrant_tasks_due", "Worker tasks due and not started, by task", labels=["task"]
    )
    lag = GaugeMetricFamily(
        "jobgrant_tasks_oldest_due_age_seconds",
        "How long the oldest due task has waited for a worker (the job lag), by task",
        labels=["task"],
    )
    counted = due.values("task_path").annotate(
        n=Count("pk"), first=Min("enqueued_at"), after=Min("run_after")
    )
    from jobgrant.service.notifications.delivery_actions import deliver_message

    rows: dict[str, dict[str, Any]] = {str(row["task_path"]): dict(row) for row in counted}
    # The outbox's delivery task is always reported, 0 when none is due.
    rows.setdefault(deliver_message.module_path, {"n": 0, "first": None, "after": None})
    for path, row in rows.items():
        since = row["first"]
        if since is not None and row["after"] is not None and row["after"] != never:
            since = max(since, row["after"])
        tasks.add_metric([path], row["n"])
        lag.add_metric([path], _age(now, since))
    return [tasks, lag]


def _payment_batches(now: dt.datetime) -> list[Metric]:

    from jobgrant.service.grants.models.payments import BatchState, PaymentBatch

    batches = GaugeMetricFamily(
        "jobgrant_payment_batches", "Payment batches by state", labels=["state"]
    )
    oldest = GaugeMetricFamily(
        "jobgrant_payment_batch_oldest_age_seconds",
        "Age of the oldest payment batch not yet reconciled, by state (since it was built)",
        labels=["state"],
    )
    _count_and_age_by_state(
        PaymentBatch.objects, "built_at", BatchState.values, OPEN_BATCHES, now, batches, oldest
    )
    return [batches, oldest]


def _setup_django() -> None:
    """The gunicorn master serves the metrics but does not load the application: set Django up
    the first time (its connections are closed after each scrape, so none is inherited by a
    worker forked later)."""
    import os

    from django.apps import apps

    if not apps.ready:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jobgrant.service.settings")
        import django

        django.setup()
