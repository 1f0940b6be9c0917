"""The django-tasks task that recomputes one KPI snapshot (run by `jobgrant worker`)."""

from __future__ import annotations

from django_tasks import task

from jobgrant.service.outcomes import snapshots


@task()
def refresh_kpi_snapshot(jurisdiction: str, fiscal_year: str) -> str:
    """Recompute the stored KPI cells of one jurisdiction and year: "refreshed" or "skipped"
    (a refresh finished since this one was asked for)."""
    return snapshots.refresh_if_asked(jurisdiction, fiscal_year)
