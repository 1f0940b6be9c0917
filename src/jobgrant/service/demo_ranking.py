"""The demonstration's ranked intake: files submitted to it while it was open, the ranking when
it closed, one decision against the ranking with both signatures, and flags to look at, as the
demonstration data shows them (service/demo.py calls `fill_and_rank`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from jobgrant.rules.codes import fiscal_year
from jobgrant.service.accounts.models import User
from jobgrant.service.grants.applications import actions as application_actions
from jobgrant.service.grants.models.applications import (
    Application,
    Intake,
    IntakeState,
    Selection,
    State,
)
from jobgrant.service.grants.models.ranking import IntakeRank, RankOverride
from jobgrant.service.grants.ranking import actions

#: The officer's reasons and the program manager's note, as tersely as staff write them (the
#: seed denies; a test approves).
REASON = "Plant retooling in March: classes in January or never; later intakes come too late."
DENIAL_REASON = "Same course already funded under another program; Lakeshore confirmed on phone."
SIGN_OFF_NOTE = "Agreed: confirmed on file."

#: A clock for each step of the override ("recommend", "request", "sign_off", "approve").
Clock = Callable[[str], AbstractContextManager[Any]]


@dataclass(frozen=True)
class RankedDemo:
    ranks: list[IntakeRank]
    override: RankOverride | None


def rank_and_override(
    intake: Intake,
    *,
    officer: User,
    second_officer: User,
    manager: User,
    clock: Clock | None = None,
    decision: str = "approve",
) -> RankedDemo:
    """Rank the closed `intake`, then take one decision against the ranking with both
    signatures: `officer` asks for the override, `manager` signs it off, `second_officer`
    decides. "approve": the first file below the cut-off, its risk flags cleared and recommended
    by `officer` first. "deny": the last file within the budget. No such file: the ranking
    alone. `clock`: where the clock stands at each step (by default, where it is)."""
    at = clock or (lambda step: nullcontext())
    with at("rank"):
        ranks = actions.rank_intake(intake)
    if decision == "deny":
        chosen = next((r for r in reversed(ranks) if r.within_budget), None)
    else:
        chosen = next((r for r in ranks if not r.within_budget), None)
    if chosen is None:
        return RankedDemo(ranks, None)
    application = chosen.application
    reason = DENIAL_REASON if decision == "deny" else REASON
    with at("recommend"):
        if decision == "approve" and application.state == State.SUBMITTED:
            from jobgrant.service.demo_support import clear_demo_flags

            clear_demo_flags(officer, application)
            application_actions.recommend_application(officer, application)
        override = actions.request_override(officer, application, decision, reason)
    with at("sign_off"):
        actions.sign_off_override(manager, override, SIGN_OFF_NOTE)
    with at("approve"):
        if decision == "deny":
            application_actions.deny_application(second_officer, application, reason)
        else:
            application_actions.approve_application(second_officer, application)
    override.refresh_from_db()
    return RankedDemo(ranks, override)


# --- The files of Ontario's ranked intake ----------------------------------------------------

#: How the seed names the ranked intake in English ("Ranked intake 2026-27"; its window follows
#: the day of the seed, so no season is named).
SPRING = "Ranked intake"
#: The provider the intake's files name (none of the other demonstration files do: their
#: prices are compared with one another only).
PROVIDER = "Georgian College"

#: (organization's business-number stem, course, trainees, cost per trainee, new hires, region,
#: prepared by): nine files, in the order they were submitted. Federal share under cjg-2013 in
#: Ontario: a third of the costs, at most $5,000 a trainee; their sum passes the intake's
#: $500,000, so the ranking leaves files below the cut-off. The fifth is priced far above the
#: provider's usual price; the seventh was prepared by the provider: each raises a flag.
FILES: tuple[tuple[str, str, int, str, int, str, str], ...] = (
    ("10000000", "Industrial maintenance millwright", 14, "15000.00", 4, "3550", "employer"),
    ("20000000", "Warehouse supervisor certificate", 18, "15600.00", 0, "3530", "employer"),
    ("10000000", "Welding inspection, CWB level 2", 12, "15000.00", 6, "3590", "employer"),
    ("20000000", "Supply chain analytics", 15, "14400.00", 3, "3530", "employer"),
    ("10000000", "Robotics technician", 13, "34000.00", 0, "3550", "employer"),
    ("20000000", "Forklift and dangerous goods", 20, "15000.00", 9, "3530", "employer"),
    ("10000000", "Quality management, ISO 9001", 10, "15000.00", 0, "3550", "provider"),
    ("20000000", "Fleet maintenance technician", 12, "15000.00", 2, "3530", "employer"),
    ("20000000", "Customs brokerage", 14, "15000.00", 0, "3530", "employer"),
)
#: The hour each step happens on its day, in Ontario's time (the history works on the hour).
FILED_AT, RANKED_AT = dt.time(10, 15), dt.time(6, 5)
STEPS_AFTER_CLOSING = {"recommend": (3, 9, 40), "sign_off": (4, 11, 20), "approve": (5, 14, 35)}


def fill_and_rank(intake: Intake, today: dt.date) -> RankedDemo | None:
    """Ontario's ranked intake as it went: FILES submitted by demo-employer while it was open
    (each on its day in the window), closed at its date, ranked the morning after, the last file
    within the budget denied against the ranking with both signatures a few days later, and
    the others' flags raised once all are in. None where the training could not start within
    the program's fiscal year (the last weeks of one)."""
    from jobgrant.service.demo_support import clock_at as demo_clock
    from jobgrant.service.demo_support import raise_demo_flags

    start = min(today + dt.timedelta(days=30), _last_day(intake) - dt.timedelta(days=70))
    if start <= intake.closes_on or fiscal_year(start) != intake.stream.program.fiscal_year:
        return None
    employer = User.objects.get(username="demo-employer")
    from django_tasks_db.models import DBTaskResult

    from jobgrant.service.notifications.models import Message

    queued_before = Message.objects.order_by("-id").values_list("id", flat=True).first() or 0
    tasks_before = set(DBTaskResult.objects.values_list("id", flat=True))
    made = []
    for number, (received, filed) in enumerate(_submissions(intake)):
        body = _body(FILES[number], intake.stream_id, start)
        with demo_clock(filed):
            application = application_actions.create_application(employer, body, today=received)
            made.append(application_actions.submit_application(employer, application).pk)
    Intake.objects.filter(pk=intake.pk).update(state=IntakeState.CLOSED, closed_on=intake.closes_on)

    def at(step: str) -> AbstractContextManager[Any]:
        days, hour, minute = STEPS_AFTER_CLOSING.get(step, (1, RANKED_AT.hour, RANKED_AT.minute))
        day = intake.closes_on + dt.timedelta(days=days)
        return demo_clock(_moment(day, dt.time(hour, minute)))

    shown = rank_and_override(
        intake,
        officer=User.objects.get(username="demo-officer-on-1"),
        second_officer=User.objects.get(username="demo-officer-on-2"),
        manager=User.objects.get(username="demo-program-manager-on"),
        clock=at,
        decision="deny",  # a denial commits no money and issues no offer: the budgets stay whole
    )
    decided = shown.override.application_id if shown.override else None  # no flags on it
    with at("approve"):
        raise_demo_flags([pk for pk in made if pk != decided], share_account=False)
    # Their messages (received, denied) went out months ago, and the worker's tasks for them
    # ran: the outbox and the task queue start empty, as for freshly loaded data.
    Message.objects.filter(id__gt=queued_before).delete()
    DBTaskResult.objects.exclude(id__in=tasks_before).delete()
    return shown


def _last_day(intake: Intake) -> dt.date:
    year = int(intake.stream.program.fiscal_year[:4])
    return dt.date(year + 1, 3, 31)


def _submissions(intake: Intake) -> Iterator[tuple[dt.date, dt.datetime]]:
    """Each file's day, spread over the window, and the moment it was submitted."""
    span = (intake.closes_on - intake.opens_on).days
    for number in range(len(FILES)):
        day = intake.opens_on + dt.timedelta(days=span * (number + 1) // (len(FILES) + 1))
        at = dt.time(FILED_AT.hour, FILED_AT.minute + 3 * number)
        yield day, _moment(day, at)


def _moment(day: dt.date, at: dt.time) -> dt.datetime:
    return dt.datetime.combine(day, at, tzinfo=timezone.get_default_timezone())


def _body(
    row: tuple[str, str, int, str, int, str, str], stream: int, start: dt.date
) -> dict[str, Any]:
    from jobgrant.service.demo_support import READY_DECLARATIONS, business_number

    stem, course, trainees, cost, new_hires, region, prepared_by = row
    costs = {"tuition": cost, "student_fees": "0.00", "materials": "0.00", "exam_fees": "0.00"}
    statuses = ["unemployed"] * new_hires + ["existing-employee"] * (trainees - new_hires)
    declarations = {
        **READY_DECLARATIONS,
        "prepared_by": prepared_by,
        "provider_street_address": "1 Georgian Drive",
        "provider_city": "Barrie",
        "provider_postal_code": "L4M 3X9",
        "provider_phone": "705-555-0144",
    }
    if prepared_by == "provider":
        declarations |= {"preparer_name": PROVIDER, "preparer_fee": "1500.00"}
    return {
        "jurisdiction": "ON",
        "region": region,
        "stream": stream,
        "employers": [{"id": "lead", "business_number": business_number(stem)}],
        "training": {
            "course": course,
            "setting": "off-site",
            "start_date": start.isoformat(),
            "end_date": (start + dt.timedelta(days=60)).isoformat(),
            "hours": 160,
            "provider": {"name": PROVIDER, "third_party": True},
        },
        "trainees": [
            {"employer_id": "lead", "status": status, "costs": dict(costs)} for status in statuses
        ],
        "declarations": declarations,
    }


def demo_files() -> QuerySet[Application]:
    """The files the seed made to Ontario's ranked spring intake (`fill_and_rank`)."""
    return Application.objects.filter(
        created_by__username="demo-employer",
        intake__stream__selection=Selection.RANKED,
        intake__name_en__startswith=SPRING,
    )
