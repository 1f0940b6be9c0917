"""The people, organizations and programs the demonstration history needs besides `demo.seed`'s:
two officers per jurisdiction of the history (one recommends, the other approves), a second
federal officer, an employer account per jurisdiction administering its employers, and the
programs of the past fiscal years (the seed opens only the current year's)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django_otp.plugins.otp_totp.models import TOTPDevice

from jobgrant.rules.codes import fiscal_year_label
from jobgrant.rules.evaluate import default_library
from jobgrant.service.accounts.demo_credentials import DEMO_TOTP_KEY_HEX
from jobgrant.service.accounts.models import STAFF_ROLES, OrganizationRole, Role, User
from jobgrant.service.accounts.second_factor import APP_DEVICE
from jobgrant.service.audit.chain import record
from jobgrant.service.demo import demo_password_hash
from jobgrant.service.demo_history.plan import EmployerPlan, Plan
from jobgrant.service.demo_support import business_number
from jobgrant.service.grants.models.applications import Delivery, Intake, Program, Stream
from jobgrant.service.registry.models import Employer, Verification


@dataclass(frozen=True)
class Office:
    """Who works a jurisdiction's files: the recommender (who is also assigned the file and
    assesses its claims) and the approver."""

    recommender: User
    approver: User


@dataclass(frozen=True)
class Cast:
    offices: dict[str, Office]
    employer_users: dict[str, User]
    employers: dict[int, Employer]  # by EmployerPlan.number
    finance: User
    second_finance: User


def assemble(plan: Plan, federal_direct: set[str]) -> Cast:
    """Create (once) what the plan's files need; the seed's accounts are reused."""
    jurisdictions = sorted({e.jurisdiction for e in plan.employers})
    offices = {code: _office(code, code in federal_direct) for code in jurisdictions}
    users = {code: _employer_user(code) for code in jurisdictions}
    employers = {}
    for employer in plan.employers:
        made = _employer(employer)
        users[employer.jurisdiction].employers.add(
            made, through_defaults={"role": OrganizationRole.ADMIN}
        )
        employers[employer.number] = made
    return Cast(
        offices=offices,
        employer_users=users,
        employers=employers,
        finance=User.objects.get(username="demo-finance"),
        second_finance=User.objects.get(username="demo-finance-2"),
    )


def _office(code: str, federal: bool) -> Office:
    if federal:
        return Office(
            _officer("demo-officer-federal", federal=True),
            _officer("demo-officer-federal-2", federal=True),
        )
    lower = code.lower()
    return Office(
        _officer(f"demo-officer-{lower}-1", code), _officer(f"demo-officer-{lower}-2", code)
    )


def _officer(name: str, jurisdiction: str = "", federal: bool = False) -> User:
    found = User.objects.filter(username=name).first()
    return found or _account(name, Role.OFFICER, jurisdiction=jurisdiction, federal=federal)


def _employer_user(code: str) -> User:
    name = f"demo-employer-{code.lower()}"
    found = User.objects.filter(username=name).first()
    return found or _account(name, Role.EMPLOYER)


def _account(name: str, role: str, *, jurisdiction: str = "", federal: bool = False) -> User:
    """A demonstration account as `demo._user` makes it (the published password and, for
    staff, the published second-factor secret), its password hash computed once."""
    user = User.objects.create_user(
        username=name,
        password=None,
        role=role,
        jurisdiction=jurisdiction,
        federal=federal,
        email=f"{name}@example.com",
    )
    user.password = demo_password_hash()
    user.save(update_fields=["password"])
    if role in STAFF_ROLES:
        TOTPDevice.objects.create(user=user, name=APP_DEVICE, key=DEMO_TOTP_KEY_HEX, confirmed=True)
    record("demo-seed", "user.create", "user", user.pk, {"username": name, "role": role})
    return user


def _employer(plan: EmployerPlan) -> Employer:
    number = business_number(f"{700 + plan.number:03d}00000")
    found = Employer.objects.filter(business_number=number).first()
    return found or Employer.objects.create(
        business_number=number,
        name=plan.name,
        employees=plan.employees,
        naics=plan.naics,
        jurisdiction=plan.jurisdiction,
        region=plan.region,
        verification=Verification.VERIFIED,  # the history's employers had their files decided
    )


def open_programs(plan: Plan, federal_direct: set[str]) -> None:
    """The grant in each jurisdiction and past fiscal year of the history: an intake open from
    January before the year to its end (applications come before the training starts)."""
    policy = default_library().get(settings.JOBGRANT_POLICY)
    for year, code in sorted({(f.fiscal_year, f.jurisdiction) for f in plan.files}):
        label = fiscal_year_label(year)
        if Program.objects.filter(jurisdiction=code, fiscal_year=label).exists():
            continue
        delivery = Delivery.FEDERAL_DIRECT if code in federal_direct else Delivery.PROVINCIAL
        program = Program.objects.create(
            jurisdiction=code, fiscal_year=label, policy=policy.name, delivery=delivery
        )
        stream = Stream.objects.create(
            program=program,
            code="CJG",
            name_en="Canada Job Grant",
            name_fr="Subvention canadienne pour l'emploi",
        )
        Intake.objects.create(
            stream=stream, opens_on=dt.date(year, 1, 1), closes_on=dt.date(year + 1, 3, 31)
        )
