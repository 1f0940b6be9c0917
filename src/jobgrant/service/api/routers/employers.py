"""The registered employers: those the caller acts for, one organization with its verification,
and the officers' decisions on it (verify, refuse; people/organization_verification.py)."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from ninja import Path, Router

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.api.bodies import json_object
from jobgrant.service.api.idempotency import idempotent
from jobgrant.service.api.openapi import problems, read_by_hand
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import (
    MAX_DATABASE_ID,
    EmployerDetail,
    EmployerOut,
    RefuseBody,
    VerifyBody,
)
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.grants.core import access
from jobgrant.service.people import access as people_access
from jobgrant.service.people import organization_verification as verification
from jobgrant.service.registry.models import Employer

router = Router(tags=["registry"], auth=bearer)
EmployerId = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]


def employer_json(employer: Employer) -> dict[str, Any]:
    return {
        "id": employer.pk,
        "business_number": employer.business_number,
        "name": employer.name,
        "jurisdiction": employer.jurisdiction,
        "employees": employer.employees,
        "verification": employer.verification,
    }


def employer_detail(employer: Employer) -> dict[str, Any]:
    verified = verification.last_verification(employer)
    return {
        **employer_json(employer),
        "phone": employer.phone,
        "verified_at": verified.decided_at.isoformat() if verified else None,
        "verified_against": (verified.method or None) if verified else None,
        "documents": [
            {
                "id": proof.pk,
                "name": proof.original_name,
                "content_type": proof.content_type,
                "size": proof.size,
                "uploaded_at": proof.uploaded_at.isoformat(),
                "reviewed": proof.reviewed,
            }
            for proof in verification.proofs_of(employer)
        ],
    }


@router.get("", response={200: list[EmployerOut], **problems(401)})
def list_employers(request: HttpRequest) -> HttpResponse:
    """The registered employers the caller may act for, with their verification."""
    employers = access.employers_acted_for(caller(request))
    return json_response([employer_json(e) for e in employers])


def _organization(user: User, employer_id: int) -> Employer:
    """An organization the caller acts for, or one whose verification they review."""
    if user.role == Role.EMPLOYER:
        return people_access.get_visible_organization(user, employer_id)
    return people_access.get_visible_organization_to_review(user, employer_id)


@router.get("/{employer_id}", response={200: EmployerDetail, **problems(401, 404, 422)})
def get_employer(request: HttpRequest, employer_id: EmployerId) -> HttpResponse:
    """One organization and its verification: for its people, and for the officers of its
    jurisdiction, auditors, finance and the administrator (404 for anyone else)."""
    return json_response(employer_detail(_organization(caller(request), employer_id)))


DECIDED = {200: EmployerDetail, **problems(400, 401, 403, 404, 409, 422)}


@router.post("/{employer_id}/verify", response=DECIDED, openapi_extra=read_by_hand(VerifyBody))
def verify_employer(request: HttpRequest, employer_id: EmployerId) -> HttpResponse:
    """Verify the organization (a program officer of its jurisdiction with no tie to it):
    against one of its documents, or by a registry check the note attests. 409 unless it is
    unverified or refused (a dispute is resolved on the officer's page)."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        employer = _organization(user, employer_id)
        return json_response(
            employer_detail(verification.verify_organization(user, employer, body))
        )

    return idempotent(request, user, work)


@router.post("/{employer_id}/refuse", response=DECIDED, openapi_extra=read_by_hand(RefuseBody))
def refuse_employer(request: HttpRequest, employer_id: EmployerId) -> HttpResponse:
    """Refuse the organization's verification, with a reason sent to its administrators (a
    program officer of its jurisdiction with no tie to it; 409 unless it is unverified)."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        employer = _organization(user, employer_id)
        decided = verification.refuse_organization(user, employer, body.get("reason"))
        return json_response(employer_detail(decided))

    return idempotent(request, user, work)
