"""GET /budgets: allocated, committed, disbursed and available, per funder and stream."""

from __future__ import annotations

from typing import Annotated

from django.http import HttpRequest, HttpResponse
from ninja import Query, Router

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import Role
from jobgrant.service.api.openapi import problems
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import FISCAL_YEAR, BudgetOut, one_of
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.grants.core import access
from jobgrant.service.ledger.models import BudgetAccount

router = Router(tags=["ledger"], auth=bearer)
READERS = (
    Role.FINANCE,
    Role.OFFICER,
    Role.ANALYST,
    Role.AUDITOR,
    Role.ADMIN,
    Role.PROGRAM_MANAGER,
)


@router.get("", response={200: list[BudgetOut], **problems(401, 403, 422)})
def list_budgets(
    request: HttpRequest,
    jurisdiction: Annotated[str | None, Query(pattern=one_of(JURISDICTION_CODES))] = None,
    fiscal_year: Annotated[str | None, Query(pattern=FISCAL_YEAR)] = None,
) -> HttpResponse:
    """Budgets per funder and stream: allocated, committed, disbursed, available."""
    access.require_role(caller(request), *READERS)
    budgets = BudgetAccount.objects.all().order_by(
        "jurisdiction", "fiscal_year", "funder", "stream"
    )
    if jurisdiction:
        budgets = budgets.filter(jurisdiction=jurisdiction)
    if fiscal_year:
        budgets = budgets.filter(fiscal_year=fiscal_year)
    return json_response(
        [
            {
                "funder": b.funder,
                "jurisdiction": b.jurisdiction,
                "fiscal_year": b.fiscal_year,
                "stream": b.stream,
                "allocated": format_amount(b.allocated_cents),
                "committed": format_amount(b.committed_cents),
                "disbursed": format_amount(b.disbursed_cents),
                "available": format_amount(b.available_cents),
            }
            for b in budgets
        ]
    )
