"""POST /quote: what an application with this body would get, computed and not saved."""

from __future__ import annotations

from typing import Annotated

from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from ninja import Query, Router

from jobgrant.service.api.bodies import json_body
from jobgrant.service.api.openapi import problems, read_by_hand
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import ApplicationBody, QuoteOut
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.grants.applications.declarations import declaration_of
from jobgrant.service.grants.core.evaluation_answers import check_evaluation_answers
from jobgrant.service.grants.core.quoting import quote_application

router = Router(tags=["quote"], auth=bearer)


@router.post(
    "",
    response={200: QuoteOut, **problems(400, 401, 403, 422)},
    openapi_extra=read_by_hand(ApplicationBody),
)
def quote(request: HttpRequest, explain: Annotated[bool, Query()] = False) -> HttpResponse:
    """Quote an application body as applying would, today, and save nothing (no
    Idempotency-Key needed). `explain=true` adds how each figure was computed. Its
    `declarations`, if any, are checked as when applying (422 naming each field at fault)
    but change no figure."""
    body = json_body(request)
    if isinstance(body, dict):
        check_evaluation_answers(body)  # a bad answer is refused here as when applying
        body, _ = declaration_of(body)
    quoted = quote_application(caller(request), body, timezone.localdate(), explain=explain)
    return json_response(quoted.result)
