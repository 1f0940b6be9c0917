"""The employer's claims: the file's claims and starting one; a claim with its lines beside the
agreement, its receipts, the figures after the caps and why; submitting it after a confirmation;
downloading a receipt.

Thin views: reads through grants.claim_access, changes through grants.claim_actions (the same
checks and refusals as the API); a refusal is shown on the page, nothing written.
"""

from __future__ import annotations

from typing import Any, cast

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from jobgrant.service import refusals
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.claims import access as claim_access
from jobgrant.service.grants.claims import actions as claim_actions
from jobgrant.service.grants.claims.figures import agreed_lines
from jobgrant.service.grants.claims.receipts import checked, max_files, receipt_response
from jobgrant.service.grants.claims.view import describe
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.claims import Claim, ClaimState
from jobgrant.service.grants.models.participants import Participant, ParticipantState
from jobgrant.service.grants.participants.workflow import CONFIRMED_SLOTS
from jobgrant.service.language import localized
from jobgrant.service.web import claim_display as display
from jobgrant.service.web.forms.claims import ClaimLinesForm, ReceiptsForm, category_label
from jobgrant.service.web.pages import (
    employer_required,
    error_context,
    not_found_is_404,
    set_notice,
    take_notice,
    visible_or_404,
)


def _claim(user: User, claim_id: int) -> Claim:
    return visible_or_404(claim_access.get_visible_claim, user, claim_id)


@require_http_methods(["GET", "POST"])
@employer_required
def claims(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """The file's claims (each with its state and money); POST starts a new one."""
    application = visible_or_404(access.get_visible_application, user, application_id)
    refusal, status = None, 200
    if request.method == "POST":
        body: dict[str, Any] = {}
        amends = request.POST.get("amends", "")
        if amends.isdigit():
            body["amends"] = int(amends)
        try:
            claim = claim_actions.start_claim(user, application, body)
        except ServiceError as error:
            not_found_is_404(error)
            refusal, status = refusals.shown(error), error.status
        else:
            set_notice(request, "started", claim=claim.pk)
            return redirect("web:employer-claim", claim_id=claim.pk)
    found = claim_access.visible_claims(user).filter(application=application)
    context = {
        "title": _("Claims of application %(id)s") % {"id": application.pk},
        "application": application,
        "rows": [display.claim_row(claim) for claim in found.order_by("-number", "-version")],
        "refusal": refusal,
        "may_amend": ClaimState.APPROVED,
    }
    return render(request, "web/claims/employer_list.html", context, status=status)


def _rows(claim: Claim) -> list[dict[str, Any]]:
    """The claim's lines, and the agreement's other lines of its live trainees (at 0), so that
    the employer can claim any agreed cost."""
    shown = {(row["participant"], row["category"]): row for row in describe(claim)["lines"]}
    slots = Participant.objects.filter(application_id=claim.application_id).exclude(
        state=ParticipantState.WITHDRAWN
    )
    by_position = {slot.position: slot for slot in slots}
    rows = []
    for (position, category), agreed in sorted(agreed_lines(claim.agreement_version).items()):
        slot = by_position.get(position)
        if slot is None:
            continue
        line = shown.pop((slot.pk, category), None)
        rows.append(
            {
                "participant": slot.pk,
                "trainee": position + 1,
                "name": f"{slot.given_name} {slot.family_name}".strip() or slot.email,
                "confirmed": slot.state in CONFIRMED_SLOTS,
                "category": category,
                "category_label": category_label(category),
                "agreed_cents": agreed,
                "cents": line["claimed_cents"] if line else 0,
            }
        )
    for line in shown.values():  # a line outside the agreement's (an amendment's, say)
        label = category_label(line["category"])
        rows.append(
            {**line, "confirmed": True, "cents": line["claimed_cents"], "category_label": label}
        )
    return rows


def _render(
    request: HttpRequest,
    claim: Claim,
    *,
    form: ClaimLinesForm | None = None,
    receipts_form: ReceiptsForm | None = None,
    refusal: dict[str, str] | None = None,
    status: int = 200,
) -> HttpResponse:
    editable = claim.state in claim_actions.EDITABLE
    lines_form = form or ClaimLinesForm(None, _rows(claim), final=claim.is_final)
    upload_form = receipts_form or ReceiptsForm()
    shown = describe(claim)
    context = {
        "title": _("Claim %(number)s, version %(version)s")
        % {
            "number": claim.number,
            "version": claim.version,
        },
        "claim": claim,
        "application": claim.application,
        "editable": editable,
        "form": lines_form,
        "receipts_form": upload_form,
        "max_files": max_files(),
        "refusal": refusal,
        "notice": display.notice(take_notice(request), claim),
        **display.decorated(shown),
        **error_context(lines_form, upload_form),
    }
    return render(request, "web/claims/employer_claim.html", context, status=status)


@require_GET
@employer_required
def claim_page(request: HttpRequest, user: User, claim_id: int) -> HttpResponse:
    return _render(request, _claim(user, claim_id))


def _refused(
    request: HttpRequest,
    claim: Claim,
    error: ServiceError,
    form: ClaimLinesForm | None = None,
    receipts_form: ReceiptsForm | None = None,
) -> HttpResponse:
    not_found_is_404(error)
    for found in error.problems:
        path = str(found.get("field", ""))
        if path.startswith("file") and receipts_form is not None:
            receipts_form.add_error("file", localized(found))
            continue
        name = form.field_of(path) if form is not None else None
        target = name if form is not None and name in form.fields else None
        if form is not None:
            form.add_error(target, localized(found))
    refusal = None if error.problems else refusals.shown(error)
    return _render(
        request, claim, form=form, receipts_form=receipts_form, refusal=refusal, status=error.status
    )


@require_POST
@employer_required
def claim_lines(request: HttpRequest, user: User, claim_id: int) -> HttpResponse:
    """Save the amounts of a draft (or a returned claim)."""
    claim = _claim(user, claim_id)
    form = ClaimLinesForm(request.POST, _rows(claim), final=claim.is_final)
    if not form.is_valid():
        return _render(request, claim, form=form, status=422)
    try:
        claim_actions.update_claim(user, claim, form.as_body())
    except ServiceError as error:
        return _refused(request, claim, error, form=form)
    set_notice(request, "saved", claim=claim.pk)
    return redirect("web:employer-claim", claim_id=claim.pk)


@require_POST
@employer_required
def claim_receipts(request: HttpRequest, user: User, claim_id: int) -> HttpResponse:
    """Attach the files chosen (each checked from its content)."""
    claim = _claim(user, claim_id)
    form = ReceiptsForm(request.POST, request.FILES)
    if not form.is_valid():
        return _render(request, claim, receipts_form=form, status=422)
    try:
        files = [checked(upload, "file") for upload in form.cleaned_data["file"]]
        claim_actions.add_receipts(user, claim, files)
    except ServiceError as error:
        return _refused(request, claim, error, receipts_form=form)
    set_notice(request, "attached", claim=claim.pk, count=len(files))
    return redirect("web:employer-claim", claim_id=claim.pk)


@require_http_methods(["GET", "POST"])
@employer_required
def claim_submit(request: HttpRequest, user: User, claim_id: int) -> HttpResponse:
    """The confirmation page (GET), then the submission (POST with confirm=yes)."""
    claim = _claim(user, claim_id)
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        try:
            claim_actions.submit_claim(user, claim)
        except ServiceError as error:
            return _refused(request, claim, error)
        set_notice(request, "submitted", claim=claim.pk)
        return redirect("web:employer-claim", claim_id=claim.pk)
    context = {
        "title": _("Submit claim %(number)s?") % {"number": claim.number},
        "claim": claim,
        "application": claim.application,
        **display.decorated(describe(claim)),
    }
    return render(request, "web/claims/employer_submit.html", context)


@require_GET
@employer_required
def receipt_download(
    request: HttpRequest, user: User, claim_id: int, receipt_id: int
) -> HttpResponse:
    receipt = visible_or_404(claim_access.get_visible_receipt, user, claim_id, receipt_id)
    # A file streamed as it is read: not an HttpResponse, but answered the same way.
    return cast(HttpResponse, receipt_response(receipt))
