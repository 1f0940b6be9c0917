"""The demonstration's comparison group, walked (`refused_plan` draws it): the intakes that run
out of money get a budget of their own, closed in February at what their funded files committed;
the files applied for after that are recommended and their approval is refused for lack of
budget (INTAKE_BUDGET_EXHAUSTED, audited as every refusal), and the approver denies them, saying
why; the worker's comparison jobs enrol
them and ask their employer at 3 and 12 months; the employer follows the message's link and
consents (then answers, or lets the questions lapse) or declines, as drawn.

The budgets are the ledger's own earmarks (`ledger.operations.set_earmark`), as a program
manager's intake budget is, set by the seed as `demo._budgets` allocates its accounts."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from functools import partial
from typing import Protocol

from django.db import transaction

from jobgrant.rules.codes import fiscal_year_label
from jobgrant.service.demo_history import steps
from jobgrant.service.demo_history.cast import Cast
from jobgrant.service.demo_history.plan import Plan
from jobgrant.service.demo_history.refused_plan import MILESTONES, RefusedPlan, close_budget_on
from jobgrant.service.demo_history.steps import FileState
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.completion import comparison
from jobgrant.service.grants.completion.schedule import due_on
from jobgrant.service.grants.models.applications import Intake
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount, Earmark, Funder
from jobgrant.service.notifications.models import Message


class Walk(Protocol):
    """What scheduling needs of `walk.Walk` (not imported: the walk imports this module)."""

    cast: Cast

    def at(self, day: dt.date, run: Callable[[], None], hour: int = ...) -> None: ...


_LINK = re.compile(r"/(?:comparison|comparaison)/([0-9a-f]{64})/")  # en or fr
FUNDERS = (Funder.FEDERAL, Funder.PROVINCIAL)
DENIAL = (
    "The intake's budget is spent: no money is left for this application this fiscal year. "
    "You may apply to a later intake."
)


def _intake(jurisdiction: str, year: int) -> Intake:
    return Intake.objects.select_related("stream__program").get(
        stream__program__jurisdiction=jurisdiction,
        stream__program__fiscal_year=fiscal_year_label(year),
        stream__code="CJG",
    )


def _account(intake: Intake, funder: str) -> BudgetAccount | None:
    program = intake.stream.program
    return BudgetAccount.objects.filter(
        funder=funder,
        jurisdiction=program.jurisdiction,
        fiscal_year=program.fiscal_year,
        stream=intake.stream.code,
    ).first()


def _set_budget(intake: Intake, funder: str, cents: int) -> None:
    account = _account(intake, funder)
    if account is None or cents <= 0:
        return
    operations.set_earmark(intake.pk, account, cents, actor="demo-seed")
    field = f"{funder}_budget_cents"
    Intake.objects.filter(pk=intake.pk).update(**{field: cents})


def _pools(plan: Plan) -> list[tuple[str, int]]:
    """(jurisdiction, fiscal year) of each intake with refused files."""
    return sorted({(r.file.jurisdiction, r.file.fiscal_year) for r in plan.refused})


def earmark_intakes(plan: Plan) -> None:
    """Each intake with refused files gets a budget of its own per funder: what its funded
    files cost in all (an upper bound of the government's shares), within its account."""
    for jurisdiction, year in sorted(
        {(r.file.jurisdiction, r.file.fiscal_year) for r in plan.refused}
    ):
        intake = _intake(jurisdiction, year)
        costs = sum(
            t.tuition_cents + t.materials_cents
            for f in plan.files
            if (f.jurisdiction, f.fiscal_year) == (jurisdiction, year)
            for t in f.trainees
        )
        for funder in FUNDERS:
            account = _account(intake, funder)
            if account is not None:
                _set_budget(intake, funder, min(costs, account.available_cents))


def close_budget(jurisdiction: str, year: int) -> None:
    """The intake's budget is lowered to what its files committed: nothing is left in it."""
    intake = _intake(jurisdiction, year)
    with transaction.atomic():
        for earmark in Earmark.objects.filter(intake=intake).select_related("account"):
            if earmark.committed_cents > 0:
                _set_budget(intake, earmark.account.funder, earmark.committed_cents)


def schedule(history: Walk, plan: Plan) -> None:
    """Each refused file's steps, the budgets' closing, and the worker's comparison jobs."""
    for jurisdiction, year in sorted(
        {(r.file.jurisdiction, r.file.fiscal_year) for r in plan.refused}
    ):
        history.at(close_budget_on(year), partial(close_budget, jurisdiction, year), hour=7)
    enrol_days: set[dt.date] = set()
    question_days: set[dt.date] = set()
    for refused in plan.refused:
        state = FileState(refused.file)
        received = refused.file.received_on
        recommend = steps_day(received, 2)
        approve = steps_day(recommend, 1)
        history.at(received, partial(steps.submit, state, history.cast))
        history.at(recommend, partial(steps.recommend, state, history.cast))
        history.at(approve, partial(refused_approval, state, history.cast))
        history.at(approve, partial(deny_for_lack_of_budget, state, history.cast), hour=16)
        enrol_days.add(approve + dt.timedelta(days=1))
        for months in MILESTONES:
            due = due_on(refused.file.end, months)
            question_days |= {due, due + dt.timedelta(days=14), due + dt.timedelta(days=28)}
            answering = refused.answers[(months, 0)].answered or not refused.consents
            if answering and (months == MILESTONES[0] or refused.consents):
                day = due + dt.timedelta(days=3 + refused.file.number % 8)
                history.at(day, partial(employer_answers, state, refused, months), hour=20)
    for day in sorted(enrol_days | question_days):
        jobs = partial(_comparison_jobs, enrol=day in enrol_days, ask=day in question_days)
        history.at(day, jobs, hour=7)


def steps_day(after: dt.date, days: int) -> dt.date:
    day = after + dt.timedelta(days=days)
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    return day


def refused_approval(state: FileState, cast: Cast) -> None:
    """The approver's approval, refused: the intake's budget is spent."""
    try:
        steps.approve(state, cast)
    except ServiceError as refused:
        if refused.code not in comparison.LACK_OF_BUDGET:
            raise
        return
    raise RuntimeError(f"file {state.plan.number} was approved: its intake had money left")


def deny_for_lack_of_budget(state: FileState, cast: Cast) -> None:
    """The approver then denies the file, saying why: it is decided, within its standard."""
    if state.application is None:
        return
    office = cast.offices[state.plan.jurisdiction]
    actions.deny_application(office.approver, state.application, DENIAL)


def _comparison_jobs(*, enrol: bool, ask: bool) -> None:
    """The worker's comparison jobs that have something to do on the day: the enrolment the day
    after a refusal (it reads every refusal in the audit trail: the dearest when idle), the
    questions' sending, reminder and lapse on a due day and 14 and 28 days later (the dated
    parameters, checked again by the jobs themselves)."""
    if enrol:
        comparison.enrol_comparison_group()
    if ask:
        comparison.send_due_comparison()
        comparison.remind_comparison()
        comparison.lapse_comparison()


def employer_answers(state: FileState, refused: RefusedPlan, months: int) -> None:
    """The employer follows the link of the latest message about the file's questions: it
    consents and answers for each person, or declines (at the first milestone)."""
    if state.application is None:
        return
    message = (
        Message.objects.filter(
            subject_type="grants.application",
            subject_id=str(state.application.pk),
            milestone=f"comparison-{months}m",
        )
        .order_by("-id")
        .first()
    )
    found = _LINK.search(message.body if message else "")
    if found is None:
        return  # not asked (declined earlier, or not due yet)
    if not refused.consents:
        comparison.answer_comparison(found[1], "no", {})
        return
    answers = {
        position: answer.posted()
        for (milestone, position), answer in refused.answers.items()
        if milestone == months
    }
    comparison.answer_comparison(found[1], "yes", answers)
