"""Carry the plan out: every step of every file, the payment runs and the periodic jobs, in the
order of their days, the clock moved to each day first (time-machine, as the tests move it), so
that every date the service records is the day it happened.

The messages the history's actions queue are delivered at their time through the outbox's own
delivery, to Django's dummy mail backend: they were sent then, and today's mailbox
(/demo/mail/) is not filled with years-old mail."""

from __future__ import annotations

import datetime as dt
import heapq
import itertools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial

import time_machine
from django.test import override_settings
from django.utils import timezone

from jobgrant.rules.codes import fiscal_year_label
from jobgrant.service.demo_history import comparison_steps, money, outcome_steps, steps
from jobgrant.service.demo_history.cast import Cast
from jobgrant.service.demo_history.plan import FilePlan, Plan
from jobgrant.service.demo_history.steps import FileState
from jobgrant.service.notifications.delivery_actions import deliver_message
from jobgrant.service.notifications.models import Message, MessageState

#: The hour (UTC) of the day's work: 10:00 in Ontario, 07:00 in British Columbia.
WORK_HOUR = 15
PAY_EVERY = dt.timedelta(days=14)
PAY_DAY_ONE = dt.date(2014, 4, 3)  # a Thursday: the payment runs fall every other Thursday
Step = Callable[[], None]


@dataclass(order=True)
class _Event:
    at: dt.datetime
    order: int
    run: Step = field(compare=False)


@dataclass
class Walk:
    """The queue of what happens next; steps may add later steps (a batch's confirmation)."""

    cast: Cast
    until: dt.datetime
    progress: Callable[[str], None] = lambda _: None
    queue: list[_Event] = field(default_factory=list)
    counter: Iterator[int] = field(default_factory=itertools.count)
    done: int = 0
    #: The pools (jurisdiction, fiscal year) with a claim certified since the last payment run.
    to_pay: set[tuple[str, str]] = field(default_factory=set)
    pay_days: set[dt.date] = field(default_factory=set)

    def at(self, day: dt.date, run: Step, hour: int = WORK_HOUR) -> None:
        moment = dt.datetime(day.year, day.month, day.day, hour, tzinfo=dt.UTC)
        heapq.heappush(self.queue, _Event(moment, next(self.counter), run))

    def run(self) -> int:
        while self.queue and self.queue[0].at <= self.until:
            event = heapq.heappop(self.queue)
            with _clock(event.at):
                event.run()
                deliver_queued(event.at)
            self.done += 1
            if self.done % 100 == 0:
                self.progress(f"{self.done} steps, up to {event.at.date().isoformat()}")
        return self.done


@contextmanager
def _clock(moment: dt.datetime) -> Iterator[None]:
    with time_machine.travel(moment, tick=False):
        yield


def deliver_queued(moment: dt.datetime) -> None:
    """Send what the step queued, now (see the module's docstring). Only its own messages: the
    clock stands still during a step, so they are the ones made at its moment; a message of
    today (a server answering beside the loading, the seed's invitations) is left to the worker."""
    made = Message.objects.filter(state=MessageState.QUEUED, created_at=moment)
    pending = list(made.values_list("pk", flat=True))
    if not pending:
        return
    log = logging.getLogger("jobgrant.notifications")  # not a line per message of the history
    level = log.level
    log.setLevel(logging.WARNING)
    try:
        # The history's messages keep their links, as the demonstration's mailbox does: its
        # later steps open them as the trainees would (a real outbox redacts them once sent).
        with override_settings(
            EMAIL_BACKEND="django.core.mail.backends.dummy.EmailBackend", JOBGRANT_DEMO_MAIL=True
        ):
            for pk in pending:
                deliver_message.call(pk)
    finally:
        log.setLevel(level)


def walk(plan: Plan, cast: Cast, progress: Callable[[str], None] = lambda _: None) -> int:
    """Every file's steps up to now; returns how many steps ran."""
    now = timezone.now()
    history = Walk(cast, until=now, progress=progress)
    for file_plan in plan.files:
        _schedule_file(history, FileState(file_plan))
    outcome_steps.schedule_jobs(history, plan)
    comparison_steps.schedule(history, plan)
    return history.run()


def _schedule_file(history: Walk, state: FileState) -> None:
    plan, cast = state.plan, history.cast
    days = _days(plan)
    history.at(plan.received_on, lambda: steps.apply(state, cast))
    history.at(days["recommend"], lambda: steps.recommend(state, cast))
    history.at(days["approve"], lambda: steps.approve(state, cast))
    history.at(days["accept"], lambda: steps.accept(state, cast))
    history.at(days["invite"], lambda: steps.invite(state, cast))
    history.at(days["forms"], lambda: steps.answer_forms(state, days["forms"]))
    history.at(days["claim"], lambda: steps.claim(state, cast))
    history.at(days["certify"], lambda: _certify(history, state))
    if plan.receivable:
        history.at(days["receivable"], lambda: _receivable(history, state))
    outcome_steps.schedule_file(history, state, days["report"])


def _certify(history: Walk, state: FileState) -> None:
    steps.certify(state, history.cast)
    history.to_pay.add((state.plan.jurisdiction, fiscal_year_label(state.plan.fiscal_year)))
    _schedule_payment_run(history, timezone.localdate())


def _days(plan: FilePlan) -> dict[str, dt.date]:
    """The day of each step, from the plan's dates (the spacing is the demonstration's)."""
    seed = plan.number
    recommend = _business(plan.received_on + dt.timedelta(days=2 + seed % 3))
    approve = _business(recommend + dt.timedelta(days=1 + seed % 4))
    accept = approve + dt.timedelta(days=1 + seed % 3)
    invite = accept + dt.timedelta(days=1)
    claim = _business(plan.end + dt.timedelta(days=4 + seed % 9))
    certify = _business(claim + dt.timedelta(days=3 + seed % 8))
    return {
        "recommend": recommend,
        "approve": approve,
        "accept": accept,
        "invite": invite,
        "forms": invite + dt.timedelta(days=1 + seed % 5),
        "claim": claim,
        "certify": certify,
        "receivable": certify + dt.timedelta(days=45),
        "report": plan.end + dt.timedelta(days=8 + seed % 18),
    }


def _business(day: dt.date) -> dt.date:
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    return day


def _schedule_payment_run(history: Walk, after: dt.date) -> None:
    """The next payment run (every other Thursday, from the first day of the demonstration's
    calendar) after `after`, unless it is already planned."""
    since = (after - PAY_DAY_ONE).days
    day = PAY_DAY_ONE + PAY_EVERY * (since // PAY_EVERY.days + 1)
    if day not in history.pay_days:
        history.pay_days.add(day)
        history.at(day, lambda: _payment_run(history, day), hour=WORK_HOUR + 2)


def _payment_run(history: Walk, day: dt.date) -> None:
    pools, history.to_pay = history.to_pay, set()
    for jurisdiction, year in money.pools_with_dues(pools):
        batch = money.pay_run(history.cast, jurisdiction, year)
        paid_on = day + money.CONFIRMED_AFTER
        history.at(paid_on, partial(money.confirm, history.cast, batch, paid_on))


def _receivable(history: Walk, state: FileState) -> None:
    raised = money.raise_for_non_completion(state, history.cast)
    if raised is not None:
        repaid_on = timezone.localdate() + dt.timedelta(days=12)
        history.at(repaid_on, lambda: money.repay(raised, history.cast, repaid_on))
