"""A consortium partner's requests: an application names the organization, one of its
administrators sees its own share and accepts, or declines after confirmation."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import partner_view
from jobgrant.service.grants.applications import partners as partner_actions
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.partners import ConsentState, PartnerConsent
from jobgrant.service.web import labels
from jobgrant.service.web.forms import employer as shared
from jobgrant.service.web.pages import (
    employer_required,
    error_context,
    set_notice,
    take_notice,
    visible_or_404,
)


def _consent(user: User, consent_id: int) -> PartnerConsent:
    return visible_or_404(access.get_visible_partner_request, user, consent_id)


def _states() -> dict[str, str]:
    return {str(k): str(v) for k, v in ConsentState.choices}


def notice_text(notice: dict[str, Any] | None) -> str:
    kind = (notice or {}).get("kind")
    return {
        "accepted": _("You accepted: your organization is named in this application."),
        "declined": _("You declined: the applicant was told, and cannot submit this application."),
    }.get(str(kind), "")


@employer_required
def partner_requests(request: HttpRequest, user: User) -> HttpResponse:
    states = _states()
    rows = [
        {"consent": c, "state": states.get(c.state, c.state), "lead": _lead(c)}
        for c in access.visible_partner_requests(user)[:200]
    ]
    return render(
        request,
        "web/partners/list.html",
        {"title": _("Requests to be named as a partner"), "rows": rows},
    )


def _lead(consent: PartnerConsent) -> Any:
    first = (
        consent.link.application.employers.order_by("position").select_related("employer").first()
    )
    return first.employer if first else None


@employer_required
@require_http_methods(["GET", "POST"])
def partner_request(request: HttpRequest, user: User, consent_id: int) -> HttpResponse:
    """The request, the partner's own share, and the Accept button (the page is the
    confirmation: it says what accepting means)."""
    consent = _consent(user, consent_id)
    refusal: list[tuple[str, str]] = []
    if request.method == "POST":
        try:
            partner_actions.accept_partner_request(user, consent)
        except ServiceError as error:
            refusal = [("#accept-form", labels.service_message(error))]
        else:
            set_notice(request, "accepted")
            return redirect("web:partner-request", consent_id=consent.pk)
    context = _context(user, consent)
    context["notice"] = notice_text(take_notice(request))
    errors = error_context(first=refusal)
    status = 409 if refusal else 200
    return render(request, "web/partners/request.html", {**context, **errors}, status=status)


@employer_required
@require_http_methods(["GET", "POST"])
def partner_request_decline(request: HttpRequest, user: User, consent_id: int) -> HttpResponse:
    """Decline, after confirmation: the GET page asks, the POST does it (it cannot be undone)."""
    consent = _consent(user, consent_id)
    refusal: list[tuple[str, str]] = []
    if request.method == "POST":
        try:
            partner_actions.decline_partner_request(user, consent)
        except ServiceError as error:
            refusal = [("#decline-form", labels.service_message(error))]
        else:
            set_notice(request, "declined")
            return redirect("web:partner-request", consent_id=consent.pk)
    context = _context(user, consent)
    context["title"] = _("Decline being named in application %(number)s?") % {
        "number": consent.link.application_id
    }
    errors = error_context(first=refusal)
    return render(
        request, "web/partners/decline.html", {**context, **errors}, status=409 if refusal else 200
    )


def _context(user: User, consent: PartnerConsent) -> dict[str, Any]:
    application = consent.link.application
    own = partner_view.own_share(user, application)
    quote = application.quote if own is None else partner_view.partner_quote(application.quote, own)
    request_body = application.request if isinstance(application.request, dict) else {}
    training = request_body.get("training") or {}
    return {
        "title": _("Named as a partner in application %(number)s") % {"number": application.pk},
        "consent": consent,
        "state": _states().get(consent.state, consent.state),
        "pending": consent.state == ConsentState.PENDING and application.state == "draft",
        "application": application,
        "application_state": labels.state_labels().get(application.state, application.state),
        "lead": _lead(consent),
        "partner": consent.link.employer,
        "training": training,
        "totals": quote.get("totals") or {},
        "trainees": len(quote.get("trainees") or []),
        "shared": shared,
    }
