"""The training's dates as a decision reads them from the stored application.

The quote checks what an employer types (a date, an end not before the start, a start not before
the policy, a training no longer than the policy's longest); a decision reads the stored request
again, whatever happened to it since, so that an approval with dates the agreement cannot be
written from is a refusal that names the field (409), never a server error.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from jobgrant.rules.codes import fiscal_year
from jobgrant.service.errors import problem
from jobgrant.service.grants.agreements.document import parameter_of
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.language import ENGLISH, FRENCH, in_language, long_date
from jobgrant.service.refusals import refused

LONGEST = "cjg.training.max_duration_days"
#: Farther from a training's dates than any due date an agreement writes (days).
DUE_DATES_MARGIN = dt.timedelta(days=3660)


def check_training_dates(application: Application) -> None:
    """Refuse (409 TRAINING_DATES_OUT_OF_RANGE, each field named) unless the stored training
    starts in the application's fiscal year and lasts no longer than its policy allows."""
    found = training_date_problems(application)
    if not found:
        return
    error = refused(
        409,
        "TRAINING_DATES_OUT_OF_RANGE",
        lambda: {"problems": " ".join(_sentence(p) for p in found)},
    )
    error.problems = found
    raise error


def _sentence(found: dict[str, str]) -> str:
    message = in_language(en=found["message_en"], fr=found["message_fr"])
    label = in_language(
        en={"training.start_date": "the start date", "training.end_date": "the end date"},
        fr={"training.start_date": "la date de début", "training.end_date": "la date de fin"},
    )[found["field"]]
    return f"{label} {message}."


def training_date_problems(application: Application) -> list[dict[str, str]]:
    request = application.request if isinstance(application.request, dict) else {}
    training: Any = request.get("training")
    training = training if isinstance(training, dict) else {}
    start, end = _date(training.get("start_date")), _date(training.get("end_date"))
    found = []
    for field, day in (("training.start_date", start), ("training.end_date", end)):
        if day is None:
            found.append(
                problem(field, "is not a date written YYYY-MM-DD", "n'est pas une date AAAA-MM-JJ")
            )
    if start is not None and fiscal_year(start) != application.fiscal_year:
        found.append(
            problem(
                "training.start_date",
                f"({long_date(start, ENGLISH)}) is not in the application's fiscal year, "
                f"{application.fiscal_year}",
                f"({long_date(start, FRENCH)}) n'est pas dans l'exercice de la demande, "
                f"{application.fiscal_year}",
            )
        )
    if start is None or end is None:
        return found
    if end < start:
        found.append(
            problem("training.end_date", "is before the start date", "précède la date de début")
        )
        return found
    days = (end - start).days + 1
    longest = parameter_of(LONGEST, application, application.received_on).value
    if longest is not None and days > int(longest):
        found.append(
            problem(
                "training.end_date",
                f"({long_date(end, ENGLISH)}) makes the training last {days} days; at most "
                f"{int(longest)} are allowed",
                f"({long_date(end, FRENCH)}) fait durer la formation {days} jours; au plus "
                f"{int(longest)} sont permis",
            )
        )
    elif _beyond_the_calendar(start, end):
        found.append(
            problem(
                "training.end_date",
                f"({long_date(end, ENGLISH)}) is too far away for the agreement's due dates",
                f"({long_date(end, FRENCH)}) est trop éloignée pour les échéances de l'entente",
            )
        )
    return found


def _beyond_the_calendar(start: dt.date, end: dt.date) -> bool:
    """Whether an agreement's due dates around these dates would fall outside the calendar."""
    return start - dt.date.min < DUE_DATES_MARGIN or dt.date.max - end < DUE_DATES_MARGIN


def _date(raw: object) -> dt.date | None:
    try:
        return dt.date.fromisoformat(raw) if isinstance(raw, str) and len(raw) == 10 else None
    except ValueError:
        return None
