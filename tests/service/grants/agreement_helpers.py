"""Approved applications for the agreement tests, made as the personas make them."""

from __future__ import annotations

from typing import Any

from tests.conftest import application_body
from tests.personas import EMPLOYER, OFFICER, SECOND_OFFICER

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.ledger.models import BudgetAccount

ALL_CONFIRMED = ["agreement", "cost_schedule", "general_terms"]


def recommended(**changes: Any) -> Application:
    employer = EMPLOYER.get()
    application = actions.create_application(employer, application_body(**changes))
    actions.submit_application(employer, application)
    actions.recommend_application(OFFICER.get(), application)
    return application


def approved(
    email: str = "applicant@example.ca", language: str = "en", **changes: Any
) -> Agreement:
    """An approved application's agreement; its applicant has an address and a language."""
    employer = EMPLOYER.get()
    User.objects.filter(pk=employer.pk).update(email=email, preferred_language=language)
    application = recommended(**changes)
    actions.approve_application(SECOND_OFFICER.get(), application)
    return Agreement.objects.get(application=application)


def committed(funder: str) -> int:
    return BudgetAccount.objects.get(
        funder=funder, jurisdiction="ON", fiscal_year="2026-27"
    ).committed_cents
