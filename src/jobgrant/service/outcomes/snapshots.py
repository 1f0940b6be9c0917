"""The KPIs read from stored cells: what the pages, the API and the reports show (ADR 0032).

A snapshot (`grants.KpiSnapshot`) holds one jurisdiction's cells for one fiscal year, as the KPI
statements returned them (`kpis.live_cells`), unsuppressed. Reading the KPIs adds up the stored
cells (Canada: every jurisdiction's) and suppresses after adding up, exactly as `kpis.compute`
does with the cells it has just read, so both give the same report for the same records.

- A scope with no snapshot, or only one of older definitions, is computed now and stored: a page
  never shows empty figures (a fresh `make run`, the tests).
- Fresh: the worker's periodic job hands every snapshot older than JOBGRANT_KPI_REFRESH_MINUTES
  (or of older definitions) to the `refresh_kpi_snapshot` task; an analyst's "Refresh now" hands
  over the scope's snapshots at once. A snapshot knows when a refresh was asked for, so the page
  can say it is under way and the schedule does not ask twice.
- The definitions' version is a digest of the statements' source and the cells' dimensions: a
  change to either makes every stored snapshot unreadable until it is computed again.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import inspect
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.service.grants.models import KpiSnapshot
from jobgrant.service.outcomes import kpi_sql, kpis
from jobgrant.service.outcomes.kpi_sql import PEOPLE_SUMS, FileGroup
from jobgrant.service.outcomes.kpis import Cells
from jobgrant.service.outcomes.suppression import suppress as suppress_report
from jobgrant.service.outcomes.tables import KpiReport

#: A lost task (a worker killed mid-refresh) is asked for again after this long.
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


# --- Reading ----------------------------------------------------------------------------------


def read(jurisdiction: str | None, fiscal_year: str, *, suppress: bool = True) -> KpiReport:
    """The KPIs of `jurisdiction` (None: Canada) for `fiscal_year` from the stored cells,
    computing and storing any that are missing; `as_of` is the oldest snapshot's time."""
    snapshots = current_snapshots(scope_jurisdictions(jurisdiction), fiscal_year)
    cells = kpis.merged(decoded(snapshot.cells) for snapshot in snapshots)
    report = kpis.report_from_cells(jurisdiction, fiscal_year, cells)
    report = replace(report, as_of=min(snapshot.computed_at for snapshot in snapshots))
    return suppress_report(report) if suppress else report


def current_snapshots(jurisdictions: Sequence[str], fiscal_year: str) -> list[KpiSnapshot]:
    """The snapshots of the current definitions, the missing ones computed now."""
    found = {
        snapshot.jurisdiction: snapshot
        for snapshot in KpiSnapshot.objects.filter(
            fiscal_year=fiscal_year, jurisdiction__in=jurisdictions, definitions=DEFINITIONS
        )
    }
    return [found.get(code) or refresh(code, fiscal_year) for code in jurisdictions]


@dataclass(frozen=True)
class Freshness:
    """What a page says about its figures: as of when, and whether a refresh is under way
    (`done` of `scopes` jurisdictions computed since it was asked for)."""

    as_of: dt.datetime
    pending: bool
    done: int
    scopes: int
    requested_at: dt.datetime | None


def freshness(jurisdiction: str | None, fiscal_year: str) -> Freshness | None:
    """None when the scope has no snapshot (the page computes it on reading)."""
    snapshots = list(
        KpiSnapshot.objects.filter(
            fiscal_year=fiscal_year, jurisdiction__in=scope_jurisdictions(jurisdiction)
        )
    )
    if not snapshots:
        return None
    pending = [s for s in snapshots if s.refresh_pending]
    requests = [s.refresh_requested_at for s in snapshots if s.refresh_requested_at]
    return Freshness(
        as_of=min(s.computed_at for s in snapshots),
        pending=bool(pending),
        done=len(snapshots) - len(pending),
        scopes=len(snapshots),
        requested_at=max(requests) if pending and requests else None,
    )


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


def decoded(stored: dict[str, list[list[Any]]]) -> Cells:
    people: kpis.Margins = {}
    for jurisdiction, delivery, dimension, answer, *sums in stored["people"]:
        dimensions = people.setdefault(FileGroup(jurisdiction, delivery), {})
        dimensions.setdefault(dimension, {})[answer] = dict(zip(PEOPLE_SUMS, sums, strict=True))
    files = {FileGroup(j, d): dict(sums) for j, d, sums in stored["files"]}
    return Cells(people=people, files=files)


# --- Keeping them fresh -----------------------------------------------------------------------


def request_refresh(jurisdiction: str | None, fiscal_year: str) -> int:
    """ "Refresh now": hand the scope's snapshots to the worker (after the commit); how many."""
    return _hand_over((code, fiscal_year) for code in scope_jurisdictions(jurisdiction))


def refresh_stale_snapshots() -> int:
    """The worker's periodic job: hand over every snapshot that is out of date (older than the
    refresh interval, or of older definitions) unless its refresh is asked for and not lost."""
    lost = timezone.now() - REQUEST_LAPSES_AFTER
    stale = [
        (s.jurisdiction, s.fiscal_year)
        for s in KpiSnapshot.objects.all()
        if _out_of_date(s)
        and not (s.refresh_pending and s.refresh_requested_at and s.refresh_requested_at > lost)
    ]
    return _hand_over(stale)


def _out_of_date(snapshot: KpiSnapshot) -> bool:
    interval = dt.timedelta(minutes=settings.JOBGRANT_KPI_REFRESH_MINUTES)
    return snapshot.definitions != DEFINITIONS or snapshot.computed_at < timezone.now() - interval


def _hand_over(scopes: Iterable[tuple[str, str]]) -> int:
    from jobgrant.service.outcomes.tasks import refresh_kpi_snapshot

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


def refresh_if_asked(jurisdiction: str, fiscal_year: str) -> str:
    """The task's part: refresh, unless a refresh finished since this one was asked for (two
    requests for the same scope; the second finds the snapshot current and not pending)."""
    snapshot = KpiSnapshot.objects.filter(
        jurisdiction=jurisdiction, fiscal_year=fiscal_year
    ).first()
    if snapshot is not None and not snapshot.refresh_pending and not _out_of_date(snapshot):
        return "skipped"
    refresh(jurisdiction, fiscal_year)
    return "refreshed"
