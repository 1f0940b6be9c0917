"""The KPIs' stored cells written: computed from the records and stored, and handed to the
worker when out of date (ADR 0032). `snapshots` reads them; this module is the only writer (the
page's first read of a scope, the worker's task, the periodic job, an analyst's "Refresh now").

The definitions' version is a digest of the statements' source, the cells' dimensions and the
reduction to margins: a change to any makes every stored snapshot unreadable until it is
computed again.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import inspect
import time
from collections.abc import Iterable

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django_tasks import task

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.service.accounts.models import User
from jobgrant.service.audit.chain import record
from jobgrant.service.grants.models.applications import Program
from jobgrant.service.grants.models.kpi import KpiSnapshot
from jobgrant.service.outcomes import kpi_sql, kpis
from jobgrant.service.outcomes.kpi_sql import PEOPLE_SUMS
from jobgrant.service.outcomes.kpis import Cells

REQUEST_LAPSES_AFTER = dt.timedelta(hours=1)


def definitions_version() -> str:
    """A digest of what the cells mean: the statements' source, the cells' dimensions and the
    code that reduces them to margins."""
    digest = hashlib.sha256(inspect.getsource(kpi_sql).encode())
    digest.update(repr(kpis.CELL_DIMENSIONS).encode())
    digest.update(inspect.getsource(kpis.live_cells).encode())
    return digest.hexdigest()[:16]


DEFINITIONS = definitions_version()


def scope_jurisdictions(jurisdiction: str | None) -> tuple[str, ...]:
    """The snapshots a report adds up: its jurisdiction's, or for Canada every jurisdiction's
    (a file's jurisdiction is one of the codes; federal-direct files are in theirs)."""
    return (jurisdiction,) if jurisdiction else tuple(JURISDICTION_CODES)


# --- Storing ----------------------------------------------------------------------------------


def refresh(jurisdiction: str, fiscal_year: str) -> KpiSnapshot:
    """Compute the cells of one jurisdiction and year from the records and store them."""
    started = time.perf_counter()
    with transaction.atomic():
        _without_jit()
        computed_at = timezone.now()
        cells = kpis.live_cells(jurisdiction, fiscal_year)
    snapshot, _ = KpiSnapshot.objects.update_or_create(
        jurisdiction=jurisdiction,
        fiscal_year=fiscal_year,
        defaults={
            "definitions": DEFINITIONS,
            "computed_at": computed_at,
            "seconds": time.perf_counter() - started,
            "cells": encoded(cells),
        },
    )
    return snapshot


def _without_jit() -> None:
    """PostgreSQL's JIT compiles each large statement for about a second and gains less than
    that on these (bench/kpis.py); off for this transaction only."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL jit = off")


def encoded(cells: Cells) -> dict[str, list[list[object]]]:
    """Cells as JSON: a margin is [jurisdiction, delivery, dimension, answer, *sums] with the sums
    in PEOPLE_SUMS order; the files' sums are [jurisdiction, delivery, {name: sum}]."""
    return {
        "people": [
            [group.jurisdiction, group.delivery, dimension, answer]
            + [sums.get(name, 0) for name in PEOPLE_SUMS]
            for group, dimensions in cells.people.items()
            for dimension, answers in dimensions.items()
            for answer, sums in answers.items()
        ],
        "files": [
            [group.jurisdiction, group.delivery, sums] for group, sums in cells.files.items()
        ],
    }


# --- Keeping them fresh -----------------------------------------------------------------------


def request_refresh(jurisdiction: str | None, fiscal_year: str) -> int:
    """ "Refresh now": hand the scope's snapshots to the worker (after the commit); how many."""
    return _hand_over((code, fiscal_year) for code in scope_jurisdictions(jurisdiction))


def refresh_stale_snapshots() -> int:
    """The worker's periodic job: hand over every snapshot that is out of date (older than the
    refresh interval, or of older definitions) unless its refresh is asked for and not lost.
    Only the fiscal years that have a program: a year with none has no records to change."""
    lost = timezone.now() - REQUEST_LAPSES_AFTER
    years = Program.objects.values("fiscal_year")
    stale = [
        (s.jurisdiction, s.fiscal_year)
        for s in KpiSnapshot.objects.defer("cells").filter(fiscal_year__in=years)
        if _out_of_date(s)
        and not (s.refresh_pending and s.refresh_requested_at and s.refresh_requested_at > lost)
    ]
    return _hand_over(stale)


def _out_of_date(snapshot: KpiSnapshot) -> bool:
    interval = dt.timedelta(minutes=settings.JOBGRANT_KPI_REFRESH_MINUTES)
    return snapshot.definitions != DEFINITIONS or snapshot.computed_at < timezone.now() - interval


def _hand_over(scopes: Iterable[tuple[str, str]]) -> int:
    scopes = list(scopes)
    now = timezone.now()
    with transaction.atomic():
        for code, fiscal_year in scopes:
            KpiSnapshot.objects.filter(jurisdiction=code, fiscal_year=fiscal_year).update(
                refresh_requested_at=now
            )
            transaction.on_commit(
                lambda code=code, fiscal_year=fiscal_year: refresh_kpi_snapshot.enqueue(  # type: ignore[misc]
                    code, fiscal_year
                ),
                robust=True,
            )
    return len(scopes)


@task()
def refresh_kpi_snapshot(jurisdiction: str, fiscal_year: str) -> str:
    """The worker's task: recompute the stored KPI cells of one jurisdiction and year,
    "refreshed", unless a refresh finished since this one was asked for, "skipped" (two requests
    for the same scope; the second finds the snapshot current and not pending)."""
    found = KpiSnapshot.objects.defer("cells")
    snapshot = found.filter(jurisdiction=jurisdiction, fiscal_year=fiscal_year).first()
    if snapshot is not None and not snapshot.refresh_pending and not _out_of_date(snapshot):
        return "skipped"
    refresh(jurisdiction, fiscal_year)
    return "refreshed"


def ask_for_refresh(user: User, jurisdiction: str | None, fiscal_year: str) -> int:
    """An analyst's "Refresh now" (the role is checked by `access`): the scope's snapshots
    handed to the worker, audited; how many."""
    scope = jurisdiction or "CA"
    with transaction.atomic():
        handed = request_refresh(jurisdiction, fiscal_year)
        summary = {"jurisdiction": scope, "fiscal_year": fiscal_year, "snapshots": handed}
        record(user.username, "kpis.refresh", "kpis", f"{scope}/{fiscal_year}", summary)
    return handed
