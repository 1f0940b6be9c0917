"""The program officer's review of one application, and the decision on it.

Thin views: applications are read through grants.access and changed only through grants.actions
(recommend, approve, deny). Approving and denying are confirmed first, on a page of their own
that shows the figures (no JavaScript needed). A refusal (separation of duties, conflict of
interest, budget, eligibility, a decision already taken) is explained on the review page and
nothing is written. The queue is in officer_queue.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from jobgrant.service import refusals
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.applications import assignment as assignment_actions
from jobgrant.service.grants.core import access
from jobgrant.service.grants.core.workflow import TRANSITIONS
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.language import localized
from jobgrant.service.outcomes.clocks import file_clocks
from jobgrant.service.web import explanations
from jobgrant.service.web.clock_display import clock_rows
from jobgrant.service.web.declaration_display import declarations_context
from jobgrant.service.web.forms.officer import DecisionForm, DenyForm
from jobgrant.service.web.labels import (
    DELIVERY_LABELS,
    STATE_LABELS,
    jurisdiction_name,
    setting_labels,
    status_labels,
)
from jobgrant.service.web.pages import (
    error_context,
    not_found_is_404,
    officer_required,
    set_notice,
    shown_as,
    switching_language,
    take_notice,
    typed_back,
    visible_or_404,
)
from jobgrant.service.web.views import officer_flags
from jobgrant.service.web.views.officer_ranking import OverrideForm, ranking_context

DECISIONS = ("recommend", "approve", "deny")
# Approving commits money and denying ends the application: each waits for a second POST that
# carries this field, sent from a page that shows what is about to happen.
CONFIRMED = "confirm"
TO_CONFIRM = ("approve", "deny")
ASSIGNMENTS = ("take", "release")  # "Assign to me" and "Release"


def _application(user: User, application_id: int) -> Application:
    return visible_or_404(access.get_visible_application, user, application_id)


@require_GET
@officer_required
def review(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    application = _application(user, application_id)
    return _render_review(request, application, DecisionForm(), DenyForm())


def _render_review(
    request: HttpRequest,
    application: Application,
    decision_form: DecisionForm,
    deny_form: DenyForm,
    *,
    refusal: dict[str, Any] | None = None,
    status: int = 200,
    override_form: OverrideForm | None = None,
) -> HttpResponse:
    user = request.user
    assert isinstance(user, User)
    you_recommended = application.recommended_by_id == user.pk
    possible = [
        a
        for a in DECISIONS
        if application.state in TRANSITIONS[a].sources
        and not (a == "approve" and you_recommended)  # a second officer approves
    ]
    errors: forms.Form = deny_form if deny_form.errors else decision_form
    if override_form is not None and override_form.errors:
        errors = override_form
    context = {
        "title": _("Application %(id)s") % {"id": application.pk},
        "application": application,
        "state_label": STATE_LABELS.get(application.state, application.state),
        "delivery_label": DELIVERY_LABELS.get(application.delivery, application.delivery),
        "jurisdiction_label": jurisdiction_name(application.jurisdiction),
        "employers": list(application.employers.select_related("employer")),
        "groups": explanations.groups(application),
        "employer_rows": explanations.employer_rows(application),
        "eligibility": explanations.eligibility(application),
        "funded": funded(application),
        **declarations_context(application),
        "flags": officer_flags.flag_rows(application),
        "history": [
            {
                **vars(change),
                "actor_name": change.actor.username,
                "from_label": STATE_LABELS.get(change.from_state, change.from_state),
                "to_label": STATE_LABELS.get(change.to_state, change.to_state),
            }
            for change in application.history.select_related("actor")
        ],
        "clocks": clock_rows(file_clocks(application)),
        "possible": possible,
        **_assignment(user, application),
        "you_recommended": you_recommended,
        "decision_form": decision_form,
        "deny_form": deny_form,
        "form": errors,
        **error_context(errors),
        "refusal": refusal,
        "notice": _notice_text(take_notice(request), application),
        **ranking_context(application, override_form),
    }
    return render(request, "web/officer/review.html", context, status=status)


def render_with_ranking(
    request: HttpRequest, application: Application, override_form: OverrideForm, **shown: Any
) -> HttpResponse:
    """The review with the override form as typed, and its refusal if any."""
    return _render_review(
        request, application, DecisionForm(), DenyForm(), override_form=override_form, **shown
    )


def _assignment(user: User, application: Application) -> dict[str, Any]:
    """Who holds the file, and which of "Assign to me" and "Release" the officer may press."""
    assignee = application.assigned_to
    yours = assignee is not None and assignee.pk == user.pk
    return {
        "assignee": assignee.username if assignee else "",
        "assigned_to_you": yours,
        "may_take": not yours and application.state in assignment_actions.ASSIGNABLE_STATES,
    }


def funded(application: Application) -> dict[str, Any]:
    """What the money pays for, as the applicant sent it: the training and each trainee."""
    request = application.request if isinstance(application.request, dict) else {}
    training = request.get("training") or {}
    provider = training.get("provider") or {}
    names = explanations.employer_names(application)
    statuses, settings = status_labels(), setting_labels()
    course = training.get("course")
    return {
        "course": course.strip() if isinstance(course, str) else "",  # none before it was asked
        "provider": str(provider.get("name") or ""),
        "third_party": provider.get("third_party") is True,
        "setting": settings.get(str(training.get("setting")), str(training.get("setting") or "")),
        "start_date": training.get("start_date"),
        "end_date": training.get("end_date"),
        "hours": explanations.number_text(str(training.get("hours") or "")),
        "trainees": [
            {
                "number": index + 1,
                "employer": names.get(str(trainee.get("employer_id")), ""),
                "status": statuses.get(str(trainee.get("status")), str(trainee.get("status"))),
            }
            for index, trainee in enumerate(request.get("trainees") or [])
            if isinstance(trainee, dict)
        ],
    }


def _notice_text(notice: dict[str, Any] | None, application: Application) -> str:
    if not notice or notice.get("application") != application.pk:
        return ""
    return {
        "recommend": _("You recommended application %(id)s. Another officer must approve it."),
        "approve": _(
            "You approved application %(id)s. The government shares are committed against "
            "the budgets."
        ),
        "deny": _("You denied application %(id)s."),
        "take": _("Application %(id)s is assigned to you."),
        "release": _("You released application %(id)s: it is assigned to nobody now."),
        "override": _(
            "You asked for an override on application %(id)s. A program manager must sign it "
            "off before the decision can be taken."
        ),
        "flag-cleared": _("You cleared a risk flag on application %(id)s."),
    }.get(str(notice.get("kind")), "") % {"id": application.pk}


@require_http_methods(["GET", "POST"])
@officer_required
def decide(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """Recommend, approve or deny, through the actions; then back to the review (PRG).

    Approving and denying first answer with a confirmation page; only its POST, which carries
    the `confirm` field, acts. A GET (the language toggle of a page answered here, or a reload)
    goes to the review."""
    application = _application(user, application_id)
    if request.method != "POST":
        return redirect(reverse("web:officer-review", args=[application.pk]))
    action = request.POST.get("action", "")
    is_deny = action == "deny"
    decision_form = DecisionForm(None if is_deny else request.POST)
    deny_form = DenyForm(request.POST if is_deny else None)
    form: forms.Form = deny_form if is_deny else decision_form
    if switching_language(request):  # what was typed, shown back in this language
        return _switched(request, application, action)
    if action not in DECISIONS:
        unknown = {
            "title": _("Choose a decision"),
            "text": _("Use one of the buttons: recommend, approve or deny."),
        }
        return _render_review(
            request, application, decision_form, deny_form, refusal=unknown, status=400
        )
    if not form.is_valid():
        return _render_review(request, application, decision_form, deny_form, status=422)
    if _needs_confirmation(request, application, action):
        return _render_confirmation(request, application, action, form.cleaned_data)
    try:
        _act(request, application, action, form.cleaned_data)
    except ServiceError as error:
        return _refused(request, application, action, error, (decision_form, deny_form))
    set_notice(request, action, application=application.pk)
    return redirect(reverse("web:officer-review", args=[application.pk]))


@require_http_methods(["GET", "POST"])
@officer_required
def assign(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """Take the file ("Assign to me") or give it back ("Release"), through the assignment
    actions; then back to the review (PRG). A GET (the language toggle of a refusal answered
    here) goes to the review."""
    application = _application(user, application_id)
    if request.method != "POST":
        return redirect(reverse("web:officer-review", args=[application.pk]))
    choice = request.POST.get("assignment", "")
    blank = (DecisionForm(), DenyForm())
    if choice not in ASSIGNMENTS:
        unknown = {
            "title": _("Choose an action"),
            "text": _("Use the button: assign to me or release."),
        }
        return _render_review(request, application, *blank, refusal=unknown, status=400)
    try:
        if choice == "take":
            assignment_actions.assign_application(user, application, user)
        else:
            assignment_actions.release_application(user, application)
    except ServiceError as error:
        return _refused(request, application, choice, error, blank)
    set_notice(request, choice, application=application.pk)
    return redirect(reverse("web:officer-review", args=[application.pk]))


def _switched(request: HttpRequest, application: Application, action: str) -> HttpResponse:
    """The review (or the confirmation step) in the other language, with what was typed."""
    shown_as(request, reverse("web:officer-review", args=[application.pk]))
    if action in TO_CONFIRM and request.POST.get(CONFIRMED) == "yes":
        form: forms.Form = (DenyForm if action == "deny" else DecisionForm)(request.POST)
        if form.is_valid():
            return _render_confirmation(request, application, action, form.cleaned_data)
    denying = "reason" in request.POST  # the deny form's field; the other form has a note
    decision_form = DecisionForm() if denying else typed_back(DecisionForm, request)
    deny_form = typed_back(DenyForm, request) if denying else DenyForm()
    return _render_review(request, application, decision_form, deny_form)


def _needs_confirmation(request: HttpRequest, application: Application, action: str) -> bool:
    """Approve and deny wait for their confirmation, unless the state already rules them out
    (then the action's refusal says why, at once)."""
    possible = application.state in TRANSITIONS[action].sources
    return action in TO_CONFIRM and possible and request.POST.get(CONFIRMED) != "yes"


def _act(request: HttpRequest, application: Application, action: str, data: dict[str, Any]) -> None:
    user = request.user
    assert isinstance(user, User)
    if action == "recommend":
        actions.recommend_application(user, application, data["note"])
    elif action == "approve":
        actions.approve_application(user, application, data["note"])
    else:
        actions.deny_application(user, application, data["reason"])


def _refused(
    request: HttpRequest,
    application: Application,
    action: str,
    error: ServiceError,
    decision_forms: tuple[DecisionForm, DenyForm],
) -> HttpResponse:
    not_found_is_404(error)
    decision_form, deny_form = decision_forms
    form: forms.Form = deny_form if action == "deny" else decision_form
    for found in error.problems:
        name = found.get("field", "")
        message = localized(found)
        form.add_error(name if name in form.fields else None, message)
    application.refresh_from_db()
    refusal = None if error.problems else refusal_of(error, action)
    return _render_review(
        request, application, decision_form, deny_form, refusal=refusal, status=error.status
    )


def _render_confirmation(
    request: HttpRequest, application: Application, action: str, data: dict[str, Any]
) -> HttpResponse:
    """The figures of the decision about to be taken, and a button that takes it."""
    titles = {"approve": _("Approve application %(id)s?"), "deny": _("Deny application %(id)s?")}
    context = {
        "title": titles[action] % {"id": application.pk},
        "application": application,
        "action": action,
        "note": data.get("note", ""),
        "reason": data.get("reason", ""),
        "employers": list(application.employers.select_related("employer")),
        "government_cents": application.federal_cents + application.provincial_cents,
    }
    return render(request, "web/officer/confirm.html", context)


NOT_ELIGIBLE = {
    "recommend": gettext_lazy(
        "The application does not meet these rules, so it cannot be recommended:"
    ),
    "approve": gettext_lazy(
        "Checked again today, the application does not meet these rules, so it cannot be approved:"
    ),
}


def refusal_of(error: ServiceError, action: str) -> dict[str, Any]:
    """A refusal in plain words, in the page's language (worded once, in `service.refusals`);
    a decision refused for eligibility lists the rules the application does not meet."""
    refusal: dict[str, Any] = refusals.shown(error)
    if error.code == "NOT_ELIGIBLE":
        codes = error.extra.get("reasons")
        listed = codes if isinstance(codes, list) else []
        refusal["text"] = str(NOT_ELIGIBLE.get(action, NOT_ELIGIBLE["approve"]))
        refusal["reasons"] = [explanations.reason_text(str(code)) for code in listed]
    return refusal
