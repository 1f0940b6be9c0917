"""The outcome pages of the employer and the trainee: the completion report (a draft kept, a
confirmation step before submitting), the employer's follow-up per file and milestone, and the
trainee's follow-up by link (no account).

The views read the form and call the actions (`grants.completion_actions`,
`grants.follow_up_actions`); a refusal is shown on the page naming each field, in the page's
language. The trainee's link is the only secret of its URL: the page is never cached and a
dead link (used, expired, replaced, unknown) is explained in both languages, writing nothing.
"""

from __future__ import annotations

import json
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.agreements.actions import current_version
from jobgrant.service.grants.burden import actions as burden
from jobgrant.service.grants.completion import follow_ups
from jobgrant.service.grants.completion import report as completion_actions
from jobgrant.service.grants.completion.schedule import due_on
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.burden import BurdenStep
from jobgrant.service.grants.models.completion import (
    CompletionReport,
    FollowUp,
    Milestone,
    ReportState,
)
from jobgrant.service.language import labelled
from jobgrant.service.web import labels
from jobgrant.service.web.pages import (
    applicant_file_or_404,
    employer_required,
    set_notice,
    switching_language,
    take_notice,
)
from jobgrant.service.web.views import completion_forms as forms
from jobgrant.service.web.views.participants import _link_refused, _private

ANSWERED_KEY = "jobgrant.follow_up.answered"


def _errors(links: list[tuple[str, str]]) -> dict[str, Any]:
    return {"error_links": links, "error_links_json": json.dumps(dict(links), ensure_ascii=False)}


# --- The completion report ---------------------------------------------------------------------


@employer_required
@require_http_methods(["GET", "POST"])
def completion_report(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """Start the report, save the draft, review it, submit it (one page, by `action`)."""
    application = applicant_file_or_404(user, application_id)
    report = CompletionReport.objects.filter(application=application).first()
    action = request.POST.get("action", "") if request.method == "POST" else ""
    if report is None:
        return _start(request, user, application, action)
    if report.state == ReportState.SUBMITTED:
        return _render_submitted(request, application, report)
    if switching_language(request):  # what was typed, shown back in this language
        return _render_form(request, application, report, _typed(request), {}, [])
    if action == "submit":
        return _submit(request, user, application, report)
    if action in ("save", "review"):
        return _save(request, user, application, report, review=action == "review")
    burden.step_viewed(BurdenStep.COMPLETION, application=application)
    return _render_form(request, application, report, forms.saved_report(report), {}, [])


def _start(request: HttpRequest, user: User, application: Application, action: str) -> HttpResponse:
    refusal: list[tuple[str, str]] = []
    if action == "start":
        try:
            completion_actions.start_completion_report(application, by=user)
        except ServiceError as error:
            refusal = [("#start-report", labels.service_message(error))]
        else:
            return redirect("web:employer-completion-report", application_id=application.pk)
    opens = _opens_on(application)
    context = {
        "title": _("Completion report"),
        "application": application,
        "due_on": _due_on(application),
        "opens_on": opens if opens and timezone.localdate() < opens else None,
        **_errors(refusal),
    }
    status = 409 if refusal else 200
    return render(request, "web/completion/report_start.html", context, status=status)


def _opens_on(application: Application) -> Any:
    """The first day the report may be started (a week before the training ends), or None."""
    agreement = getattr(application, "agreement", None)
    try:
        return None if agreement is None else completion_actions.opens_on(agreement)
    except ValueError:  # a schedule with no end date: the action's refusal says why
        return None


def _due_on(application: Application) -> Any:
    agreement = getattr(application, "agreement", None)
    if agreement is None:
        return None
    return current_version(agreement).completion_report_by


def _save(
    request: HttpRequest,
    user: User,
    application: Application,
    report: CompletionReport,
    *,
    review: bool,
) -> HttpResponse:
    slots = completion_actions.reportable_slots(application)
    employers = completion_actions.employer_ids(application)
    trainees, ratings, feedback, order = forms.posted_report(request, slots, employers)
    typed = _typed(request)
    try:
        answers = forms.report_answers(request, trainees, ratings, feedback)
        report = completion_actions.save_completion_report(report, by=user, **answers)
    except ServiceError as error:
        if error.status != 422:
            return _render_form(
                request,
                application,
                report,
                typed,
                {},
                [("#report-form", labels.service_message(error))],
            )
        return _render_form(
            request, application, report, typed, forms.report_problems(error, order), []
        )
    if not review:
        set_notice(request, "report-saved")
        return redirect("web:employer-completion-report", application_id=application.pk)
    return _render_confirm(request, application, report)


def _typed(request: HttpRequest) -> dict[str, str]:
    return {key: str(value) for key, value in request.POST.items() if key != "csrfmiddlewaretoken"}


def _render_form(
    request: HttpRequest,
    application: Application,
    report: CompletionReport,
    values: dict[str, str],
    problems: dict[str, str],
    refusal: list[tuple[str, str]],
) -> HttpResponse:
    wording = forms.report_questions(report.questions_version)
    rows = forms.trainee_rows(completion_actions.reportable_slots(application), values, problems)
    employers = list(application.employers.select_related("employer").order_by("position"))
    ratings: list[dict[str, Any]] = [
        {
            "id": link.employer_id,
            "name": link.employer.name,
            "items": [
                {
                    "item": item,
                    "text": text,
                    "value": values.get(f"r{link.employer_id}-{item}", ""),
                    "error": problems.get(f"r{link.employer_id}-{item}", ""),
                }
                for item, text in wording["ratings"]
            ],
        }
        for link in employers
    ]
    input_labels = forms.input_labels(rows, wording)
    for employer in ratings:
        for entry in employer["items"]:
            input_labels[f"r{employer['id']}-{entry['item']}"] = (
                f"{employer['name']}, {entry['text']}"
            )
    notice = take_notice(request)
    context = {
        "title": _("Completion report"),
        "application": application,
        "report": report,
        "q": wording,
        "rows": rows,
        "ratings": ratings,
        "feedback": values.get("feedback", ""),
        "feedback_error": problems.get("feedback", ""),
        **forms.counterfactual_context(values, problems),
        "notice": _("The draft was saved.")
        if notice and notice.get("kind") == "report-saved"
        else "",
        **_errors([*refusal, *forms.error_links(problems, input_labels)]),
    }
    status = 422 if problems else (409 if refusal else 200)
    return render(request, "web/completion/report_form.html", context, status=status)


def _render_confirm(
    request: HttpRequest, application: Application, report: CompletionReport
) -> HttpResponse:
    missing = completion_actions.missing_answers(report)
    names = dict(application.employers.values_list("employer_id", "employer__name"))
    context = {
        "title": _("Check the completion report before you submit it"),
        "application": application,
        "report": report,
        "outcomes": list(report.trainees.select_related("participant")),
        "ratings": forms.rating_texts(report),
        "missing": forms.missing_texts(missing, report.questions_version, names),
        "three_months": due_on(report.training_ended_on, 3),
        "twelve_months": due_on(report.training_ended_on, 12),
    }
    return render(request, "web/completion/report_confirm.html", context)


def _submit(
    request: HttpRequest, user: User, application: Application, report: CompletionReport
) -> HttpResponse:
    try:
        completion_actions.submit_completion_report(report, by=user)
    except ServiceError as error:
        refusal = [("#report-form", labels.service_message(error))]
        return _render_form(request, application, report, forms.saved_report(report), {}, refusal)
    burden.step_submitted(BurdenStep.COMPLETION, application=application)
    set_notice(request, "report-submitted")
    return redirect("web:employer-completion-report", application_id=application.pk)


def _render_submitted(
    request: HttpRequest, application: Application, report: CompletionReport
) -> HttpResponse:
    notice = take_notice(request)
    context = {
        "title": _("Completion report"),
        "application": application,
        "report": report,
        "outcomes": list(report.trainees.select_related("participant")),
        "three_months": due_on(report.training_ended_on, 3),
        "twelve_months": due_on(report.training_ended_on, 12),
        "notice": _("The completion report was submitted. Thank you.")
        if notice and notice.get("kind") == "report-submitted"
        else "",
    }
    return render(request, "web/completion/report_submitted.html", context)


# --- The employer's follow-up ------------------------------------------------------------------


@employer_required
@require_http_methods(["GET", "POST"])
def employer_follow_up(
    request: HttpRequest, user: User, application_id: int, milestone: int
) -> HttpResponse:
    """The employer's answers for its trainees at one milestone (3 or 12 months)."""
    application = applicant_file_or_404(user, application_id)
    if milestone not in Milestone.values:
        raise Http404
    waiting = follow_ups.waiting_employer_rows(application, milestone)
    problems: dict[str, str] = {}
    refusal: list[tuple[str, str]] = []
    if switching_language(request):
        pass  # what was typed, shown back in this language
    elif request.method == "POST":
        answers = {
            row.participant_id: forms.posted_answers(request, f"p{row.participant_id}-")
            for row in waiting
        }
        answers = {pk: typed for pk, typed in answers.items() if typed}
        try:
            follow_ups.answer_employer_follow_ups(application, milestone, answers, by=user)
        except ServiceError as error:
            if error.status == 422:
                prefixes = {f"{row.participant_id}.": f"p{row.participant_id}-" for row in waiting}
                problems = forms.follow_up_problems(error, prefixes)
            else:
                refusal = [("#follow-up-form", labels.service_message(error))]
        else:
            set_notice(request, "follow-up-answered", count=len(answers))
            return redirect(
                "web:employer-follow-up", application_id=application.pk, milestone=milestone
            )
    return _render_employer_follow_up(request, application, milestone, waiting, problems, refusal)


def _render_employer_follow_up(
    request: HttpRequest,
    application: Application,
    milestone: int,
    waiting: list[FollowUp],
    problems: dict[str, str],
    refusal: list[tuple[str, str]],
) -> HttpResponse:
    questions = forms.follow_up_questions()
    rows = []
    links = list(refusal)
    for row in waiting:
        slot = row.participant
        prefix = f"p{row.participant_id}-"
        who = _("Trainee %(n)s") % {"n": slot.position + 1}
        errors = {field: problems.get(prefix + field, "") for field in forms.FOLLOW_UP_INPUTS}
        links += [
            (f"#{forms.anchor(prefix + f)}", labelled(f"{who}, {questions[f]}", m))
            for f, m in errors.items()
            if m
        ]
        rows.append(
            {
                "prefix": prefix,
                "who": who,
                "name": f"{slot.given_name} {slot.family_name}".strip() or slot.email,
                "values": {
                    field: request.POST.get(prefix + field, "") for field in forms.FOLLOW_UP_INPUTS
                },
                "errors": errors,
            }
        )
    employer_rows = FollowUp.objects.filter(
        application=application, milestone=milestone, respondent="employer"
    ).select_related("participant")
    given = [forms.answer_row(row) for row in employer_rows.order_by("participant__position")]
    answered = sum(1 for row in given if row["answered"])
    not_yet = [row.due_on for row in employer_rows if row.state == "due"]
    notice = take_notice(request)
    context = {
        "title": _("Your trainees %(months)s months after the training") % {"months": milestone},
        "application": application,
        "milestone": milestone,
        "q": questions,
        "rows": rows,
        "answered": answered,
        "given": [row for row in given if row["answered"]],
        "opens_on": min(not_yet) if not_yet and not rows else None,
        "notice": _("Thank you: your answers were recorded.") if notice else "",
        **_errors(links),
    }
    status = 422 if problems else (409 if refusal else 200)
    return render(request, "web/completion/employer_follow_up.html", context, status=status)


# --- The trainee's follow-up -------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def trainee_follow_up(request: HttpRequest, token: str) -> HttpResponse:
    """The trainee's four questions, once; then a thank-you that shows none of the answers."""
    try:
        link = follow_ups.open_follow_up_link(token)
    except ServiceError as error:
        if error.code == "FOLLOW_UP_LINK_USED" and request.session.pop(ANSWERED_KEY, None):
            return _private(
                render(
                    request,
                    "web/completion/trainee_thanks.html",
                    {"title": _("Thank you: your answers were received")},
                )
            )
        return _link_refused(request, error)
    problems: dict[str, str] = {}
    if switching_language(request):
        pass  # what was typed, shown back in this language
    elif request.method == "POST":
        try:
            follow_ups.answer_follow_up(token, forms.posted_answers(request))
        except ServiceError as error:
            if error.status != 422:
                return _link_refused(request, error)
            problems = forms.follow_up_problems(error, {})
        else:
            request.session[ANSWERED_KEY] = True
            return _private(redirect(request.path))
    follow_up = link.follow_up
    questions = forms.follow_up_questions()
    context = {
        "title": _("%(months)s months after your training") % {"months": follow_up.milestone},
        "q": questions,
        "values": {field: request.POST.get(field, "") for field in forms.FOLLOW_UP_INPUTS},
        "errors": problems,
        "closes_on": link.expires_at,
        "course": (follow_up.application.request.get("training") or {}).get("course", ""),
        **_errors(
            [(f"#{forms.anchor(f)}", labelled(questions.get(f, f), m)) for f, m in problems.items()]
        ),
    }
    status = 422 if problems else 200
    return _private(
        render(request, "web/completion/trainee_follow_up.html", context, status=status)
    )
