"""The refusal of a commitment the budget cannot take, worded once for every action that commits
money (an approval, an approved change request)."""

from __future__ import annotations

from jobgrant.rules.money import format_amount
from jobgrant.service.choices import Jurisdiction
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import Funder
from jobgrant.service.refusals import amount, refused


def budget_refusal(
    error: operations.NoBudget | operations.InsufficientBudget, application: Application, state: str
) -> ServiceError:
    """409 NO_BUDGET or BUDGET_EXHAUSTED (with what was asked and what is left), the object
    acted on still in `state`."""
    if isinstance(error, operations.NoBudget):
        return refused(
            409,
            "NO_BUDGET",
            lambda: {
                "jurisdiction": Jurisdiction(application.jurisdiction).label,
                "year": application.fiscal_year,
            },
            extra={"state": state, "available": "0.00"},
        )
    account, cents, available = error.account, error.requested_cents, error.available_cents
    intake = isinstance(error, operations.InsufficientIntakeBudget)
    return refused(
        409,
        "INTAKE_BUDGET_EXHAUSTED" if intake else "BUDGET_EXHAUSTED",
        lambda: {
            "funder": Funder(account.funder).label,
            "requested": amount(cents),
            "available": amount(available),
        },
        extra={
            "state": state,
            "funder": account.funder,
            "requested": format_amount(cents),
            "available": format_amount(available),
        },
    )
