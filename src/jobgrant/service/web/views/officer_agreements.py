"""The officer's agreements: the queue by state with the offers expiring soon, and withdrawing an
offer (with a reason, after confirmation)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import F
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.agreements import actions as agreement_actions
from jobgrant.service.grants.agreements.access import visible_agreements
from jobgrant.service.grants.models.agreements import AgreementState, AgreementVersion
from jobgrant.service.refusals import message
from jobgrant.service.web.forms.agreement import ReasonForm
from jobgrant.service.web.pages import (
    error_context,
    officer_required,
    set_notice,
    switching_language,
    typed_back,
)
from jobgrant.service.web.views.employer_agreement import (
    page_context,
    pdf_response,
    show_agreement,
    visible,
)

EXPIRING_WITHIN = dt.timedelta(days=2)
SHOWN = 200  # rows per state on the queue page, newest first


def _rows(user: User, state: str) -> list[dict[str, Any]]:
    found = (
        AgreementVersion.objects.filter(
            agreement__in=visible_agreements(user).filter(state=state),
            number=F("agreement__version"),
        )
        .select_related("agreement")
        .order_by("accept_by")[:SHOWN]
    )
    return [
        {
            "application": version.agreement.application_id,
            "version": version.number,
            "accept_by": timezone.localtime(version.accept_by),
            "government_cents": version.federal_cents + version.provincial_cents,
        }
        for version in found
    ]


@officer_required
@require_GET
def officer_agreement(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    return show_agreement(request, user, application_id)


@officer_required
@require_GET
def officer_agreement_pdf(
    request: HttpRequest, user: User, application_id: int, lang: str
) -> HttpResponse:
    return pdf_response(user, application_id, lang)


@officer_required
@require_GET
def agreements_queue(request: HttpRequest, user: User) -> HttpResponse:
    """Offers expiring within two days first, then every agreement by state."""
    chosen = request.GET.get("state") or AgreementState.ISSUED
    if chosen not in AgreementState.values:
        chosen = AgreementState.ISSUED
    now = timezone.now()
    offered = _rows(user, AgreementState.ISSUED)
    expiring = [row for row in offered if now <= row["accept_by"] <= now + EXPIRING_WITHIN]
    context = {
        "title": _("Agreements"),
        "expiring": expiring,
        "rows": offered if chosen == AgreementState.ISSUED else _rows(user, chosen),
        "chosen": chosen,
        "chosen_label": AgreementState(chosen).label,
        "states": AgreementState.choices,
    }
    return render(request, "web/agreement/queue.html", context)


@officer_required
@require_http_methods(["GET", "POST"])
def offer_withdraw(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    agreement = visible(user, application_id)
    context = page_context(user, agreement)
    if not context["may_withdraw"]:
        set_notice(request, "not-open")
        return redirect("web:officer-agreement", application_id=application_id)
    form = ReasonForm(request.POST if request.method == "POST" else None)
    refusal: list[tuple[str, str]] = []
    if switching_language(request):  # what was typed, shown back in this language
        form = typed_back(ReasonForm, request)
    elif form.is_valid():
        try:
            agreement_actions.withdraw_offer(user, agreement, form.cleaned_data["reason"])
        except ServiceError as error:
            refusal = [("#id_reason", message(error))]
        else:
            set_notice(request, "withdrawn-offer")
            return redirect("web:officer-agreement", application_id=application_id)
    errors = error_context(form, first=refusal) if form.is_bound else error_context()
    status = 422 if errors["error_links"] else 200
    context["title"] = _("Withdraw the offer for application %(number)s") % {
        "number": application_id
    }
    return render(
        request, "web/agreement/withdraw.html", {**context, "form": form, **errors}, status=status
    )
