"""Load the demonstration history once: `seed_history`.

Each step commits on its own, as the people's actions would (a server running beside the loading
keeps answering; on SQLite a single transaction of a minute would hold every other writer). An
audit entry marks the start and another the end: a loading that was stopped half-way is seen
and not started again over the files it made (`HistoryInterrupted`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction

from jobgrant.service.audit.chain import record
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.demo import DemoRefused
from jobgrant.service.demo_history.cast import assemble, open_programs
from jobgrant.service.demo_history.comparison_steps import earmark_intakes
from jobgrant.service.demo_history.plan import Plan, load_rates, make_plan
from jobgrant.service.demo_history.refused_plan import with_refused
from jobgrant.service.demo_history.walk import walk

STARTED = "demo.history_started"
LOADED = "demo.history_loaded"


class HistoryInterrupted(RuntimeError):  # noqa: N818
    """The history's loading started once and never finished."""


@dataclass(frozen=True)
class Loaded:
    seed: int
    files: int
    trainees: int
    steps: int
    seconds: float
    cpu_seconds: float
    #: The files refused for lack of budget (the comparison group), besides `files`.
    refused: int = 0


def history_state() -> str:
    """ "loaded", "interrupted" (started, never finished) or "absent"."""
    actions = set(
        AuditEntry.objects.filter(action__in=[STARTED, LOADED]).values_list("action", flat=True)
    )
    if LOADED in actions:
        return "loaded"
    return "interrupted" if STARTED in actions else "absent"


def seed_history(
    seed: int | None = None,
    *,
    files_per_year: dict[str, int] | None = None,
    years: tuple[int, int] | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> Loaded | None:
    """Load the history unless it is there (None). Refused in production; a loading stopped
    half-way raises HistoryInterrupted rather than adding a second history over the first."""
    if settings.PRODUCTION:
        raise DemoRefused("demonstration data is refused when JOBGRANT_ENV=production")
    state = history_state()
    if state == "loaded":
        return None
    if state == "interrupted":
        raise HistoryInterrupted(
            "the demonstration history's loading was stopped before its end; it is not loaded "
            "again over the files it made (start from a fresh database to load it whole)"
        )
    started, cpu = time.perf_counter(), time.process_time()
    plan = with_refused(make_plan(seed, files_per_year=files_per_year, years=years))
    federal_direct = set(load_rates()[0]["history"]["federal_direct"])
    with transaction.atomic():
        _mark(STARTED, plan)
        cast = assemble(plan, federal_direct)
        open_programs(plan, federal_direct)
        earmark_intakes(plan)
    with _commits_not_waiting_for_the_disk():
        steps = walk(plan, cast, progress)
    with transaction.atomic():
        _mark(LOADED, plan, steps=steps)
    return Loaded(
        plan.seed,
        len(plan.files),
        plan.trainees,
        steps,
        time.perf_counter() - started,
        time.process_time() - cpu,
        len(plan.refused),
    )


@contextmanager
def _commits_not_waiting_for_the_disk() -> Iterator[None]:
    """The history's hundreds of commits do not each wait for the disk (SQLite: synchronous
    NORMAL in WAL; PostgreSQL: synchronous_commit off, this session only). A crash may lose the
    last of them, never consistency; the loading is then seen as interrupted (no end mark)."""
    statements = {
        "sqlite": ("PRAGMA synchronous", "PRAGMA synchronous=NORMAL", "PRAGMA synchronous={}"),
        "postgresql": (
            "SHOW synchronous_commit",
            "SET synchronous_commit TO off",
            "SET synchronous_commit TO {}",
        ),
    }.get(connection.vendor)
    if statements is None or connection.in_atomic_block:
        yield  # inside a transaction (the tests): nothing is committed until its end anyway
        return
    read, relax, restore = statements
    with connection.cursor() as cursor:
        cursor.execute(read)
        before = cursor.fetchone()[0]
        cursor.execute(relax)
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(restore.format(before))


def _mark(action: str, plan: Plan, **also: int) -> None:
    summary = {"seed": plan.seed, "files": len(plan.files), "trainees": plan.trainees, **also}
    record("demo-seed", action, "demo", plan.seed, summary)
