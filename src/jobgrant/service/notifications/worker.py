"""`jobgrant worker`: django-tasks' database worker, the outbox sweep and the periodic jobs.

One loop, one thread. Each turn it
- runs the django-tasks tasks that are ready (at most a batch, so nothing below waits long),
  through django-tasks-db's own Worker: it claims each task row under its lock, on SQLite and
  PostgreSQL alike;
- every sweep period, hands over the outbox rows whose task was lost (delivery_actions.sweep);
- runs each periodic job of jobgrant.service.schedule whose time has come.
SIGTERM or SIGINT stops it after the task in hand; a second signal stops it at once.
"""

from __future__ import annotations

import importlib
import logging
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from threading import Event
from types import FrameType
from typing import Any

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection
from django.db.backends.signals import connection_created
from django.db.migrations.executor import MigrationExecutor
from django_tasks_db.management.commands.db_worker import Worker as TasksWorker

from jobgrant.service.notifications import delivery_actions
from jobgrant.service.observability import request_id
from jobgrant.service.observability.metrics import (
    PERIODIC_LAST_OK,
    PERIODIC_RUNS,
    TASK_LAG,
    WORKER_HEARTBEAT,
)

log = logging.getLogger("jobgrant.notifications")
BATCH = 50  # tasks per turn, between two looks at the sweep and the periodic jobs


@dataclass
class PeriodicJob:
    name: str
    target: str  # "dotted.module:function"
    every_seconds: float
    next_run: float = 0.0

    def function(self) -> Callable[[], Any]:
        module, _, attribute = self.target.partition(":")
        found: Callable[[], Any] = getattr(importlib.import_module(module), attribute)
        return found

    def run_durably(self) -> None:
        with durable_commits():
            self.function()()


def _name(signum: int) -> str:
    return signal.Signals(signum).name


def periodic_jobs(listed: list[tuple[str, str, int]]) -> list[PeriodicJob]:
    return [PeriodicJob(name, target, float(every)) for name, target, every in listed]


class _Batch(TasksWorker):
    """django-tasks-db's worker, for one batch of ready tasks; counts what it ran."""

    ran = 0

    def run_task(self, db_task_result: Any) -> None:
        TASK_LAG.labels(db_task_result.task_path).observe(_lag_seconds(db_task_result))
        super().run_task(db_task_result)
        self.ran += 1


def _lag_seconds(db_task_result: Any) -> float:
    """How long the task waited for a worker: from when it was due (enqueued, or the time it
    was to run after) to now."""
    from django.utils import timezone
    from django_tasks_db.models import get_date_max

    due = db_task_result.enqueued_at
    run_after = db_task_result.run_after
    if run_after is not None and run_after != get_date_max():
        due = max(due, run_after)
    return max(0.0, float((timezone.now() - due).total_seconds()))


@dataclass
class OutboxWorker:
    worker_id: str
    interval: float = 1.0
    jobs: list[PeriodicJob] = field(default_factory=list)
    stopping: Event = field(default_factory=Event)
    _batch: _Batch | None = None
    _next_sweep: float = 0.0

    def stop(self, signum: int, frame: FrameType | None) -> None:
        if self.stopping.is_set():
            # The task in hand is abandoned: its row's lease expires and it is tried again.
            log.warning("worker %s: second %s, stopping now", self.worker_id, _name(signum))
            sys.exit(1)
        log.info("worker %s: %s, stopping after the task in hand", self.worker_id, _name(signum))
        self.stopping.set()
        if self._batch is not None:
            self._batch.running = False

    def run(self) -> None:
        signal.signal(signal.SIGTERM, self.stop)
        signal.signal(signal.SIGINT, self.stop)
        wait_for_migrations(self.stopping)
        log.info("worker %s: started (%d periodic jobs)", self.worker_id, len(self.jobs))
        while not self.stopping.is_set():
            close_old_connections()
            self.turn()
        log.info("worker %s: stopped", self.worker_id)

    def turn(self) -> int:
        """One turn of the loop; returns how many tasks ran (it waits `interval` after none)."""
        WORKER_HEARTBEAT.labels(self.worker_id).set(time.time())
        now = time.monotonic()
        if now >= self._next_sweep:
            self._next_sweep = now + settings.JOBGRANT_MESSAGE_SWEEP_SECONDS
            self._guarded("the outbox sweep", delivery_actions.sweep)
        for job in self.jobs:
            if now >= job.next_run and not self.stopping.is_set():
                job.next_run = now + job.every_seconds
                ok = self._guarded(f"periodic job {job.name}", job.run_durably)
                PERIODIC_RUNS.labels(job.name, "ok" if ok else "error").inc()
                if ok:
                    PERIODIC_LAST_OK.labels(job.name).set(time.time())
        ran = self._run_ready_tasks()
        if not ran:
            self.stopping.wait(self.interval)
        return ran

    def _run_ready_tasks(self) -> int:
        self._batch = _Batch(
            queue_names=["default"],
            interval=0,
            batch=True,
            backend_name="default",
            startup_delay=False,
            max_tasks=BATCH,
            worker_id=self.worker_id,
            excluded_queue_names=[],
        )
        if self.stopping.is_set():
            return 0
        try:
            self._batch.run()
        except DatabaseError:
            log.exception("worker %s: the task queue could not be read", self.worker_id)
            connection.close()
        return self._batch.ran

    def _guarded(self, what: str, run: Callable[[], Any]) -> bool:
        """Run one job under a request id of its own (its lines and audit entries share it);
        its failure is logged and does not stop the worker. Whether it succeeded."""
        with request_id.bound(request_id.new_id()):
            try:
                run()
            except Exception:
                log.exception("worker %s: %s failed", self.worker_id, what)
                close_old_connections()
                return False
        return True


_relaxed = False  # set by relax_commit_durability (`jobgrant worker` only)
_SYNCHRONOUS = {
    # vendor: (the worker's own commits, a periodic job's commits)
    "postgresql": ("SET synchronous_commit TO OFF", "SET synchronous_commit TO ON"),
    "sqlite": ("PRAGMA synchronous=NORMAL", "PRAGMA synchronous=FULL"),
}


def _set_synchronous(database: Any, durable: bool) -> None:
    statements = _SYNCHRONOUS.get(database.vendor)
    if statements is not None:
        with database.cursor() as cursor:
            cursor.execute(statements[durable])


def _commit_without_waiting_for_the_disk(sender: Any, connection: Any, **kwargs: Any) -> None:
    _set_synchronous(connection, durable=False)


@contextmanager
def durable_commits() -> Iterator[None]:
    """A periodic job changes the service's state (an offer expires, with its audit entry and
    postings): its commits wait for the disk, as the web process's do."""
    relaxed = _relaxed
    if relaxed:
        _set_synchronous(connection, durable=True)
    try:
        yield
    finally:
        if relaxed and connection.connection is not None:
            _set_synchronous(connection, durable=False)


def relax_commit_durability() -> None:
    """The worker's own commits (claims, outcomes, retry tasks) do not wait for the disk.

    What the worker writes is bookkeeping that a crash of the database may lose without losing
    a message: a lost `sent` re-sends the message with its same Message-ID; a lost claim or
    outcome leaves a lease that expires, or a queued row, which is tried again; a lost retry task
    is found by the sweep. The messages themselves are written, durably, in the transaction of
    their cause by the web process. PostgreSQL: synchronous_commit off (a crash of the server
    loses at most the last moment's commits, never consistency); SQLite in WAL: synchronous
    NORMAL (durable if the worker is killed; a power cut may lose the last commits)."""
    global _relaxed
    _relaxed = True
    connection_created.connect(_commit_without_waiting_for_the_disk, weak=False)
    if connection.connection is not None:  # already open: relax it too
        _set_synchronous(connection, durable=False)


def prune_task_results() -> None:
    """A periodic job: drop django-tasks' finished task rows older than 14 days (the outbox
    rows, which are the record of what was sent, are kept)."""
    from django.core.management import call_command

    call_command("prune_db_task_results", min_age_days=14, verbosity=0)


def wait_for_migrations(stopping: Event, patience: float = 300.0) -> None:
    """Wait until the database is migrated (`jobgrant serve`, started beside this worker by
    `make run`, migrates it; a deployment migrates before it starts the workers)."""
    deadline = time.monotonic() + patience
    while not stopping.is_set():
        try:
            executor = MigrationExecutor(connection)
            if not executor.migration_plan(executor.loader.graph.leaf_nodes()):
                return
        except DatabaseError:
            connection.close()
        if time.monotonic() > deadline:
            raise SystemExit("the database is not migrated: run `jobgrant serve` or migrate first")
        stopping.wait(1.0)
