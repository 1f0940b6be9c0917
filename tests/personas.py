"""The people the service and web tests act as, created by a fixture apart from the demo data.

Each persona is a constant that names its role and reach, so a test says who acts
(`as_user(OFFICER)`), not which demonstration account happens to fit. The organizations they act
for are the tests' own too; their sizes, industries and regions are the demonstration
employers', so the figures the tests expect are the same.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from django.db import transaction
from django_otp.oath import hotp
from django_otp.plugins.otp_totp.models import TOTPDevice
from stdnum import luhn

from jobgrant.service.accounts.models import STAFF_ROLES, OrganizationRole, Role, User
from jobgrant.service.accounts.second_factor import APP_DEVICE
from jobgrant.service.registry.models import Employer, Verification

PASSWORD = "persona-password"


def totp_key(username: str) -> str:
    """Each staff persona's authenticator secret (hex), as its phone would hold it."""
    return hashlib.sha1(f"persona-totp-{username}".encode()).hexdigest()


#: The test's moved clock (time_machine's coordinates, set by tests/conftest.frozen_today).
CLOCK: list = []


def totp_code(username: str, key: str | None = None) -> str:
    """A code the person's authenticator shows and the service still accepts: the current
    30-second step's, or (when that one was used, since a code works once) the next step's,
    which the service accepts too (one step of tolerance either side). Never the previous
    step's: the service would refuse it if its clock passed into the next step before the code
    arrived, which a busy machine does (CI, 2026-12-05: demo-analyst refused in
    test_reflow). A person cannot sign in more than twice in 30 s: past that, as their phone
    would, the code waits for the clock (the test's clock moves on 90 s, or the test waits for
    the next step)."""
    device = TOTPDevice.objects.get(user__username=username, confirmed=True)
    while True:
        now = int((time.time() - device.t0) // device.step)
        usable = [t for t in range(now, now + device.tolerance + 1) if t > device.last_t]
        if usable:
            code = hotp(bytes.fromhex(key or device.key), usable[0], device.digits)
            return f"{code:0{device.digits}d}"
        if CLOCK:
            CLOCK[-1].shift(3 * device.step)
        else:
            time.sleep(1)


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
#: Ontario's programs, streams and intakes; signs off (or refuses) the decisions against an
#: intake's ranking.
PROGRAM_MANAGER = Persona("program-manager-on", Role.PROGRAM_MANAGER, jurisdiction="ON")
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
    PROGRAM_MANAGER,
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
                verification=Verification.VERIFIED,  # as if an officer had checked them
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
    if persona.role in STAFF_ROLES:  # staff pass a second factor: an authenticator app
        TOTPDevice.objects.create(
            user=user, name=APP_DEVICE, key=totp_key(persona.username), confirmed=True
        )
