"""The end of each file and the months after: the employer's completion report (each trainee's
outcome, the five ratings), then the follow-ups at 3 and 12 months, sent, reminded and lapsed by
the periodic jobs the worker runs, and answered (the trainee by the link in their message, the
employer for all its trainees at once) or left to lapse, as the plan says."""

from __future__ import annotations

import datetime as dt
import re
from functools import partial
from typing import TYPE_CHECKING, Any

from jobgrant.rules.money import format_amount
from jobgrant.service.demo_history import evaluation, page_timings
from jobgrant.service.demo_history.plan import Answer, FilePlan, Plan, TraineePlan
from jobgrant.service.demo_history.steps import FileState
from jobgrant.service.grants.completion import follow_ups as follow_up_actions
from jobgrant.service.grants.completion import report as completion_actions
from jobgrant.service.grants.completion.schedule import due_on
from jobgrant.service.grants.completion.workflow import WAITING
from jobgrant.service.grants.models.burden import BurdenStep
from jobgrant.service.grants.models.completion import FollowUp, Respondent
from jobgrant.service.notifications.models import Message

if TYPE_CHECKING:
    from jobgrant.service.demo_history.walk import Walk

MILESTONES = (3, 12)
_LINK = re.compile(r"/(?:follow-up|suivi)/([0-9a-f]{64})/")  # en or fr


def schedule_file(history: Walk, state: FileState, report_day: dt.date) -> None:
    """The report on its day; each follow-up's answer on a day after its due date (after the
    reminder for the late ones)."""
    plan = state.plan
    history.at(report_day, lambda: report(state, history))
    for months in MILESTONES:
        due = due_on(plan.end, months)
        for trainee in plan.trainees:
            answer = trainee.follow_ups[(months, Respondent.TRAINEE)]
            if answer.answered:
                day = due + dt.timedelta(days=_delay(plan, trainee.position, answer))
                history.at(day, partial(_trainee_answers, state, trainee, months, answer), hour=23)
        lead = plan.trainees[0].follow_ups[(months, Respondent.EMPLOYER)]
        if lead.answered:
            day = due + dt.timedelta(days=_delay(plan, 9, lead))
            history.at(day, partial(_employer_answers, state, history, months), hour=20)


def _delay(plan: FilePlan, position: int, answer: Answer) -> int:
    """Days after the due date: before the reminder (14 days after sending), or after it and
    before the follow-up lapses (28 days after); the sending waits at most JOBS_EVERY."""
    spread = (plan.number * 7 + position * 3) % 8
    return 18 + spread if answer.after_reminder else 3 + spread


def schedule_jobs(history: Walk, plan: Plan) -> None:
    """The worker's three follow-up jobs (which it runs every hour), on the days they have
    something to do: each follow-up's due day, and 14 and 28 days later (the reminder and the
    lapse, dated parameters, checked again by the jobs themselves)."""
    days = set()
    for file in plan.files:
        for months in MILESTONES:
            due = due_on(file.end, months)
            days |= {due, due + dt.timedelta(days=14), due + dt.timedelta(days=28)}
    for day in sorted(days):
        history.at(day, _follow_up_jobs, hour=7)


def _follow_up_jobs() -> None:
    follow_up_actions.send_due_follow_ups()
    follow_up_actions.remind_follow_ups()
    follow_up_actions.lapse_follow_ups()


def report(state: FileState, history: Walk) -> None:
    """Start, fill and submit the completion report (the employer's account)."""
    plan, application = state.plan, state.application
    if application is None:
        raise RuntimeError(f"file {plan.number} was not applied for")
    user = history.cast.employer_users[plan.jurisdiction]
    employer = history.cast.employers[plan.employer.number]
    made = completion_actions.start_completion_report(application, by=user)
    filled = completion_actions.save_completion_report(
        made,
        trainees=[_outcome(plan, t, state.participants[t.position].pk) for t in plan.trainees],
        ratings={(employer.pk, item): score for item, score in plan.ratings.items()},
        feedback=_feedback(plan),
        by=user,
        counterfactual=evaluation.counterfactual_answers(plan)[1],
    )
    completion_actions.submit_completion_report(filled, by=user)
    page_timings.done(BurdenStep.COMPLETION, application, plan.number, plan.employer.employees)


def _outcome(plan: FilePlan, trainee: TraineePlan, participant: int) -> dict[str, Any]:
    answers: dict[str, Any] = {
        "participant": participant,
        "completed": trainee.completed,
        "employed_at_end": trainee.employed_at_end,
    }
    if not trainee.completed:
        answers["not_completed_reason"] = trainee.not_completed_reason
    if trainee.wage_before_cents:
        answers["hourly_wage_before"] = format_amount(trainee.wage_before_cents)
    if trainee.employed_at_end:
        answers["with_this_employer"] = bool(trainee.with_this_employer)
        answers["employment_type"] = "full-time" if trainee.full_time else "part-time"
        answers["noc"] = plan.noc
        if trainee.wage_after_cents:
            answers["hourly_wage_after"] = format_amount(trainee.wage_after_cents)
    return answers


def _feedback(plan: FilePlan) -> str:
    low = min(plan.ratings, key=lambda item: plan.ratings[item])
    if plan.ratings[low] <= 2:
        return f"The training was useful; the part rated {low} could be better."
    return "The training met our needs."


def _answers(answer: Answer) -> dict[str, Any]:
    return answer.posted()


def _waiting(state: FileState, position: int, months: int, respondent: str) -> FollowUp | None:
    participant = state.participants.get(position)
    if participant is None:
        return None
    return FollowUp.objects.filter(
        participant=participant, milestone=months, respondent=respondent, state__in=WAITING
    ).first()


def _trainee_answers(state: FileState, trainee: TraineePlan, months: int, answer: Answer) -> None:
    """The trainee follows the link of the latest message about their follow-up."""
    row = _waiting(state, trainee.position, months, Respondent.TRAINEE)
    if row is None:
        return
    message = (
        Message.objects.filter(subject_type="grants.followup", subject_id=str(row.pk))
        .order_by("-id")
        .first()
    )
    found = _LINK.search(message.body if message else "")
    if found is None:
        raise RuntimeError(f"no follow-up link for follow-up {row.pk}")
    follow_up_actions.answer_follow_up(found[1], _answers(answer))


def _employer_answers(state: FileState, history: Walk, months: int) -> None:
    """The employer answers for each of its trainees whose follow-up waits."""
    answers = {}
    for trainee in state.plan.trainees:
        row = _waiting(state, trainee.position, months, Respondent.EMPLOYER)
        if row is not None:
            answers[row.participant_id] = _answers(
                trainee.follow_ups[(months, Respondent.EMPLOYER)]
            )
    if not answers or state.application is None:
        return
    user = history.cast.employer_users[state.plan.jurisdiction]
    follow_up_actions.answer_employer_follow_ups(state.application, months, answers, by=user)
