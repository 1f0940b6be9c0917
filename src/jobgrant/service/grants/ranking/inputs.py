"""What the rules kernel scores, read from an intake's applications as they were submitted."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
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


def scoring_inputs(
    applications: list[Application],
    *,
    government_cents: Sequence[int] | None = None,
    first_time: Mapping[int, bool] | None = None,
) -> ScoringInputs:
    """The columns the kernel scores, one row per application. `government_cents` replaces
    the stored quotes' government shares (a replay under another policy); `first_time` gives
    the "first time" answer already known for some files (by file number), as recorded when
    they were ranked: the others are read from the files' history."""
    leads = _leads(applications)
    trainees = [_trainees(a.request) for a in applications]
    known = first_time or {}
    government = (
        government_cents
        if government_cents is not None
        else [a.federal_cents + a.provincial_cents for a in applications]
    )
    return ScoringInputs(
        employees=_column(leads[a.pk][1] for a in applications),
        trainees=_column(len(t) for t in trainees),
        new_hires=_column(
            sum(1 for t in group if t.get("status") in NEW_HIRE_STATUSES) for group in trainees
        ),
        # What the application declared for each trainee (`trainees[i].under_represented`,
        # asked where the stream scores it: ranking/asked.py).
        under_represented=_column(
            sum(1 for t in group if t.get("under_represented") is True) for group in trainees
        ),
        first_time=np.array(
            [
                known[a.pk] if a.pk in known else _first_time(leads[a.pk][0], a)
                for a in applications
            ],
            dtype=bool,
        ),
        government_cents=_column(government),
        regions=[_region(a.request) for a in applications],
    )


def submitted_at(applications: list[Application]) -> dict[int, dt.datetime]:
    """When each application was submitted (its last submission, from its history)."""
    rows = StateChange.objects.filter(
        application__in=applications, to_state=State.SUBMITTED
    ).values_list("application_id", "at")
    return dict(sorted(rows, key=lambda row: row[1]))


def submission_instants(applications: list[Application]) -> np.ndarray[Any, np.dtype[np.int64]]:
    """An orderable number for each application's submission (microseconds since the epoch;
    a file with no submission on record, loaded before histories, comes last)."""
    submitted = submitted_at(applications)
    return np.array([_instant(submitted.get(a.pk)) for a in applications], dtype=np.int64)


def _instant(at: dt.datetime | None) -> int:
    if at is None:
        return 2**62
    return int(at.timestamp() * 1_000_000)


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
