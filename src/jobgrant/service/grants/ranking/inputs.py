"""What the rules kernel scores, read from an intake's applications as they were submitted."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np

from jobgrant.rules.scoring.score import ScoringInputs
from jobgrant.service.grants.models.applications import (
    Application,
    ApplicationEmployer,
    State,
    StateChange,
)

#: The trainee statuses the "new hires or unemployed" criterion counts.
NEW_HIRE_STATUSES = frozenset({"new-hire", "unemployed"})
RANKED_STATES = (State.SUBMITTED, State.RECOMMENDED)


def rankable(intake_id: int) -> list[Application]:
    """The intake's eligible applications awaiting a decision, by file number."""
    return list(
        Application.objects.filter(intake_id=intake_id, state__in=RANKED_STATES, eligible=True)
        .order_by("id")
        .defer("explanation")
    )


def scoring_inputs(applications: list[Application]) -> ScoringInputs:
    leads = _leads(applications)
    trainees = [_trainees(a.request) for a in applications]
    return ScoringInputs(
        employees=_column(leads[a.pk][1] for a in applications),
        trainees=_column(len(t) for t in trainees),
        new_hires=_column(
            sum(1 for t in group if t.get("status") in NEW_HIRE_STATUSES) for group in trainees
        ),
        # The application form does not ask yet which trainees belong to an under-represented
        # group: the criterion reads what a trainee declares, and none declares it.
        under_represented=_column(
            sum(1 for t in group if t.get("under_represented") is True) for group in trainees
        ),
        first_time=np.array([_first_time(leads[a.pk][0], a) for a in applications], dtype=bool),
        government_cents=_column(a.federal_cents + a.provincial_cents for a in applications),
        regions=[_region(a.request) for a in applications],
    )


def submitted_at(applications: list[Application]) -> dict[int, dt.datetime]:
    """When each application was submitted (its last submission, from its history)."""
    rows = StateChange.objects.filter(
        application__in=applications, to_state=State.SUBMITTED
    ).values_list("application_id", "at")
    return dict(sorted(rows, key=lambda row: row[1]))


def _leads(applications: list[Application]) -> dict[int, tuple[int, int]]:
    """application id -> (lead employer id, its employees when it applied)."""
    rows = ApplicationEmployer.objects.filter(application__in=applications, position=0)
    return {
        r.application_id: (r.employer_id, r.employees or 0)
        for r in rows.only("application_id", "employer_id", "employees")
    }


def _first_time(employer_id: int, application: Application) -> bool:
    """No earlier application of this employer was approved (whatever became of it after)."""
    earlier = ApplicationEmployer.objects.filter(
        employer_id=employer_id,
        application__decided_by__isnull=False,
        application__state__in=(State.APPROVED, State.WITHDRAWN),
        application__id__lt=application.pk,
    )
    return not earlier.exists()


def _trainees(request: Any) -> list[dict[str, Any]]:
    trainees = request.get("trainees") if isinstance(request, dict) else None
    return [t for t in trainees if isinstance(t, dict)] if isinstance(trainees, list) else []


def _region(request: Any) -> str | None:
    region = request.get("region") if isinstance(request, dict) else None
    return region if isinstance(region, str) and region else None


def _column(values: Any) -> np.ndarray[Any, np.dtype[np.int64]]:
    return np.fromiter(values, dtype=np.int64)
