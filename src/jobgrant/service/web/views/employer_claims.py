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
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from jobgrant.rules.money import parse_amount
from jobgrant.service import refusals
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.burden import actions as burden
from jobgrant.service.grants.claims import access as claim_access
from jobgrant.service.grants.claims import actions as claim_actions
from jobgrant.service.grants.claims.figures import agreed_lines
from jobgrant.service.grants.claims.receipts import (
    checked,
    max_files,
    receipt_response,
    shown_name,
)
from jobgrant.service.grants.claims.view import describe
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.burden import BurdenStep
from jobgrant.service.grants.models.claims import Claim, ClaimState
from jobgrant.service.grants.models.participants import Participant, ParticipantState
from jobgrant.service.grants.participants.workflow import CONFIRMED_SLOTS
from jobgrant.service.language import localized
from jobgrant.service.outcomes.clocks import pay_clocks
from jobgrant.service.web import claim_display as display
from jobgrant.service.web.clock_display import clock_rows
from jobgrant.service.web.forms.claims import ClaimLinesForm, ReceiptsForm, category_label
from jobgrant.service.web.pages import (
    employer_required,
    error_context,
    files_not_kept,
    not_found_is_404,
    set_notice,
    shown_as,
    shown_back,
    switching_language,
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
        "waiting": claim_actions.unconfirmed_trainees(application),
        "notice": _list_notice(take_notice(request), application.pk),
    }
    return render(request, "web/claims/employer_list.html", context, status=status)


def _list_notice(found: dict[str, Any] | None, application_id: int) -> str:
    if not found or found.get("kind") != "discarded" or found.get("application") != application_id:
        return ""
    return _("Claim %(number)s is discarded, with its receipts.") % {"number": found["number"]}


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
    files: list[str] | None = None,
) -> HttpResponse:
    editable = claim.state in claim_actions.EDITABLE
    shown_as(request, reverse("web:employer-claim", args=[claim.pk]))  # the toggle after an error
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
        "files_not_kept": files or [],
        "refusal": refusal,
        "notice": display.notice(take_notice(request), claim),
        "clocks": clock_rows(pay_clocks(claim)),
        **display.decorated(shown),
        **display.paid_context(claim),
        **error_context(lines_form, upload_form),
    }
    return render(request, "web/claims/employer_claim.html", context, status=status)


@require_http_methods(["GET", "POST"])
@employer_required
def claim_page(request: HttpRequest, user: User, claim_id: int) -> HttpResponse:
    """The claim (GET); its one form posts back here (POST: `_save`)."""
    if request.method == "POST":
        return _save(request, user, _claim(user, claim_id))
    claim = _claim(user, claim_id)
    if claim.state in claim_actions.EDITABLE:
        burden.step_viewed(BurdenStep.CLAIM, application=claim.application, subject=claim.pk)
    return _render(request, claim)


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


def _save(request: HttpRequest, user: User, claim: Claim) -> HttpResponse:
    """The claim page's one form: the amounts (and whether it is final) are saved, the files
    chosen attached, then (`then=submit`) the submission's confirmation follows. What was typed
    is never lost: bad amounts save nothing and show the page again with what was typed; a file
    refused is named, and the valid files sent with it are attached."""
    form = ClaimLinesForm(request.POST, _rows(claim), final=claim.is_final)
    receipts_form = ReceiptsForm(request.POST)  # the files are checked one by one below
    if switching_language(request):  # the amounts and the number shown back; the files named
        number = ReceiptsForm(initial={"invoice_number": request.POST.get("invoice_number", "")})
        return _render(
            request,
            claim,
            form=shown_back(form),
            receipts_form=number,
            files=files_not_kept(request),
        )
    receipts_form.is_valid()
    uploads = request.FILES.getlist("file")
    invoice = _invoice_refused(receipts_form, uploads)
    if not form.is_valid() or invoice:
        form.is_valid()  # the amounts' errors shown too
        if uploads:
            receipts_form.add_error(
                "file",
                _("No file was attached: correct what is shown, then choose the files again."),
            )
        return _render(request, claim, form=form, receipts_form=receipts_form, status=422)
    body = form.as_body()
    if _changes(claim, body):
        try:
            claim = claim_actions.update_claim(user, claim, body)
        except ServiceError as error:
            return _refused(request, claim, error, form=form, receipts_form=receipts_form)
    attached, problems = _attach(user, claim, uploads, receipts_form.cleaned_data["invoice_number"])
    if problems:
        for message in problems:
            receipts_form.add_error("file", message)
        receipts_form.add_error("file", _kept_sentence(attached))
        fresh = ClaimLinesForm(None, _rows(claim), final=claim.is_final)
        return _render(request, claim, form=fresh, receipts_form=receipts_form, status=422)
    set_notice(request, "saved", claim=claim.pk, count=len(attached))
    if request.POST.get("then") == "submit":
        return redirect("web:employer-claim-submit", claim_id=claim.pk)
    return redirect("web:employer-claim", claim_id=claim.pk)


def _changes(claim: Claim, body: dict[str, Any]) -> bool:
    """Whether the body differs from what the claim holds (an unchanged claim is not edited:
    its audit trail records only real changes)."""
    saved = {
        (line.participant_id, line.category): line.claimed_cents
        for line in claim.lines.all()
        if line.claimed_cents
    }
    sent = {
        (line["participant"], line["category"]): parse_amount(line["amount"])
        for line in body["lines"]
    }
    return (
        saved != sent or bool(body["is_final"]) != claim.is_final or claim.state != ClaimState.DRAFT
    )


def _invoice_refused(receipts_form: ReceiptsForm, uploads: list[Any]) -> bool:
    """Whether the invoice number is refused (nothing is saved then): not one, or given
    without a file to keep it with."""
    if receipts_form.has_error("invoice_number"):
        return True
    if str(receipts_form.cleaned_data.get("invoice_number") or "").strip() and not uploads:
        receipts_form.add_error(
            "invoice_number",
            _("Choose the invoice or receipt file this number is on: it is kept with the files."),
        )
        return True
    return False


def _attach(
    user: User, claim: Claim, uploads: list[Any], invoice: str = ""
) -> tuple[list[str], list[str]]:
    """Each file checked on its own: the valid ones attached, each other one named with why
    (a refusal of the whole attachment, too many files say, attaches none)."""
    valid, problems = [], []
    for upload in uploads:
        try:
            valid.append(checked(upload, "file"))
        except ServiceError as error:
            why = "; ".join(localized(found) for found in error.problems)
            problems.append(_("%(name)s: %(why)s") % {"name": shown_name(upload.name), "why": why})
    if valid:
        try:
            claim_actions.add_receipts(user, claim, valid, invoice)
        except ServiceError as error:
            not_found_is_404(error)
            return [], [*problems, refusals.message(error)]
    return [found.name for found in valid], problems


def _kept_sentence(attached: list[str]) -> str:
    if not attached:
        return _("None of the files sent was attached: choose the valid ones again.")
    return _("The other files were attached: %(names)s.") % {"names": ", ".join(attached)}


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
        burden.step_submitted(BurdenStep.CLAIM, application=claim.application, subject=claim.pk)
        set_notice(request, "submitted", claim=claim.pk)
        return redirect("web:employer-claim", claim_id=claim.pk)
    context = {
        "title": _("Submit claim %(number)s?") % {"number": claim.number},
        "claim": claim,
        "application": claim.application,
        **display.decorated(describe(claim)),
    }
    return render(request, "web/claims/employer_submit.html", context)


@require_http_methods(["GET", "POST"])
@employer_required
def claim_discard(request: HttpRequest, user: User, claim_id: int) -> HttpResponse:
    """Discard a draft: the page that asks to confirm (GET), then the discarding (POST)."""
    claim = _claim(user, claim_id)
    refusal, status = None, 200
    if request.method == "POST":
        application_id, number = claim.application_id, claim.number
        try:
            claim_actions.discard_claim(user, claim)
        except ServiceError as error:
            not_found_is_404(error)
            refusal, status = refusals.shown(error), error.status
        else:
            set_notice(request, "discarded", application=application_id, number=number)
            return redirect("web:employer-claims", application_id=application_id)
    context = {
        "title": _("Discard claim %(number)s?") % {"number": claim.number},
        "claim": claim,
        "application": claim.application,
        "refusal": refusal,
        "receipt_count": claim.receipts.count(),
        **display.decorated(describe(claim)),
    }
    return render(request, "web/claims/employer_discard.html", context, status=status)


@require_GET
@employer_required
def receipt_download(
    request: HttpRequest, user: User, claim_id: int, receipt_id: int
) -> HttpResponse:
    receipt = visible_or_404(claim_access.get_visible_receipt, user, claim_id, receipt_id)
    # A file streamed as it is read: not an HttpResponse, but answered the same way.
    return cast(HttpResponse, receipt_response(receipt))
