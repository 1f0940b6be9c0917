"""GET /burden: the burden on employers, for the readers of the KPIs (ADR 0046)."""

from __future__ import annotations

from typing import Annotated

from django.http import HttpRequest, HttpResponse
from ninja import Query, Router

from jobgrant.service.api.kpi_schemas import KpiReportOut
from jobgrant.service.api.openapi import problems
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.routers.kpis import JURISDICTION_OR_CANADA, plain
from jobgrant.service.api.schemas import FISCAL_YEAR
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.outcomes.access import read_burden

router = Router(tags=["outcomes"], auth=bearer)


@router.get("", response={200: KpiReportOut, **problems(401, 403, 422)})
def burden(
    request: HttpRequest,
    fiscal_year: Annotated[str, Query(pattern=FISCAL_YEAR, examples=["2026-27"])],
    jurisdiction: Annotated[
        str | None, Query(pattern=JURISDICTION_OR_CANADA, examples=["ON"])
    ] = None,
) -> HttpResponse:
    """The burden on employers: for each step (the application's four, the whole application,
    a trainee's participant form, a change request, a claim, the completion report), by the
    lead employer's firm size, the steps timed, the median minutes from the step's first page
    view to its submission, and the share sent back (a claim returned, a change request denied
    because information was missing); then the fields whose errors the forms showed most often
    (`field-errors`, keyed form/field/code). Timed on the server from the pages' own requests:
    nothing typed and no keystroke is kept. Suppressed as the KPIs are (a cell of fewer than 10
    steps), for every role but auditors. An unknown fiscal year or jurisdiction answers 422."""
    report = read_burden(caller(request), jurisdiction or None, fiscal_year)
    return json_response(plain(report))
