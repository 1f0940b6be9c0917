"""The employer's change requests: choose what to change, fill in its form, review the change
(each field before and after, and the money), confirm; then follow its state and read the
decision's reason.

Thin views: the agreement is read through grants.access, the change worked out by
`change_actions.preview_change` (nothing written) for the review, and asked for by
`change_actions.request_change` on confirmation. The form's fields are turned into the API's
body (web/forms/changes.py), so the page and the API get the same checks and refusals.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from jobgrant.service import refusals
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.burden import actions as burden
from jobgrant.service.grants.changes import access as change_access
from jobgrant.service.grants.changes import actions as change_actions
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.burden import BurdenStep
from jobgrant.service.grants.models.changes import ChangeKind, ChangeState
from jobgrant.service.language import labelled, localized
from jobgrant.service.web import change_display as display
from jobgrant.service.web.forms import changes as forms
from jobgrant.service.web.pages import (
    employer_required,
    error_context,
    not_found_is_404,
    set_notice,
    switching_language,
    take_notice,
    visible_or_404,
)

CONFIRMED = "confirm"


def _application(user: User, application_id: int) -> Application:
    return visible_or_404(access.get_visible_application, user, application_id)


def _agreement(application: Application) -> Agreement | None:
    agreement = Agreement.objects.filter(application=application).first()
    if agreement is not None:
        agreement.application = application
    return agreement


def _no_agreement(request: HttpRequest, application: Application) -> HttpResponse:
    """To the application's page, saying why there is nothing to change (no dead end)."""
    error = refusals.refused(409, "NO_AGREEMENT")
    set_notice(request, "refused", message_en=error.message_en, message_fr=error.message_fr)
    return redirect("web:employer-application", application_id=application.pk)


def _notice(notice: dict[str, Any] | None, change_id: int) -> str:
    if not notice or notice.get("change") != change_id:
        return ""
    texts = {
        "requested": _("Change request %(id)s was sent. An officer will decide it."),
        "self-service": _(
            "Change request %(id)s was approved at once: a change of dates within the fiscal "
            "year that moves no money needs no officer."
        ),
    }
    return texts.get(str(notice.get("kind")), "") % {"id": change_id}


@require_GET
@employer_required
def changes(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """The agreement's change requests, and the choice of what to change next."""
    application = _application(user, application_id)
    agreement = _agreement(application)
    if agreement is None:
        return _no_agreement(request, application)
    form = forms.KindForm(request.GET if "kind" in request.GET else None)
    if form.is_bound and form.is_valid():
        kind = form.cleaned_data["kind"]
        return redirect("web:employer-change-new", application_id=application.pk, kind=kind)
    names = display.employer_names(application)
    found = agreement.change_requests.select_related("version").order_by("-id")
    rows = [display.change_summary(change, names) for change in found]
    open_one = next((row for row in rows if row["change"].state == ChangeState.SUBMITTED), None)
    context = {
        "title": _("Changes to the agreement of application %(id)s") % {"id": application.pk},
        "application": application,
        "agreement": agreement,
        "rows": rows,
        "open_one": open_one,
        "may_ask": agreement.state in change_actions.CHANGEABLE and open_one is None,
        "form": form,
        **error_context(form),
    }
    status = 422 if form.is_bound else 200
    return render(request, "web/changes/index.html", context, status=status)


@require_http_methods(["GET", "POST"])
@employer_required
def change_new(request: HttpRequest, user: User, application_id: int, kind: str) -> HttpResponse:
    """The form of one kind of change; its POST shows the review, whose POST (with `confirm`)
    asks for the change."""
    if kind not in ChangeKind.values:
        raise Http404
    application = _application(user, application_id)
    agreement = _agreement(application)
    if agreement is None:
        return _no_agreement(request, application)
    current = change_actions.current_request(agreement)
    form = _form(kind, request.POST if request.method == "POST" else None, current, application)
    if switching_language(request):  # what was typed, shown back in this language
        if request.POST.get(CONFIRMED) != "yes" or not form.is_valid():
            typed = {name: form[name].data for name in form.fields}
            form = _form(kind, None, current, application, initial=typed)
            return _render_form(request, application, kind, form)
        try:  # from the review: the review again, nothing written
            preview = change_actions.preview_change(user, agreement, kind, form.as_body())
        except ServiceError as error:
            return _refused(request, application, kind, form, error)
        return _render_review(request, application, kind, form, preview)
    if request.method != "POST":
        burden.step_viewed(BurdenStep.CHANGE, application=application)
    if request.method != "POST" or not form.is_valid():
        return _render_form(request, application, kind, form, status=_status(form))
    body = form.as_body()
    try:
        if request.POST.get(CONFIRMED) != "yes":
            preview = change_actions.preview_change(user, agreement, kind, body)
            return _render_review(request, application, kind, form, preview)
        change = change_actions.request_change(user, agreement, kind, body)
    except ServiceError as error:
        return _refused(request, application, kind, form, error)
    burden.step_submitted(BurdenStep.CHANGE, application=application, opened=change.pk)
    notice = "self-service" if change.state == ChangeState.APPROVED else "requested"
    set_notice(request, notice, change=change.pk)
    return redirect("web:employer-change", change_id=change.pk)


def _status(form: forms.ChangeForm) -> int:
    return 422 if form.is_bound and form.errors else 200


def _form(
    kind: str,
    data: Any,
    current: dict[str, Any],
    application: Application,
    initial: dict[str, Any] | None = None,
) -> forms.ChangeForm:
    names = display.employer_names(application)
    if kind == ChangeKind.TRAINEES:
        employers = [(reference, name) for reference, name in names.items()]
        return forms.TraineesForm(
            data,
            trainees=display.trainee_choices(current, names),
            employers=employers,
            initial=initial,
        )
    if kind == ChangeKind.COST_REALLOCATION:
        trainees = [(str(index), name) for index, name in display.trainee_names(current)]
        return forms.CostsForm(data, lines=forms.line_choices(trainees), initial=initial)
    return forms.FORMS[kind](data, initial=initial)


def _render_form(
    request: HttpRequest,
    application: Application,
    kind: str,
    form: forms.ChangeForm,
    *,
    refusal: dict[str, str] | None = None,
    status: int = 200,
) -> HttpResponse:
    kind_label = str(ChangeKind(kind).label)
    context = {
        "title": _("Ask for a change: %(kind)s") % {"kind": kind_label.lower()},
        "application": application,
        "kind": kind,
        "form": form,
        "refusal": refusal,
        "current": _current_facts(application),
        **error_context(form),
    }
    return render(request, "web/changes/form.html", context, status=status)


def _current_facts(application: Application) -> dict[str, Any]:
    agreement = _agreement(application)
    request = change_actions.current_request(agreement) if agreement else {}
    training = request.get("training") or {}
    names = display.employer_names(application)
    return {
        "start_date": training.get("start_date"),
        "end_date": training.get("end_date"),
        "provider": (training.get("provider") or {}).get("name", ""),
        "trainees": [text for _index, text in display.trainee_choices(request, names)],
    }


def _render_review(
    request: HttpRequest,
    application: Application,
    kind: str,
    form: forms.ChangeForm,
    preview: change_actions.Preview,
) -> HttpResponse:
    names = display.employer_names(application)
    self_service = kind == ChangeKind.DATES and not preview.moves_money
    context = {
        "title": _("Check the change before you send it"),
        "application": application,
        "kind": kind,
        "kind_label": str(ChangeKind(kind).label),
        "rows": display.diff_rows(preview.proposal.diff, names),
        "figures": display.figure_rows(preview.figures),
        "self_service": self_service,
        "needs_acceptance": preview.needs_acceptance,
        "posted": [(name, form.data.get(name, "")) for name in form.fields],
    }
    return render(request, "web/changes/review.html", context)


def _refused(
    request: HttpRequest,
    application: Application,
    kind: str,
    form: forms.ChangeForm,
    error: ServiceError,
) -> HttpResponse:
    """A refusal on the form: each field's problem next to its field, or the refusal's words."""
    not_found_is_404(error)
    for found in error.problems:
        name = form.field_of(str(found.get("field", "")))
        label = str(form.fields[name].label) if name in form.fields else ""
        message = localized(found)
        form.add_error(
            name if name in form.fields else None, labelled(label, message) if label else message
        )
    refusal = None if error.problems else refusals.shown(error)
    if refusal and error.code in ("CHANGE_NOT_ELIGIBLE",):
        refusal["text"] = refusals.message(error)
    return _render_form(request, application, kind, form, refusal=refusal, status=error.status)


@require_GET
@employer_required
def change_detail(request: HttpRequest, user: User, change_id: int) -> HttpResponse:
    """One change request: its state, what it changes, the money, and the decision's reason."""
    change = visible_or_404(change_access.get_visible_change, user, change_id)
    application = change.agreement.application
    context = {
        "title": _("Change request %(id)s") % {"id": change.pk},
        "application": application,
        **display.change_summary(change, display.employer_names(application)),
        "notice": _notice(take_notice(request), change.pk),
    }
    return render(request, "web/changes/detail.html", context)
