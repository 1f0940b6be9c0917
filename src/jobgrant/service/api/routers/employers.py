"""GET /employers: the registered employers the caller acts for."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from ninja import Router

from jobgrant.service.api.openapi import problems
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import EmployerOut
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.grants.core import access

router = Router(tags=["registry"], auth=bearer)


@router.get("", response={200: list[EmployerOut], **problems(401)})
def list_employers(request: HttpRequest) -> HttpResponse:
    """The registered employers the caller may act for."""
    employers = access.employers_acted_for(caller(request))
    return json_response(
        [
            {
                "id": e.pk,
                "business_number": e.business_number,
                "name": e.name,
                "jurisdiction": e.jurisdiction,
                "employees": e.employees,
            }
            for e in employers
        ]
    )
