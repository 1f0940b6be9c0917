"""The officer's claims: the claims to assess; one claim with each line beside the agreement's
and what approved claims already have, the caps and why, the receipts to open; the decision
(approve and certify, return, deny), confirmed on a page of its own before anything is done.

Only the officer the file is assigned to decides (grants.claim_actions refuses anyone else).
"""

from __future__ import annotations

from typing import Any, cast

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from jobgrant.service import refusals
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.claims import access as claim_access
from jobgrant.service.grants.claims import assessment as claim_assessment
from jobgrant.service.grants.claims.receipts import receipt_response
from jobgrant.service.grants.claims.view import describe
from jobgrant.service.grants.models.claims import UNDER_ASSESSMENT, Claim
from jobgrant.service.language import localized
from jobgrant.service.web import claim_display as display
from jobgrant.service.web.forms.claims import ApprovalForm, ReasonForm
from jobgrant.service.web.pages import (
    SWITCH_LANGUAGE,
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

PAGE_SIZE = 25
DECISIONS = ("approve", "return", "deny")


def _claim(user: User, claim_id: int) -> Claim:
    return visible_or_404(claim_access.get_visible_claim, user, claim_id)


@require_GET
@officer_required
def queue(request: HttpRequest, user: User) -> HttpResponse:
    """The claims to assess, oldest submission first; the user's own files marked."""
    found = (
        claim_access.visible_claims(user)
        .filter(state__in=UNDER_ASSESSMENT)
        .select_related("application", "application__assigned_to")
        .order_by("submitted_at", "id")
    )
    page = Paginator(found, PAGE_SIZE).get_page(request.GET.get("page"))
    rows = [
        {**display.claim_row(claim), "yours": claim.application.assigned_to_id == user.pk}
        for claim in page
    ]
    context = {"title": _("Claims to assess"), "rows": rows, "page": page}
    return render(request, "web/claims/officer_queue.html", context)


def _render(
    request: HttpRequest,
    user: User,
    claim: Claim,
    *,
    approve_form: ApprovalForm | None = None,
    return_form: ReasonForm | None = None,
    deny_form: ReasonForm | None = None,
    refusal: dict[str, str] | None = None,
    status: int = 200,
) -> HttpResponse:
    shown = display.decorated(describe(claim))
    shown_as(request, reverse("web:officer-claim", args=[claim.pk]))  # the toggle after an error
    approve = approve_form or ApprovalForm(None, shown["lines"], shown["caps"])
    if approve_form is not None:  # the lines of the bound form carry its fields
        shown["lines"] = approve_form.lines
    back = return_form or ReasonForm(prefix="return")
    deny = deny_form or ReasonForm(prefix="deny")
    assigned = claim.application.assigned_to_id == user.pk
    context = {
        "title": _("Claim %(number)s, version %(version)s")
        % {
            "number": claim.number,
            "version": claim.version,
        },
        "claim": claim,
        "application": claim.application,
        "may_decide": assigned and claim.state in UNDER_ASSESSMENT,
        "assigned": assigned,
        "approve_form": approve,
        "return_form": back,
        "deny_form": deny,
        "refusal": refusal,
        "notice": display.notice(take_notice(request), claim),
        **shown,
        **error_context(approve, back, deny),
    }
    return render(request, "web/claims/officer_claim.html", context, status=status)


@require_GET
@officer_required
def claim_page(request: HttpRequest, user: User, claim_id: int) -> HttpResponse:
    return _render(request, user, _claim(user, claim_id))


@require_POST
@officer_required
def decide(request: HttpRequest, user: User, claim_id: int) -> HttpResponse:
    """A decision's form: without confirm=yes, the page that asks to confirm it; with it, done."""
    claim = _claim(user, claim_id)
    action = request.POST.get("action", "")
    if action not in DECISIONS:
        raise Http404
    shown = display.decorated(describe(claim))
    forms = {
        "approve": ApprovalForm(
            request.POST if action == "approve" else None, shown["lines"], shown["caps"]
        ),
        "return": ReasonForm(request.POST if action == "return" else None, prefix="return"),
        "deny": ReasonForm(request.POST if action == "deny" else None, prefix="deny"),
    }
    form = forms[action]
    kwargs: dict[str, Any] = {
        "approve_form": forms["approve"],
        "return_form": forms["return"],
        "deny_form": forms["deny"],
    }
    if switching_language(request):  # what was typed, shown back in this language
        if request.POST.get("confirm") == "yes" and form.is_valid():
            return _confirm(request, claim, action, form)
        shown_back(form)
        return _render(request, user, claim, **kwargs)
    if not form.is_valid():
        return _render(request, user, claim, status=422, **kwargs)
    if request.POST.get("confirm") != "yes":
        return _confirm(request, claim, action, form)
    try:
        if action == "approve":
            approval = forms["approve"]
            assert isinstance(approval, ApprovalForm)
            claim_assessment.approve_claim(user, claim, approval.as_body())
        elif action == "return":
            claim_assessment.return_claim(user, claim, form.cleaned_data["reason"])
        else:
            claim_assessment.deny_claim(user, claim, form.cleaned_data["reason"])
    except ServiceError as error:
        not_found_is_404(error)
        for found in error.problems:
            name = (
                form.field_of(str(found.get("field", "")))
                if hasattr(form, "field_of")
                else "reason"
            )
            form.add_error(name if name in form.fields else None, localized(found))
        refusal = None if error.problems else refusals.shown(error)
        return _render(request, user, claim, refusal=refusal, status=error.status, **kwargs)
    kinds = {"approve": "approved", "return": "returned", "deny": "denied"}
    set_notice(request, kinds[action], claim=claim.pk)
    return redirect("web:officer-claim", claim_id=claim.pk)


def _confirm(request: HttpRequest, claim: Claim, action: str, form: Any) -> HttpResponse:
    shown_as(request, reverse("web:officer-claim", args=[claim.pk]))  # the toggle: the claim
    questions = {
        "approve": _("Approve and certify claim %(number)s?"),
        "return": _("Return claim %(number)s to the employer?"),
        "deny": _("Deny claim %(number)s?"),
    }
    context = {
        "title": questions[action] % {"number": claim.number},
        "claim": claim,
        "action": action,
        "posted": [
            (key, value)
            for key, value in request.POST.items()
            if key not in ("csrfmiddlewaretoken", SWITCH_LANGUAGE)
        ],
        "approving": action == "approve",
        "lines": form.lines if action == "approve" else [],
        "cleaned": form.cleaned_data,
    }
    return render(request, "web/claims/officer_confirm.html", context)


@require_GET
@officer_required
def receipt_download(
    request: HttpRequest, user: User, claim_id: int, receipt_id: int
) -> HttpResponse:
    receipt = visible_or_404(claim_access.get_visible_receipt, user, claim_id, receipt_id)
    # A file streamed as it is read: not an HttpResponse, but answered the same way.
    return cast(HttpResponse, receipt_response(receipt))
