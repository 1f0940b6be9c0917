"""The django-tasks task each slice of an analyst's run is handed to (run by `jobgrant worker`)."""

from __future__ import annotations

from django_tasks import task

from jobgrant.service.analysis import actions


@task()
def run_simulation_slice(run_id: int, first_draw: int) -> str:
    """Compute and store one slice of a run's draws; "stored", "finished", "failed" or
    "skipped" (the run is finished or the slice already stored)."""
    return actions.run_slice(run_id, first_draw)
