"""Demonstration data for `make run`: budgets from the funding model, programs, accounts.

Demonstration only: the accounts share one published password, so seeding refuses to run (and
the accounts refuse to sign in) when JOBGRANT_ENV=production.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from stdnum import luhn

from jobgrant.funding.model import FundingModel
from jobgrant.funding.years import MODEL_YEARS
from jobgrant.rules.codes import (
    JURISDICTION_CODES,
    fiscal_year,
    fiscal_year_label,
    fiscal_year_start,
)
from jobgrant.rules.evaluate import default_library
from jobgrant.service.accounts.models import OrganizationRole, Role, User
from jobgrant.service.audit.chain import record
from jobgrant.service.grants.models import Intake, Program, Stream
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount, Funder
from jobgrant.service.registry.models import Employer

DEMO_PASSWORD = "jobgrant-demo"
SCENARIO = Path(__file__).resolve().parents[3] / "scenarios" / "budget-2013.yaml"
FIRST_YEAR = 2014
LAST_MODEL_YEAR = 2019  # after 2019-20 the agreements are assumed renewed at that level


class DemoRefused(RuntimeError):  # noqa: N818
    pass


def business_number(stem: str) -> str:
    """A valid BN9 (8 digits and their Luhn check digit) for demonstration employers."""
    return stem + luhn.calc_check_digit(stem)


def seed(today: dt.date | None = None) -> bool:
    """Load the demonstration data once; False when it was already there."""
    if settings.PRODUCTION:
        raise DemoRefused(
            "demonstration data and accounts are refused when JOBGRANT_ENV=production"
        )
    if User.objects.filter(username="demo-employer").exists():
        return False
    today = today or timezone.localdate()
    with transaction.atomic():
        _budgets(fiscal_year_start(today))
        _programs(today)
        _accounts()
    return True


def _budgets(current_year: int) -> None:
    """Federal grant money and provincial matching, per jurisdiction, 2014-15 to this year."""
    model = FundingModel(scenario=SCENARIO)
    impacts = {label: model.year(label) for label in MODEL_YEARS}
    for year in range(FIRST_YEAR, current_year + 1):
        label = fiscal_year_label(year)
        impact = impacts[fiscal_year_label(min(year, LAST_MODEL_YEAR))]
        for figures in impact.jurisdictions:
            _allocate(Funder.FEDERAL, figures.code, label, figures.grant)
            _allocate(Funder.PROVINCIAL, figures.code, label, figures.matching)


def _allocate(funder: str, jurisdiction: str, year: str, cents: int) -> None:
    account = BudgetAccount.objects.create(
        funder=funder, jurisdiction=jurisdiction, fiscal_year=year
    )
    if cents > 0:
        operations.allocate(account, cents, actor="demo-seed")
    summary = {"funder": funder, "jurisdiction": jurisdiction, "fiscal_year": year, "cents": cents}
    record("demo-seed", "budget.allocate", "budget", account.pk, summary)


def _programs(today: dt.date) -> None:
    policy = default_library().get(settings.JOBGRANT_POLICY)
    year = fiscal_year(today)
    start = dt.date(fiscal_year_start(today), 4, 1)
    for code in JURISDICTION_CODES:
        program = Program.objects.create(
            jurisdiction=code,
            fiscal_year=year,
            policy=policy.name,
            delivery=policy.delivery_for(code, today),
        )
        stream = Stream.objects.create(
            program=program,
            code="CJG",
            name_en="Canada Job Grant",
            name_fr="Subvention canadienne pour l'emploi",
        )
        Intake.objects.create(
            stream=stream, opens_on=start, closes_on=dt.date(start.year + 1, 3, 31)
        )


def _accounts() -> None:
    acme = Employer.objects.create(
        business_number=business_number("10000000"),
        name="Acme Precision Machining",
        employees=40,
        naics="332710",
        jurisdiction="ON",
        region="3550",
    )
    lakeshore = Employer.objects.create(
        business_number=business_number("20000000"),
        name="Lakeshore Logistics",
        employees=180,
        naics="493110",
        jurisdiction="ON",
        region="3530",
    )
    _user("demo-employer", Role.EMPLOYER, employers=[acme, lakeshore])
    _user("demo-officer-on-1", Role.OFFICER, jurisdiction="ON")
    _user("demo-officer-on-2", Role.OFFICER, jurisdiction="ON")
    _user("demo-officer-federal", Role.OFFICER, federal=True)
    _user("demo-finance", Role.FINANCE)
    _user("demo-analyst", Role.ANALYST)
    _user("demo-auditor", Role.AUDITOR)
    _user("demo-admin", Role.ADMIN)  # staff accounts (web:staff-list)


def _user(
    name: str,
    role: str,
    *,
    employers: list[Employer] | None = None,
    jurisdiction: str = "",
    federal: bool = False,
) -> User:
    user = User.objects.create_user(
        username=name,
        password=DEMO_PASSWORD,
        role=role,
        jurisdiction=jurisdiction,
        federal=federal,
        email=f"{name}@example.com",  # the outbox's messages to them show on /demo/mail/
    )
    if employers:  # the demonstration employer administers both organizations
        user.employers.set(employers, through_defaults={"role": OrganizationRole.ADMIN})
    record("demo-seed", "user.create", "user", user.pk, {"username": name, "role": role})
    return user
