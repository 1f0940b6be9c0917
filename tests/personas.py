"""The people the service and web tests act as, created by a fixture apart from the demo data.

Each persona is a constant that names its role and reach, so a test says who acts
(`as_user(OFFICER)`), not which demonstration account happens to fit. The organizations they act
for are the tests' own too; their sizes, industries and regions are the demonstration
employers', so the figures the tests expect are the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from stdnum import luhn

from jobgrant.service.accounts.models import OrganizationRole, Role, User
from jobgrant.service.registry.models import Employer

PASSWORD = "persona-password"


@dataclass(frozen=True)
class Organization:
    name: str
    business_number: str
    employees: int
    naics: str
    jurisdiction: str
    region: str

    def get(self) -> Employer:
        return Employer.objects.get(business_number=self.business_number)


@dataclass(frozen=True)
class Persona:
    username: str
    role: str
    jurisdiction: str = ""
    federal: bool = False
    organizations: tuple[Organization, ...] = ()

    def get(self) -> User:
        return User.objects.get(username=self.username)


def _bn(stem: str) -> str:
    return stem + luhn.calc_check_digit(stem)


#: The organization that applies (a small manufacturer in Hamilton, Ontario).
APPLICANT = Organization("Birchwood Tool and Die", _bn("71000000"), 40, "332710", "ON", "3550")
#: Its consortium partner (a mid-sized warehouse in Toronto).
PARTNER = Organization("Harbourfront Freight", _bn("72000000"), 180, "493110", "ON", "3530")
#: A registered employer in no application (a clothing wholesaler in London, Ontario).
OUTSIDER = Organization("Forest City Apparel", _bn("73000000"), 12, "414110", "ON", "3560")
ORGANIZATIONS = (APPLICANT, PARTNER, OUTSIDER)

#: Acts for the applicant and for its partner (a group's office applying for both).
EMPLOYER = Persona("employer", Role.EMPLOYER, organizations=(APPLICANT, PARTNER))
#: Acts for the partner only.
PARTNER_EMPLOYER = Persona("partner-employer", Role.EMPLOYER, organizations=(PARTNER,))
#: Acts for an employer in no application: must see none of them.
OUTSIDER_EMPLOYER = Persona("outsider-employer", Role.EMPLOYER, organizations=(OUTSIDER,))
#: Two officers of Ontario: one recommends, the other approves.
OFFICER = Persona("officer-on", Role.OFFICER, jurisdiction="ON")
SECOND_OFFICER = Persona("second-officer-on", Role.OFFICER, jurisdiction="ON")
#: An officer of another province: Ontario's files are out of reach.
OTHER_JURISDICTION_OFFICER = Persona("officer-bc", Role.OFFICER, jurisdiction="BC")
#: An officer of the federal government (federal direct delivery, any jurisdiction).
FEDERAL_OFFICER = Persona("federal-officer", Role.OFFICER, federal=True)
FINANCE = Persona("finance", Role.FINANCE)
ANALYST = Persona("analyst", Role.ANALYST)
AUDITOR = Persona("auditor", Role.AUDITOR)
#: Manages the staff accounts.
ADMIN = Persona("staff-admin", Role.ADMIN)
PERSONAS = (
    EMPLOYER,
    PARTNER_EMPLOYER,
    OUTSIDER_EMPLOYER,
    OFFICER,
    SECOND_OFFICER,
    OTHER_JURISDICTION_OFFICER,
    FEDERAL_OFFICER,
    FINANCE,
    ANALYST,
    AUDITOR,
    ADMIN,
)


def create_personas() -> None:
    """Create the organizations and the people, once per database (a no-op when they exist)."""
    if User.objects.filter(username=EMPLOYER.username).exists():
        return
    with transaction.atomic():
        for organization in ORGANIZATIONS:
            Employer.objects.create(
                name=organization.name,
                business_number=organization.business_number,
                employees=organization.employees,
                naics=organization.naics,
                jurisdiction=organization.jurisdiction,
                region=organization.region,
            )
        for persona in PERSONAS:
            _create(persona)


def _create(persona: Persona) -> None:
    user = User.objects.create_user(
        username=persona.username,
        email=f"{persona.username}@example.com",
        password=PASSWORD,
        role=persona.role,
        jurisdiction=persona.jurisdiction,
        federal=persona.federal,
    )
    # An employer's people administer their organizations (they answer partner requests).
    role = {"role": OrganizationRole.ADMIN if persona.role == Role.EMPLOYER else "member"}
    user.employers.set(
        [organization.get() for organization in persona.organizations], through_defaults=role
    )
