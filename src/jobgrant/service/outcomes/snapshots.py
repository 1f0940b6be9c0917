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
- The definitions' version (`snapshot_actions.DEFINITIONS`): a snapshot of other definitions is
  never read. Every write is in `snapshot_actions`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from jobgrant.service.grants.models.kpi import KpiSnapshot
from jobgrant.service.outcomes import kpis
from jobgrant.service.outcomes.kpi_sql import PEOPLE_SUMS, FileGroup
from jobgrant.service.outcomes.kpis import Cells
from jobgrant.service.outcomes.snapshot_actions import DEFINITIONS, refresh, scope_jurisdictions
from jobgrant.service.outcomes.suppression import suppress as suppress_report
from jobgrant.service.outcomes.tables import KpiReport

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
        KpiSnapshot.objects.defer("cells").filter(
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


def decoded(stored: dict[str, list[list[Any]]]) -> Cells:
    people: kpis.Margins = {}
    for jurisdiction, delivery, dimension, answer, *sums in stored["people"]:
        dimensions = people.setdefault(FileGroup(jurisdiction, delivery), {})
        dimensions.setdefault(dimension, {})[answer] = dict(zip(PEOPLE_SUMS, sums, strict=True))
    files = {FileGroup(j, d): dict(sums) for j, d, sums in stored["files"]}
    return Cells(people=people, files=files)
