"""The completion report and the follow-ups of a file, for its employer (and, to read, the back
office): GET/PUT /applications/{id}/completion-report, POST .../completion-report/submit,
GET /applications/{id}/follow-ups, POST /applications/{id}/follow-ups/{milestone}.

A file the caller cannot see is 404 (never 403), as every other file operation; a refusal is
problem+json naming each bad field; writes take an Idempotency-Key. An employer reads only its
own follow-ups' answers: the trainees' answers are for measuring the program, not for the
employer."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from ninja import Path, Router

from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.api.bodies import json_object
from jobgrant.service.api.idempotency import idempotent
from jobgrant.service.api.openapi import problems, read_by_hand
from jobgrant.service.api.outcome_schemas import (
    CompletionReportBody,
    CompletionReportOut,
    FollowUpAnswersBody,
    FollowUpList,
)
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import MAX_DATABASE_ID, EmptyBody
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.errors import bad_input, problem
from jobgrant.service.grants.completion import follow_ups
from jobgrant.service.grants.completion import report as completion_actions
from jobgrant.service.grants.completion.refusals import outcome_refused
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.completion import CompletionReport, FollowUp, Respondent

router = Router(tags=["outcomes"], auth=bearer)
ApplicationId = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]
MilestoneIn = Annotated[int, Path(ge=1, le=99)]


def _amount(cents: int | None) -> str | None:
    return None if cents is None else format_amount(cents)


def report_json(report: CompletionReport) -> dict[str, Any]:
    outcomes = report.trainees.select_related("participant")
    return {
        "application": report.application_id,
        "state": report.state,
        "questions_version": report.questions_version,
        "due_on": report.due_on.isoformat(),
        "training_ended_on": report.training_ended_on.isoformat(),
        "submitted_at": report.submitted_at.isoformat() if report.submitted_at else None,
        "trainees": [
            {
                "participant": o.participant_id,
                "trainee": o.participant.position,
                "completed": o.completed,
                "not_completed_reason": o.not_completed_reason or None,
                "employed_at_end": o.employed_at_end,
                "with_this_employer": o.with_this_employer,
                "employment_type": o.employment_type or None,
                "noc": o.noc or None,
                "hourly_wage_before": _amount(o.hourly_wage_before_cents),
                "hourly_wage_after": _amount(o.hourly_wage_after_cents),
            }
            for o in outcomes
        ],
        "ratings": [
            {"employer": r.employer_id, "item": r.item, "score": r.score}
            for r in report.ratings.all()
        ],
        "feedback": report.feedback,
        "counterfactual": report.counterfactual,
        "missing": completion_actions.missing_answers(report) if report.state == "draft" else [],
    }


def _report_of(application: Application) -> CompletionReport:
    found = CompletionReport.objects.filter(application=application).first()
    if found is None:
        raise outcome_refused("NO_COMPLETION_REPORT", 404)
    return found


@router.get(
    "/applications/{application_id}/completion-report",
    response={200: CompletionReportOut, **problems(401, 404, 422)},
)
def get_completion_report(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """The file's completion report (a draft or submitted), with what submitting still needs."""
    user = caller(request)
    application = access.get_visible_application(user, application_id, without=("explanation",))
    return json_response(report_json(_report_of(application)))


def _ratings(body: dict[str, Any]) -> dict[Any, Any]:
    """The body's list of ratings as the action reads them: {(employer, item): score}."""
    raw = body.get("ratings", [])
    if not isinstance(raw, list):
        raise bad_input([problem("ratings", "must be a list", "doit être une liste")])
    ratings: dict[Any, Any] = {}
    bad = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict) or set(entry) - {"employer", "item", "score"}:
            bad.append(
                problem(
                    f"ratings[{index}]",
                    "must be an object with employer, item and score",
                    "doit être un objet avec employer, item et score",
                )
            )
            continue
        key = (entry.get("employer"), entry.get("item"))
        if not isinstance(key[0], int) or isinstance(key[0], bool) or key in ratings:
            bad.append(
                problem(
                    f"ratings[{index}].employer",
                    "must be the id of an employer of the file, once per item",
                    "doit être l'identifiant d'un employeur du dossier, une fois par élément",
                )
            )
            continue
        ratings[key] = entry.get("score")
    if bad:
        raise bad_input(bad)
    return ratings


@router.put(
    "/applications/{application_id}/completion-report",
    response={200: CompletionReportOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(CompletionReportBody),
)
def put_completion_report(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Save the draft (started if the file has none): every field is checked first, and
    nothing is written when one is bad."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        unknown = [
            k for k in body if k not in ("trainees", "ratings", "feedback", "counterfactual")
        ]
        if unknown:
            raise bad_input(
                [problem(k, "is not a known field", "n'est pas un champ connu") for k in unknown]
            )
        application = access.get_visible_application(user, application_id, without=("explanation",))
        report = completion_actions.start_completion_report(application, by=user)
        saved = completion_actions.save_completion_report(
            report,
            trainees=body.get("trainees", []),
            ratings=_ratings(body),
            feedback=body.get("feedback", ""),
            by=user,
            counterfactual=body.get("counterfactual") or "",
        )
        return json_response(report_json(saved))

    return idempotent(request, user, work)


@router.post(
    "/applications/{application_id}/completion-report/submit",
    response={200: CompletionReportOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(EmptyBody, required=False),
)
def submit_completion_report(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Submit the draft: the follow-ups are scheduled and, with the final claim paid, the
    agreement completes."""
    user = caller(request)

    def work() -> HttpResponse:
        json_object(request)
        application = access.get_visible_application(user, application_id, without=("explanation",))
        submitted = completion_actions.submit_completion_report(_report_of(application), by=user)
        return json_response(report_json(submitted))

    return idempotent(request, user, work)


def follow_up_json(row: FollowUp, *, with_answer: bool) -> dict[str, Any]:
    return {
        "id": row.pk,
        "participant": row.participant_id,
        "trainee": row.participant.position,
        "milestone": row.milestone,
        "respondent": row.respondent,
        "state": row.state,
        "due_on": row.due_on.isoformat(),
        "sent_at": row.sent_at.isoformat() if row.sent_at else None,
        "responded_at": row.responded_at.isoformat() if row.responded_at else None,
        "employed": row.employed if with_answer else None,
        "same_employer": row.same_employer if with_answer else None,
        "weekly_hours": row.weekly_hours if with_answer else None,
        "hourly_wage": _amount(row.hourly_wage_cents) if with_answer else None,
    }


def _follow_ups(user: User, application: Application) -> list[dict[str, Any]]:
    rows = FollowUp.objects.filter(application=application).select_related("participant")
    employer = user.role == Role.EMPLOYER
    return [
        follow_up_json(row, with_answer=not employer or row.respondent == Respondent.EMPLOYER)
        for row in rows.order_by("milestone", "respondent", "participant__position")
    ]


@router.get(
    "/applications/{application_id}/follow-ups",
    response={200: FollowUpList, **problems(401, 404, 422)},
)
def list_follow_ups(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """The file's follow-ups at 3 and 12 months, trainee's and employer's, with their states
    (an employer sees the answers of its own rows only)."""
    user = caller(request)
    application = access.get_visible_application(user, application_id, without=("explanation",))
    return json_response({"application": application.pk, "items": _follow_ups(user, application)})


def _answers(body: dict[str, Any]) -> dict[Any, Any]:
    raw = body.get("answers")
    if not isinstance(raw, list) or not raw or set(body) - {"answers"}:
        raise bad_input(
            [problem("answers", "must be a non-empty list", "doit être une liste non vide")]
        )
    answers: dict[Any, Any] = {}
    for index, entry in enumerate(raw):
        participant = entry.get("participant") if isinstance(entry, dict) else None
        if not isinstance(participant, int) or isinstance(participant, bool):
            raise bad_input(
                [
                    problem(
                        f"answers[{index}].participant",
                        "must be a trainee's participant id",
                        "doit être l'identifiant de participant d'une personne",
                    )
                ]
            )
        answers[participant] = {k: v for k, v in entry.items() if k != "participant"}
    return answers


@router.post(
    "/applications/{application_id}/follow-ups/{milestone}",
    response={200: FollowUpList, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(FollowUpAnswersBody),
)
def answer_follow_ups(
    request: HttpRequest, application_id: ApplicationId, milestone: MilestoneIn
) -> HttpResponse:
    """The employer's answers for its trainees at 3 or 12 months: checked in full first, then
    each answered follow-up is responded (answered once)."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        application = access.get_visible_application(user, application_id, without=("explanation",))
        rows = follow_ups.answer_employer_follow_ups(
            application, milestone, _answers(body), by=user
        )
        items = [follow_up_json(row, with_answer=True) for row in rows]
        return json_response({"application": application.pk, "items": items})

    return idempotent(request, user, work)
