"""Whether an application is asked which of its trainees belong to an under-represented group:
only where the stream it goes to is ranked under a criteria set that scores the criterion, with
points above zero in its jurisdiction on the intake's closing day (the day the ranking reads
its parameters). Elsewhere the answer would rank nothing, so it is not asked."""

from __future__ import annotations

import datetime as dt

from jobgrant.rules.scoring.criteria import UnknownCriteriaSetError, criteria_set
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.core import quoting
from jobgrant.service.grants.models.applications import Application, Selection, Stream

CRITERION = "under_represented"
POINTS = "ranking.under_represented.points"


def stream_scores_under_represented(stream: Stream, jurisdiction: str, on: dt.date) -> bool:
    """The stream ranks its intakes under a criteria set scoring the criterion, worth points in
    `jurisdiction` on `on`."""
    if stream.selection != Selection.RANKED or not stream.scoring:
        return False
    try:
        chosen = criteria_set(stream.scoring)
    except UnknownCriteriaSetError:
        return False
    if CRITERION not in chosen.criteria:
        return False
    try:
        points = chosen.resolve(jurisdiction, None, on)[POINTS].value
    except LookupError:
        return False
    return points is not None and points > 0


def asks_under_represented(
    jurisdiction: str, start: dt.date, received: dt.date, stream: int | None = None
) -> bool:
    """An application made on `received` for training starting on `start` would go to a stream
    that scores the criterion: the `stream` chosen where it takes applications (several streams
    open), else the first open intake's (as applying picks)."""
    body = {"jurisdiction": jurisdiction, "training": {"start_date": start.isoformat()}}
    try:
        _, intakes = quoting.program_and_intakes(body, received)  # never without an intake
    except ServiceError:
        return False
    intake = next((i for i in intakes if i.stream_id == stream), intakes[0])
    return stream_scores_under_represented(intake.stream, jurisdiction, intake.closes_on)


def application_scores_under_represented(application: Application) -> bool:
    """The application's stream scores the criterion (on its intake's closing day)."""
    intake = application.intake
    on = intake.closes_on if intake else application.received_on
    return stream_scores_under_represented(application.stream, application.jurisdiction, on)


def under_represented_count(application: Application) -> int:
    """The trainees the application declared from an under-represented group."""
    trainees = application.request.get("trainees") if isinstance(application.request, dict) else []
    if not isinstance(trainees, list):
        return 0
    return sum(1 for t in trainees if isinstance(t, dict) and t.get(CRITERION) is True)
