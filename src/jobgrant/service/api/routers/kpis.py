"""GET /kpis: the grant's KPIs for a jurisdiction (or Canada) and fiscal year."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from ninja import Query, Router

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.money import format_amount
from jobgrant.service.api.kpi_schemas import UNIT_NAMES, KpiReportOut
from jobgrant.service.api.openapi import problems
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import FISCAL_YEAR
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.outcomes.access import read_kpis
from jobgrant.service.outcomes.report import cells
from jobgrant.service.outcomes.tables import Figure, Unit

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
    return json_response(plain(report))


def plain(data: Any) -> Any:
    """The report as JSON values: each figure with its value (`figure_json`), units by their
    API names, enums as their strings; `notes` left to the pages."""
    if isinstance(data, Figure):
        return figure_json(data)
    if isinstance(data, Unit):
        return UNIT_NAMES[data]
    if dataclasses.is_dataclass(data) and not isinstance(data, type):
        return {
            f.name: plain(getattr(data, f.name))
            for f in dataclasses.fields(data)
            if f.name != "notes"
        }
    if isinstance(data, dict):
        return {key: plain(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [plain(value) for value in data]
    if isinstance(data, str):
        return str(data)
    if isinstance(data, dt.datetime):
        return data.isoformat()
    return data


def figure_json(figure: Figure) -> dict[str, Any]:
    """One figure: its value beside its terms (kpi_schemas.FigureOut); a suppressed one keeps
    no number, whatever the figure still holds."""
    shown = figure.shown
    numerator: int | str | None = figure.numerator if shown else None
    denominator = figure.denominator if shown else None
    value: int | str | None = None
    if cells.applicable(figure):
        value = _value(figure)
    if shown and figure.unit is Unit.CENTS_PER and figure.numerator is not None:
        numerator = format_amount(figure.numerator)
    return {
        "unit": UNIT_NAMES[figure.unit],
        "value": value,
        "numerator": numerator,
        "denominator": denominator,
        "people": figure.people if shown else None,
        "suppressed": str(figure.suppressed),
        "response": None if figure.response is None else figure_json(figure.response),
    }


def _value(figure: Figure) -> int | str | None:
    numerator, denominator = figure.numerator or 0, figure.denominator or 0
    if figure.unit is Unit.RATE:
        return str(cells.fraction(numerator, denominator))
    if figure.unit is Unit.CENTS_PER:
        return format_amount(cells.per_cents(numerator, denominator))
    if figure.unit is Unit.DAYS_PER:
        return str(cells.per_days(numerator, denominator))
    if figure.unit is Unit.CENTS:
        return None if figure.value is None else format_amount(figure.value)
    if figure.unit is Unit.POINTS:  # hundredths of a point: "12.50" percentage points
        return None if figure.value is None else format_amount(figure.value)
    return figure.value
