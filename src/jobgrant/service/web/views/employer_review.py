"""The wizard's last step (review, warn when not eligible, submit) and cancelling the draft."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.applications import partners as partner_actions
from jobgrant.service.grants.burden import actions as burden
from jobgrant.service.web import labels
from jobgrant.service.web.declaration_display import declaration_rows
from jobgrant.service.web.forms import employer as shared
from jobgrant.service.web.forms.employer_draft import ReviewForm, payload
from jobgrant.service.web.limits import limited
from jobgrant.service.web.pages import employer_required, set_notice
from jobgrant.service.web.views import employer_steps as steps
from jobgrant.service.web.views.employer_apply import (
    DRAFT_KEY,
    checked,
    current_draft,
    gate,
    page,
    step_shown,
)

#: The refusals that keep the application a draft rather than lose it: an organization not
#: verified (or disputed) saves its draft, submitted from its page once verified.
UNVERIFIED = ("ORGANIZATION_NOT_VERIFIED", "ORGANIZATION_DISPUTED")


@employer_required
@require_http_methods(["GET", "POST"])
def apply_review(request: HttpRequest, user: User) -> HttpResponse:
    found = checked(request, user)
    if (back := gate(found, "review")) is not None:
        return back
    organizations, training, rows = found.organizations, found.training, found.trainees
    declared = found.declarations
    assert organizations is not None and training is not None and rows is not None
    assert declared is not None
    quote, problems = steps.try_quote(found, rows)
    eligible = quote is None or bool(quote.get("eligible"))
    form = ReviewForm(request.POST if request.method == "POST" else None, eligible=eligible)
    if request.method == "POST" and form.is_valid() and not problems:
        if too_many := limited(request, "submit", user):
            return too_many
        try:
            body = payload(organizations, training, rows, declared)
            if form.cleaned_data.get("counterfactual"):
                body["counterfactual"] = form.cleaned_data["counterfactual"]
            application = actions.create_application(user, body)
            waiting = partner_actions.unconsented_partners(application)
            held = None
            if not waiting:
                try:
                    actions.submit_application(user, application)
                except ServiceError as refusal:
                    if refusal.code not in UNVERIFIED:
                        raise
                    held = refusal  # kept as a draft: submitted once the organization is
        except ServiceError as error:
            problems = shared.service_problems(error)
        else:
            if (draft := current_draft(request, user)) is not None:
                burden.draft_became_file(draft, application)
            _forget_draft(request, user)
            # Partners not yet asked keep it a draft: submitted from its page once they accept.
            if held is not None:
                set_notice(
                    request, "refused", message_en=held.message_en, message_fr=held.message_fr
                )
            else:
                notice = "waiting-partners" if waiting else "submitted"
                set_notice(request, notice, application=application.pk)
            return redirect("web:employer-application", application_id=application.pk)
    if request.method == "GET":
        step_shown(request, user, "review")
    first = [(f"#change-{shared.step_of(key)}", message) for key, message in problems]
    return page(
        request,
        "web/employer/apply_review.html",
        {
            "title": _("Review and submit"),
            "step_number": 5,
            "organizations": organizations,
            "training": training,
            "trainees": steps.review_trainees(rows, organizations),
            "asks_under_represented": found.asks_under_represented,
            "under_represented": [i + 1 for i, t in enumerate(rows) if t.under_represented],
            "jurisdiction": labels.jurisdiction_name(organizations.lead.jurisdiction),
            "quote": quote,
            "declarations": declaration_rows(declared),
            "form": form,
            "warning": None if eligible or quote is None else shared.all_reasons(quote),
            **steps.training_summary(found),
            **(steps.tables(found, quote) if quote else {}),
        },
        [form] if request.method == "POST" else [],
        first=first,
    )


def _forget_draft(request: HttpRequest, user: User) -> None:
    draft = current_draft(request, user)
    if draft is not None:
        actions.delete_form_draft(user, draft)
    request.session.pop(DRAFT_KEY, None)


@employer_required
@require_http_methods(["GET", "POST"])
def apply_cancel(request: HttpRequest, user: User) -> HttpResponse:
    """Cancel the application being written, after confirmation: the GET page asks."""
    if request.method == "POST":
        _forget_draft(request, user)
        set_notice(request, "discarded")
        return redirect("web:employer-dashboard")
    context: dict[str, Any] = {
        "title": _("Cancel this application?"),
        "draft": current_draft(request, user),
        "action": "web:employer-apply-cancel",
    }
    return render(request, "web/employer/draft_delete.html", context)
