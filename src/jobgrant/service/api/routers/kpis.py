"""GET /kpis: the grant's KPIs for a jurisdiction (or Canada) and fiscal year."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from ninja import Query, Router

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.service.api.kpi_schemas import KpiReportOut
from jobgrant.service.api.openapi import problems
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import FISCAL_YEAR
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.outcomes.access import read_kpis

router = Router(tags=["outcomes"], auth=bearer)

#: A jurisdiction's code, or nothing (Canada).
JURISDICTION_OR_CANADA = "^(|" + "|".join(JURISDICTION_CODES) + ")$"


@router.get("", response={200: KpiReportOut, **problems(401, 403, 422)})
def kpis(
    request: HttpRequest,
    fiscal_year: Annotated[str, Query(pattern=FISCAL_YEAR, examples=["2026-27"])],
    jurisdiction: Annotated[
        str | None, Query(pattern=JURISDICTION_OR_CANADA, examples=["ON"])
    ] = None,
) -> HttpResponse:
    """The KPIs: applications, approvals, participants, completion, employment at the end, at 3
    and at 12 months, cost per trainee and per job outcome, slippage, days from claim to
    payment, by firm size and by equity question. No jurisdiction (or an empty one): Canada,
    with the federal-direct files apart. Figures about fewer than 10 people are suppressed, and
    so are the cells that would let them be worked out, for every role but auditors. The
    figures are added up from stored cells the worker keeps fresh: `as_of` says when the records
    were read."""
    report = read_kpis(caller(request), jurisdiction or None, fiscal_year)
    return json_response(_plain(dataclasses.asdict(report)))


def _plain(data: Any) -> Any:
    """The report as JSON values (its enums as their strings; `notes` left to the pages)."""
    if isinstance(data, dict):
        return {key: _plain(value) for key, value in data.items() if key != "notes"}
    if isinstance(data, list | tuple):
        return [_plain(value) for value in data]
    if isinstance(data, str):
        return str(data)
    if isinstance(data, dt.datetime):
        return data.isoformat()
    return data
