"""The django-tasks task that recomputes one KPI snapshot (run by `jobgrant worker`)."""

from __future__ import annotations

from django_tasks import task

from jobgrant.service.outcomes import snapshot_actions


@task()
def refresh_kpi_snapshot(jurisdiction: str, fiscal_year: str) -> str:
    """Recompute the stored KPI cells of one jurisdiction and year: "refreshed" or "skipped"
    (a refresh finished since this one was asked for)."""
    return snapshot_actions.refresh_if_asked(jurisdiction, fiscal_year)
