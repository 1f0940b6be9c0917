"""The program officer's change requests: the queue of those to decide, one request with each
changed field before and after and the money it moves, and the decision (approve, or deny with a
reason), each confirmed on a page of its own before anything is done.

Reads go through grants.change_access; decisions through change_actions (approve_change,
deny_change), which refuse what the officer may not do (another jurisdiction, an affiliation,
a request already decided, a budget that cannot cover the money added).
"""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from jobgrant.service import refusals
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.changes import access as change_access
from jobgrant.service.grants.changes import actions as change_actions
from jobgrant.service.grants.models.changes import ChangeRequest, ChangeState
from jobgrant.service.language import localized
from jobgrant.service.web import change_display as display
from jobgrant.service.web import labels
from jobgrant.service.web.forms.changes import ChangeDecisionForm
from jobgrant.service.web.pages import (
    error_context,
    not_found_is_404,
    officer_required,
    set_notice,
    shown_as,
    shown_back,
    switching_language,
    take_notice,
    visible_or_404,
)

DECISIONS = ("approve", "deny")
CONFIRMED = "confirm"
PAGE_SIZE = 25


def _change(user: User, change_id: int) -> ChangeRequest:
    return visible_or_404(change_access.get_visible_change, user, change_id)


@require_GET
@officer_required
def queue(request: HttpRequest, user: User) -> HttpResponse:
    """The change requests to decide, oldest first (or every one, `?state=all`)."""
    everything = request.GET.get("state") == "all"
    found = change_access.visible_changes(user).select_related(
        "agreement__application", "requested_by"
    )
    if not everything:
        found = found.filter(state=ChangeState.SUBMITTED)
    page = Paginator(found.order_by("requested_at", "id"), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    rows = []
    for change in page:
        application = change.agreement.application
        names = display.employer_names(application)
        rows.append(
            {
                "change": change,
                "application": application,
                "employer": next(iter(names.values()), ""),
                "kind_label": labels.label(display.CHANGE_KIND_LABELS, change.kind),
                "state_label": labels.label(display.CHANGE_STATE_LABELS, change.state),
            }
        )
    context = {
        "title": _("Change requests to decide") if not everything else _("All change requests"),
        "rows": rows,
        "page": page,
        "everything": everything,
    }
    return render(request, "web/changes/officer_queue.html", context)


@require_GET
@officer_required
def review(request: HttpRequest, user: User, change_id: int) -> HttpResponse:
    change = _change(user, change_id)
    return _render_review(request, change, ChangeDecisionForm(), ChangeDecisionForm(deny=True))


def _render_review(
    request: HttpRequest,
    change: ChangeRequest,
    approve_form: ChangeDecisionForm,
    deny_form: ChangeDecisionForm,
    *,
    refusal: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    application = change.agreement.application
    names = display.employer_names(application)
    form = deny_form if deny_form.errors else approve_form
    context = {
        "title": _("Change request %(id)s") % {"id": change.pk},
        "application": application,
        "employers": list(names.values()),
        **display.change_summary(change, names),
        "may_decide": change.state == ChangeState.SUBMITTED,
        "approve_form": approve_form,
        "deny_form": deny_form,
        **error_context(form),
        "refusal": refusal,
        "notice": _notice(take_notice(request), change),
    }
    return render(request, "web/changes/officer_review.html", context, status=status)


def _notice(notice: dict[str, Any] | None, change: ChangeRequest) -> str:
    if not notice or notice.get("change") != change.pk:
        return ""
    texts = {
        "approve": _("You approved change request %(id)s. The agreement has a new version."),
        "deny": _("You denied change request %(id)s. The employer will read your reason."),
    }
    return texts.get(str(notice.get("kind")), "") % {"id": change.pk}


@require_http_methods(["GET", "POST"])
@officer_required
def decide(request: HttpRequest, user: User, change_id: int) -> HttpResponse:
    """Approve or deny: the first POST answers with a confirmation page, the second (with
    `confirm`) decides; then back to the request (PRG). A GET goes to the request."""
    change = _change(user, change_id)
    if request.method != "POST":
        return redirect("web:officer-change", change_id=change.pk)
    action = request.POST.get("action", "")
    deny = action == "deny"
    approve_form = ChangeDecisionForm(None if deny else request.POST)
    deny_form = ChangeDecisionForm(request.POST if deny else None, deny=True)
    form = deny_form if deny else approve_form
    if switching_language(request) and action in DECISIONS:  # what was typed, shown back
        shown_as(request, reverse("web:officer-change", args=[change.pk]))
        if request.POST.get(CONFIRMED) == "yes" and form.is_valid():
            reason = str(form.cleaned_data["reason"]).strip()
            return _render_confirmation(request, change, action, reason, form)
        shown_back(form)
        return _render_review(request, change, approve_form, deny_form)
    if action not in DECISIONS:
        unknown = {
            "title": _("Choose a decision"),
            "text": _("Use one of the buttons: approve or deny."),
        }
        return _render_review(request, change, approve_form, deny_form, refusal=unknown, status=400)
    if not form.is_valid():
        return _render_review(request, change, approve_form, deny_form, status=422)
    reason = str(form.cleaned_data["reason"]).strip()
    if change.state == ChangeState.SUBMITTED and request.POST.get(CONFIRMED) != "yes":
        return _render_confirmation(request, change, action, reason, form)
    try:
        if deny:
            missing = bool(form.cleaned_data.get("missing_information"))
            change_actions.deny_change(user, change, reason, missing_information=missing)
        else:
            change_actions.approve_change(user, change, reason)
    except ServiceError as error:
        not_found_is_404(error)
        for found in error.problems:
            form.add_error("reason" if found.get("field") == "reason" else None, localized(found))
        change.refresh_from_db()
        refusal = None if error.problems else refusals.shown(error)
        return _render_review(
            request, change, approve_form, deny_form, refusal=refusal, status=error.status
        )
    set_notice(request, action, change=change.pk)
    return redirect("web:officer-change", change_id=change.pk)


def _render_confirmation(
    request: HttpRequest,
    change: ChangeRequest,
    action: str,
    reason: str,
    form: ChangeDecisionForm,
) -> HttpResponse:
    application = change.agreement.application
    titles = {
        "approve": _("Approve change request %(id)s?"),
        "deny": _("Deny change request %(id)s?"),
    }
    context = {
        "title": titles[action] % {"id": change.pk},
        "application": application,
        **display.change_summary(change, display.employer_names(application)),
        "action": action,
        "reason": reason,
        "reason_name": form.add_prefix("reason"),
        "missing_information": bool(form.cleaned_data.get("missing_information")),
        "missing_name": form.add_prefix("missing_information"),
    }
    return render(request, "web/changes/officer_confirm.html", context)
