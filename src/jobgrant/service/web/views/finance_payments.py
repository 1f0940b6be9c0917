"""The finance officer's payments: build a batch, hold a payment, authorize it (after
confirmation), export it, import the paying system's file and read what matched. The receivables
are in finance_receivables.py."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from jobgrant.rules.codes import fiscal_year
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.payments import (
    BatchState,
    ConfirmationImport,
    LineOutcome,
    PaymentBatch,
    RequestState,
)
from jobgrant.service.grants.payments import access as payment_access
from jobgrant.service.grants.payments import batches as payment_batches
from jobgrant.service.grants.payments import confirmation as payment_confirmation
from jobgrant.service.grants.payments import export as payment_export
from jobgrant.service.grants.payments import holds as payment_holds
from jobgrant.service.grants.payments.paid import expected_cents
from jobgrant.service.language import in_language, localized
from jobgrant.service.refusals import message
from jobgrant.service.web.forms.payments import (
    BuildForm,
    ConfirmationForm,
    HoldForm,
)
from jobgrant.service.web.labels import FUNDER_LABELS, label
from jobgrant.service.web.pages import (
    error_context,
    files_not_kept,
    finance_required,
    set_notice,
    shown_as,
    shown_back,
    switching_language,
    take_notice,
    typed_back,
)

SHOWN = 100


def notices() -> dict[str, str]:
    return {
        "built": _("The batch is built. Another finance officer must now authorize it."),
        "held": _("The payment is held: no batch will take its claim until the hold is lifted."),
        "lifted": _("The hold is lifted: the next batch will pay the claim."),
        "authorized": _("The batch is authorized. Export it for the paying system."),
        "repaid": _("The repayment is recorded."),
        "write-off-asked": _(
            "The write-off is asked for. A second finance officer must approve it."
        ),
        "written-off": _("The amount is written off."),
    }


def notice_for(request: HttpRequest) -> str:
    found = take_notice(request)
    return notices().get(str(found.get("kind")), "") if found else ""


def refusal_links(links: list[tuple[str, str]]) -> dict[str, Any]:
    """The error summary's links for a refusal that is not a form's."""
    return {"error_links": links, "error_links_json": json.dumps(dict(links), ensure_ascii=False)}


def _labelled(batch: PaymentBatch) -> dict[str, Any]:
    return {"batch": batch, "state_label": BatchState(batch.state).label}


# --- Batches -----------------------------------------------------------------------------------


@finance_required
@require_http_methods(["GET", "POST"])
def payments_page(request: HttpRequest, user: User) -> HttpResponse:
    """The batches, newest first, and the form that builds one."""
    initial = {"fiscal_year": fiscal_year(timezone.localdate())}
    form = BuildForm(request.POST if request.method == "POST" else None, initial=initial)
    refusal: list[tuple[str, str]] = []
    if switching_language(request):  # what was typed, shown back in this language
        form = typed_back(BuildForm, request)
    elif request.method == "POST" and form.is_valid():
        try:
            batch = payment_batches.build_batch(user, form.cleaned_data)
        except ServiceError as error:
            refusal = _refusal_of_fields(form, error)
        else:
            set_notice(request, "built")
            return redirect("web:finance-batch", batch_id=batch.pk)
    errors = error_context(form, first=refusal) if form.is_bound else error_context()
    context = {
        "title": _("Payments"),
        "form": form,
        "batches": [_labelled(b) for b in payment_access.visible_batches(user)[:SHOWN]],
        "notice": notice_for(request),
        **errors,
    }
    status = 422 if errors["error_links"] else 200
    return render(request, "web/finance/payments.html", context, status=status)


def _refusal_of_fields(form: BuildForm, error: ServiceError) -> list[tuple[str, str]]:
    """A refusal of the form's fields said beside each field it names; any other refusal is
    linked to the jurisdiction, the first field."""
    named = [p for p in error.problems if p.get("field") in form.fields]
    for found in named:
        form.add_error(found["field"], in_language(en=found["message_en"], fr=found["message_fr"]))
    return [] if named else [("#id_jurisdiction", message(error))]


def _batch_context(request: HttpRequest, user: User, batch: PaymentBatch) -> dict[str, Any]:
    requests = list(batch.requests.select_related("payee", "claim", "application").order_by("id"))
    waiting = [r for r in requests if r.state == RequestState.BATCHED]
    return {
        "title": _("Payment batch %(number)s") % {"number": batch.pk},
        **_labelled(batch),
        "rows": [
            {
                "request": r,
                "funder_label": label(FUNDER_LABELS, r.funder),
                "state_label": RequestState(r.state).label,
            }
            for r in requests
        ],
        "may_hold": batch.state == BatchState.BUILT and bool(waiting),
        "may_authorize": batch.state == BatchState.BUILT and batch.built_by_id != user.pk,
        "built_by_you": batch.built_by_id == user.pk,
        "imports": list(batch.imports.order_by("-id")[:SHOWN]),
        "hold_choices": [(str(r.pk), r.document_number) for r in waiting],
        "notice": notice_for(request),
    }


@finance_required
@require_GET
def batch_page(request: HttpRequest, user: User, batch_id: int) -> HttpResponse:
    batch = payment_access.get_visible_batch(user, batch_id)
    context = _batch_context(request, user, batch)
    context.update(
        hold_form=HoldForm(choices=context["hold_choices"]), confirmation_form=ConfirmationForm()
    )
    return render(request, "web/finance/batch.html", context)


@finance_required
@require_POST
def batch_hold(request: HttpRequest, user: User, batch_id: int) -> HttpResponse:
    batch = payment_access.get_visible_batch(user, batch_id)
    shown_as(request, reverse("web:finance-batch", args=[batch.pk]))  # the toggle after an error
    context = _batch_context(request, user, batch)
    form = HoldForm(request.POST, choices=context["hold_choices"])
    refusal: list[tuple[str, str]] = []
    if switching_language(request):  # what was typed, shown back in this language
        context.update(hold_form=shown_back(form), confirmation_form=ConfirmationForm())
        return render(request, "web/finance/batch.html", context)
    if form.is_valid():
        try:
            payment_holds.hold_payment(
                user, int(form.cleaned_data["payment"]), form.cleaned_data["reason"]
            )
        except ServiceError as error:
            refusal = [("#id_payment", message(error))]
        else:
            set_notice(request, "held")
            return redirect("web:finance-batch", batch_id=batch.pk)
    context.update(
        hold_form=form, confirmation_form=ConfirmationForm(), **error_context(form, first=refusal)
    )
    return render(request, "web/finance/batch.html", context, status=422)


@finance_required
@require_POST
def payment_lift(request: HttpRequest, user: User, batch_id: int, payment_id: int) -> HttpResponse:
    batch = payment_access.get_visible_batch(user, batch_id)
    try:
        payment_holds.lift_hold(user, payment_id)
    except ServiceError:
        return redirect("web:finance-batch", batch_id=batch.pk)
    set_notice(request, "lifted")
    return redirect("web:finance-batch", batch_id=batch.pk)


@finance_required
@require_http_methods(["GET", "POST"])
def batch_authorize(request: HttpRequest, user: User, batch_id: int) -> HttpResponse:
    """The confirmation before authorizing (s.33), then the authorization itself; a refusal
    (the builder, a certifier) is explained on the same page."""
    batch = payment_access.get_visible_batch(user, batch_id)
    refusal = ""
    if request.method == "POST":
        try:
            payment_batches.authorize_batch(user, batch)
        except ServiceError as error:
            refusal = message(error)
        else:
            set_notice(request, "authorized")
            return redirect("web:finance-batch", batch_id=batch.pk)
    context = {
        "title": _("Authorize payment batch %(number)s") % {"number": batch.pk},
        **_labelled(batch),
        "refusal": refusal,
        **refusal_links([("#authorize-button", refusal)] if refusal else []),
    }
    return render(request, "web/finance/authorize.html", context, status=403 if refusal else 200)


@finance_required
@require_GET
def batch_export(request: HttpRequest, user: User, batch_id: int) -> HttpResponse:
    batch = payment_access.get_visible_batch(user, batch_id)
    try:
        content = payment_export.export_batch(user, batch)
    except ServiceError:
        return redirect("web:finance-batch", batch_id=batch.pk)
    response = HttpResponse(content, content_type="text/csv; charset=utf-8")
    name = f"payments-{batch.jurisdiction}-{batch.fiscal_year}-batch-{batch.pk}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@finance_required
@require_POST
def batch_confirm(request: HttpRequest, user: User, batch_id: int) -> HttpResponse:
    """Import the paying system's file; the page of what it did (or the batch's page with the
    refusal)."""
    batch = payment_access.get_visible_batch(user, batch_id)
    shown_as(request, reverse("web:finance-batch", args=[batch.pk]))  # the toggle after an error
    form = ConfirmationForm(request.POST, request.FILES)
    refusal: list[tuple[str, str]] = []
    if switching_language(request):  # a file cannot be shown back: the page names it
        context = _batch_context(request, user, batch)
        context.update(
            hold_form=HoldForm(choices=context["hold_choices"]),
            confirmation_form=ConfirmationForm(),
            files_not_kept=files_not_kept(request),
        )
        return render(request, "web/finance/batch.html", context)
    if form.is_valid():
        uploaded = form.cleaned_data["file"]
        try:
            imported = payment_confirmation.import_confirmations(
                user, batch, uploaded.read(), uploaded.name or ""
            )
        except ServiceError as error:
            refusal = [("#id_file", _file_problems(error) or message(error))]
        else:
            return redirect(
                "web:finance-confirmation", batch_id=batch.pk, import_id=imported.confirmation.pk
            )
    context = _batch_context(request, user, batch)
    context.update(
        hold_form=HoldForm(choices=context["hold_choices"]),
        confirmation_form=form,
        **error_context(form, first=refusal),
    )
    return render(request, "web/finance/batch.html", context, status=422)


def _file_problems(error: ServiceError) -> str:
    """Each problem of the confirmation file as a sentence ("is empty", "must start with…")."""
    sentence = _("The confirmation file %(problem)s.")
    return " ".join(sentence % {"problem": localized(p)} for p in error.problems)


def problems_in(error: ServiceError) -> str:
    return " ".join(in_language(en=p["message_en"], fr=p["message_fr"]) for p in error.problems)


@finance_required
@require_GET
def confirmation_page(
    request: HttpRequest, user: User, batch_id: int, import_id: int
) -> HttpResponse:
    batch = payment_access.get_visible_batch(user, batch_id)
    confirmation = ConfirmationImport.objects.filter(pk=import_id, batch=batch).first()
    if confirmation is None:
        return render(request, "404.html", {"title": _("Page not found")}, status=404)
    lines = (
        confirmation.lines.exclude(outcome=LineOutcome.RECONCILED)
        .select_related("request")
        .order_by("line_number")
    )
    context = {
        "title": _("Confirmation file %(number)s") % {"number": confirmation.pk},
        **_labelled(batch),
        "confirmation": confirmation,
        "unmatched": [
            {
                "line": line,
                "outcome_label": LineOutcome(line.outcome).label,
                "expected_cents": expected_cents(line),
            }
            for line in lines
        ],
    }
    return render(request, "web/finance/confirmation.html", context)
