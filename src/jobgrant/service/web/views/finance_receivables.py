"""The finance officer's receivables: the list, one receivable, a repayment, a write-off asked
for and approved by a second person."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.payments import (
    ReceivableCause,
    ReceivableState,
    RecoveryKind,
)
from jobgrant.service.grants.payments import access as payment_access
from jobgrant.service.grants.payments import recovery as recovery_actions
from jobgrant.service.refusals import message
from jobgrant.service.web.forms.payments import (
    RepaymentForm,
    WriteOffForm,
)
from jobgrant.service.web.labels import FUNDER_LABELS, label
from jobgrant.service.web.pages import (
    error_context,
    finance_required,
    set_notice,
    shown_as,
    shown_back,
    switching_language,
    visible_or_404,
)
from jobgrant.service.web.views.finance_payments import (
    SHOWN,
    notice_for,
    problems_in,
    refusal_links,
)

# --- Receivables -------------------------------------------------------------------------------


def _receivable_row(receivable: Any) -> dict[str, Any]:
    return {
        "receivable": receivable,
        "state_label": ReceivableState(receivable.state).label,
        "cause_label": ReceivableCause(receivable.cause).label,
        "funder_label": label(FUNDER_LABELS, receivable.funder),
    }


@finance_required
@require_GET
def receivables_page(request: HttpRequest, user: User) -> HttpResponse:
    found = payment_access.visible_receivables(user).order_by("-id")[:SHOWN]
    context = {"title": _("Receivables"), "rows": [_receivable_row(r) for r in found]}
    return render(request, "web/finance/receivables.html", context)


def _receivable_context(user: User, receivable: Any) -> dict[str, Any]:
    asked = receivable.write_off_requested_by
    return {
        "title": _("Receivable %(number)s") % {"number": receivable.pk},
        **_receivable_row(receivable),
        "recoveries": [
            {"recovery": r, "kind_label": RecoveryKind(r.kind).label}
            for r in receivable.recoveries.all()
        ],
        "open": receivable.state in (ReceivableState.OPEN, ReceivableState.PARTIALLY_RECOVERED),
        "write_off_asked_by": asked.username if asked else "",
        "you_asked": asked is not None and asked.pk == user.pk,
    }


def _show_receivable(
    request: HttpRequest,
    user: User,
    receivable: Any,
    *,
    repayment: RepaymentForm | None = None,
    write_off: WriteOffForm | None = None,
    errors: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    context = _receivable_context(user, receivable)
    context.update(
        repayment_form=repayment or RepaymentForm(initial={"received_on": timezone.localdate()}),
        write_off_form=write_off or WriteOffForm(),
        notice=notice_for(request),
        **(errors or {}),
    )
    return render(request, "web/finance/receivable.html", context, status=status)


@finance_required
@require_GET
def receivable_page(request: HttpRequest, user: User, receivable_id: int) -> HttpResponse:
    receivable = visible_or_404(payment_access.get_visible_receivable, user, receivable_id)
    return _show_receivable(request, user, receivable)


@finance_required
@require_POST
def receivable_repay(request: HttpRequest, user: User, receivable_id: int) -> HttpResponse:
    receivable = visible_or_404(payment_access.get_visible_receivable, user, receivable_id)
    shown_as(request, reverse("web:finance-receivable", args=[receivable.pk]))
    form = RepaymentForm(request.POST)
    refusal: list[tuple[str, str]] = []
    if switching_language(request):  # what was typed, shown back in this language
        return _show_receivable(request, user, receivable, repayment=shown_back(form))
    if form.is_valid():
        try:
            recovery_actions.record_repayment(user, receivable, form.cleaned_data)
        except ServiceError as error:
            refusal = [("#id_amount", message(error) + " " + problems_in(error))]
        else:
            set_notice(request, "repaid")
            return redirect("web:finance-receivable", receivable_id=receivable.pk)
    errors = error_context(form, first=refusal)
    return _show_receivable(request, user, receivable, repayment=form, errors=errors, status=422)


@finance_required
@require_POST
def receivable_write_off(request: HttpRequest, user: User, receivable_id: int) -> HttpResponse:
    """The first finance officer asks (a reason is required); a second approves."""
    receivable = visible_or_404(payment_access.get_visible_receivable, user, receivable_id)
    asking = receivable.write_off_requested_by_id is None
    shown_as(request, reverse("web:finance-receivable", args=[receivable.pk]))
    form = WriteOffForm(request.POST)
    refusal: list[tuple[str, str]] = []
    if switching_language(request):  # what was typed, shown back in this language
        return _show_receivable(request, user, receivable, write_off=shown_back(form))
    if not asking or form.is_valid():
        fields = form.cleaned_data if asking else {}
        try:
            done = recovery_actions.write_off_receivable(user, receivable, fields)
        except ServiceError as error:
            refusal = [("#write-off-button", message(error))]
        else:
            written = done.state == ReceivableState.WRITTEN_OFF
            set_notice(request, "written-off" if written else "write-off-asked")
            return redirect("web:finance-receivable", receivable_id=receivable.pk)
    errors = error_context(form, first=refusal) if asking else refusal_links(refusal)
    status = 403 if refusal and not asking else 422
    return _show_receivable(request, user, receivable, write_off=form, errors=errors, status=status)
