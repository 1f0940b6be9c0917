"""Consortium partners' consent: the requests an organization's administrator may answer, and
the answer (accept or decline). Until every partner accepted, an application stays a draft."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from ninja import Path, Router

from jobgrant.service.accounts.models import User
from jobgrant.service.api.bodies import json_object
from jobgrant.service.api.idempotency import idempotent
from jobgrant.service.api.openapi import problems, read_by_hand
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import MAX_DATABASE_ID, NoBody, PartnerRequestOut
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.grants.applications import partners as partner_actions
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.partners import PartnerConsent

router = Router(tags=["partners"], auth=bearer)
ConsentId = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]


def request_json(consent: PartnerConsent) -> dict[str, Any]:
    application = consent.link.application
    lead = application.employers.order_by("position").select_related("employer").first()
    return {
        "id": consent.pk,
        "application_id": application.pk,
        "application_state": application.state,
        "partner_business_number": consent.link.employer.business_number,
        "lead_name": lead.employer.name if lead else "",
        "state": consent.state,
        "decided_at": consent.decided_at.isoformat() if consent.decided_at else None,
    }


@router.get("/partner-requests", response={200: list[PartnerRequestOut], **problems(401)})
def list_partner_requests(request: HttpRequest) -> HttpResponse:
    """The requests to be named as a consortium partner, for the organizations the caller
    administers (newest first), answered or not."""
    found = access.visible_partner_requests(caller(request))[:200]
    return json_response([request_json(consent) for consent in found])


Answer = Callable[[User, PartnerConsent], PartnerConsent]
ANSWERED = {200: PartnerRequestOut, **problems(400, 401, 404, 409, 422)}


@router.post(
    "/partner-requests/{consent_id}/accept",
    response=ANSWERED,
    openapi_extra=read_by_hand(NoBody, required=False),
)
def accept_partner_request(request: HttpRequest, consent_id: ConsentId) -> HttpResponse:
    """Accept being named as a consortium partner (an administrator of the partner; 404 for
    anyone else, 409 once answered or once the application left draft)."""
    return _answer(request, consent_id, partner_actions.accept_partner_request)


@router.post(
    "/partner-requests/{consent_id}/decline",
    response=ANSWERED,
    openapi_extra=read_by_hand(NoBody, required=False),
)
def decline_partner_request(request: HttpRequest, consent_id: ConsentId) -> HttpResponse:
    """Decline being named as a consortium partner (an administrator of the partner; 404 for
    anyone else, 409 once answered or once the application left draft)."""
    return _answer(request, consent_id, partner_actions.decline_partner_request)


def _answer(request: HttpRequest, consent_id: int, decide: Answer) -> HttpResponse:
    """Answer the request once per Idempotency-Key; the answer is the request."""
    user = caller(request)

    def work() -> HttpResponse:
        json_object(request)  # no field is read, but a body, if sent, is a JSON object
        consent = access.get_visible_partner_request(user, consent_id)
        return json_response(request_json(decide(user, consent)))

    return idempotent(request, user, work)
