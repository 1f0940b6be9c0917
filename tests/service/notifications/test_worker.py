"""The worker's own loop: periodic jobs at their interval, a failing job does not stop it, a
signal stops it after the task in hand."""

from __future__ import annotations

import signal
import threading
from typing import Any

import pytest

from jobgrant.service import schedule
from jobgrant.service.notifications.worker import OutboxWorker, PeriodicJob, periodic_jobs

CALLS: list[str] = []


def counted() -> None:
    CALLS.append("counted")


def broken() -> None:
    CALLS.append("broken")
    raise RuntimeError("this job is broken")


def jobs() -> list[PeriodicJob]:
    here = __name__
    return [
        PeriodicJob("broken", f"{here}:broken", 3600),
        PeriodicJob("counted", f"{here}:counted", 3600),
    ]


@pytest.mark.django_db(transaction=True)
def test_each_periodic_job_runs_at_its_interval_and_a_failure_is_logged(caplog: Any) -> None:
    CALLS.clear()
    worker = OutboxWorker("test-worker", interval=0, jobs=jobs())
    worker.turn()
    assert CALLS == ["broken", "counted"]  # the broken job did not stop the next one
    assert "periodic job broken failed" in caplog.text
    worker.turn()
    assert CALLS == ["broken", "counted"]  # not due again for an hour
    worker.jobs[1].next_run = 0
    worker.turn()
    assert CALLS == ["broken", "counted", "counted"]


def test_the_schedule_lists_importable_jobs() -> None:
    for job in periodic_jobs(schedule.PERIODIC_JOBS):
        assert callable(job.function()), job.name
        assert job.every_seconds > 0


@pytest.mark.django_db(transaction=True)
def test_a_signal_stops_the_loop_and_a_second_one_stops_it_at_once() -> None:
    worker = OutboxWorker("test-worker", interval=0.05)
    stopper = threading.Timer(0.3, worker.stop, args=(signal.SIGTERM, None))
    stopper.start()
    worker.run()  # returns once stopped (run in the main thread: it installs the handlers)
    assert worker.stopping.is_set()
    with pytest.raises(SystemExit):
        worker.stop(signal.SIGTERM, None)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def synchronous_setting() -> str:
    from django.db import connection

    query = {"postgresql": "SHOW synchronous_commit", "sqlite": "PRAGMA synchronous"}
    with connection.cursor() as cursor:
        cursor.execute(query[connection.vendor])
        return str(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
def test_the_workers_own_commits_are_relaxed_and_a_periodic_jobs_are_durable() -> None:
    from django.db import connection
    from django.db.backends.signals import connection_created

    from jobgrant.service.notifications import worker

    durable = {"postgresql": "on", "sqlite": "2"}[connection.vendor]  # sqlite: 2 = FULL
    relaxed = {"postgresql": "off", "sqlite": "1"}[connection.vendor]  # sqlite: 1 = NORMAL
    assert synchronous_setting() == durable
    seen: list[str] = []
    try:
        worker.relax_commit_durability()
        assert synchronous_setting() == relaxed
        job = PeriodicJob("seen", f"{__name__}:counted", 60)
        job.function = lambda: lambda: seen.append(synchronous_setting())  # type: ignore[method-assign]
        job.run_durably()
        assert seen == [durable]
        assert synchronous_setting() == relaxed
    finally:
        connection_created.disconnect(worker._commit_without_waiting_for_the_disk)
        worker._relaxed = False
        connection.close()


@pytest.mark.django_db(transaction=True)
def test_the_daily_prune_drops_old_finished_task_results_only() -> None:
    import datetime as dt

    from django.utils import timezone
    from django_tasks_db.models import DBTaskResult

    from jobgrant.service.notifications.delivery_actions import deliver_message
    from jobgrant.service.notifications.worker import prune_task_results

    old, recent, waiting = (deliver_message.enqueue(n).id for n in (1, 2, 3))
    long_ago = timezone.now() - dt.timedelta(days=30)
    DBTaskResult.objects.filter(id__in=[old, recent]).update(
        status="SUCCESSFUL", finished_at=timezone.now()
    )
    DBTaskResult.objects.filter(id=old).update(finished_at=long_ago)
    prune_task_results()
    assert {str(pk) for pk in DBTaskResult.objects.values_list("id", flat=True)} == {
        str(recent),
        str(waiting),
    }
