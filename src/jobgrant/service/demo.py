"""Demonstration data for `make run`: budgets from the funding model, programs, accounts.

Demonstration only: the accounts share one published password, and the staff accounts one
published second-factor secret (accounts/demo_credentials.py), so seeding refuses to run (and
neither the accounts, the password nor the secret sign in) when JOBGRANT_ENV=production.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from pathlib import Path

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.utils import timezone
from django_otp.plugins.otp_totp.models import TOTPDevice
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
from jobgrant.service.accounts.demo_credentials import DEMO_PASSWORD, DEMO_TOTP_KEY_HEX
from jobgrant.service.accounts.models import STAFF_ROLES, OrganizationRole, Role, User
from jobgrant.service.accounts.second_factor import APP_DEVICE
from jobgrant.service.audit.chain import record
from jobgrant.service.demo_support import (
    READY_DECLARATIONS,
    clear_demo_flags,
    clock_at,
)
from jobgrant.service.demo_support import (  # for the previous releases' callers (T4's drill)
    business_number as business_number,
)
from jobgrant.service.grants.models.applications import (
    Intake,
    IntakeState,
    Program,
    Selection,
    Stream,
)
from jobgrant.service.grants.ranking.actions import rank_intake
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount, Funder
from jobgrant.service.registry.models import Employer, Verification

SCENARIO = Path(__file__).resolve().parents[3] / "scenarios" / "budget-2013.yaml"
FIRST_YEAR = 2014
LAST_MODEL_YEAR = 2019  # after 2019-20 the agreements are assumed renewed at that level


class DemoRefused(RuntimeError):  # noqa: N818
    pass


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
        _ranked_files(today)
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
            stream=stream,
            name_en=f"Intake {year}",
            name_fr=f"Appel de demandes {year}",
            opens_on=start,
            closes_on=dt.date(start.year + 1, 3, 31),
        )
        if code == "ON":
            _ranked_intake(program, today)


#: The budget of Ontario's ranked intake, federal (Ontario no longer matches: cjg-2014).
RANKED_INTAKE_BUDGET_CENTS = 50_000_000
RANKED_INTAKE_CLOSED_DAYS_AGO = 10


def _ranked_intake(program: Program, today: dt.date) -> None:
    """Ontario's second stream, ranked: an intake of about six weeks that closed ten days ago
    (recent, so that its undecided files are within the 60 business days to decide them, as a
    real intake's would be), with its own budget earmarked on Ontario's federal account; made
    open, it receives its files (`_ranked_files`) and is then closed and ranked. Ontario's
    first-come intake commits from the whole account, as every other jurisdiction's (ADR 0048)."""
    from jobgrant.service.demo_ranking import SPRING

    start = max(dt.date(fiscal_year_start(today), 4, 1), today - dt.timedelta(days=56))
    closes = today - dt.timedelta(days=RANKED_INTAKE_CLOSED_DAYS_AGO)
    if (closes - start).days < 14:
        return  # too early in the year for an intake to have come and gone
    stream = Stream.objects.create(
        program=program,
        code="CJG",
        name_en="Canada-Ontario Job Grant, ranked selection",
        name_fr="Subvention Canada-Ontario pour l'emploi, sélection par classement",
        selection=Selection.RANKED,
        scoring="on-2017",
    )
    intake = Intake.objects.create(
        stream=stream,
        name_en=f"{SPRING} {program.fiscal_year}",
        name_fr=f"Appel classé {program.fiscal_year}",
        opens_on=start,
        closes_on=closes,
        state=IntakeState.OPEN,
        federal_budget_cents=RANKED_INTAKE_BUDGET_CENTS,
    )
    account = BudgetAccount.objects.get(
        funder=Funder.FEDERAL, jurisdiction="ON", fiscal_year=program.fiscal_year, stream="CJG"
    )
    operations.set_earmark(intake.pk, account, RANKED_INTAKE_BUDGET_CENTS, actor="demo-seed")
    summary = {
        "name_en": intake.name_en,
        "name_fr": intake.name_fr,
        "federal_budget_cents": RANKED_INTAKE_BUDGET_CENTS,
        "intake_state": intake.state,
    }
    record("demo-seed", "intake.create", "intake", intake.pk, summary)


def _ranked_files(today: dt.date) -> None:
    """Ontario's ranked intake filled with demo-employer's files while it was open, then closed,
    ranked, one decision taken against its ranking, and flags raised (demo_ranking.py). Closed
    and ranked all the same when it is too early or too late in the year for files."""
    from jobgrant.service.demo_ranking import fill_and_rank

    intake = Intake.objects.filter(
        stream__program__jurisdiction="ON", stream__selection=Selection.RANKED
    ).first()
    if intake is None or fill_and_rank(intake, today) is not None:
        return
    Intake.objects.filter(pk=intake.pk).update(state=IntakeState.CLOSED, closed_on=intake.closes_on)
    rank_intake(intake)


def _accounts() -> None:
    acme = Employer.objects.create(
        business_number=business_number("10000000"),
        name="Acme Precision Machining",
        employees=40,
        naics="332710",
        jurisdiction="ON",
        region="3550",
        phone="905-555-0120",  # fictitious (555-01xx), as every telephone of the demonstration
        verification=Verification.VERIFIED,
    )
    lakeshore = Employer.objects.create(
        business_number=business_number("20000000"),
        name="Lakeshore Logistics",
        employees=180,
        naics="493110",
        jurisdiction="ON",
        region="3530",
        phone="416-555-0121",
        verification=Verification.VERIFIED,
    )
    password = demo_password_hash()
    _user("demo-employer", Role.EMPLOYER, password, employers=[acme, lakeshore])
    _user("demo-officer-on-1", Role.OFFICER, password, jurisdiction="ON")
    _user("demo-officer-on-2", Role.OFFICER, password, jurisdiction="ON")
    _user("demo-officer-federal", Role.OFFICER, password, federal=True)
    _user("demo-finance", Role.FINANCE, password)
    # A second person in finance: a payment batch is authorized by someone other than its
    # builder (and than the claim's certifier), so the demo path needs two.
    _user("demo-finance-2", Role.FINANCE, password)
    _user("demo-analyst", Role.ANALYST, password)
    _user("demo-auditor", Role.AUDITOR, password)
    _user("demo-admin", Role.ADMIN, password)  # staff accounts (web:staff-list)
    # Ontario's programs, streams and intakes (web:program-list); signs off the decisions
    # against an intake's ranking (grants/ranking).
    _user("demo-program-manager-on", Role.PROGRAM_MANAGER, password, jurisdiction="ON")


@functools.cache
def demo_password_hash() -> str:
    """The published demonstration password, hashed once per process: Argon2 takes a third of
    a second of CPU or more a time (and 100 MB), and every demonstration account has it."""
    return make_password(DEMO_PASSWORD)


def _user(
    name: str,
    role: str,
    password: str,
    *,
    employers: list[Employer] | None = None,
    jurisdiction: str = "",
    federal: bool = False,
) -> User:
    """A demonstration account; `password`: the published password's hash."""
    user = User.objects.create(
        username=name,
        password=password,
        role=role,
        jurisdiction=jurisdiction,
        federal=federal,
        email=f"{name}@example.com",  # the outbox's messages to them show on /demo/mail/
    )
    if employers:  # the demonstration employer administers both organizations
        user.employers.set(employers, through_defaults={"role": OrganizationRole.ADMIN})
    if role in STAFF_ROLES:  # the published secret (README.md), refused in production anyway
        TOTPDevice.objects.create(user=user, name=APP_DEVICE, key=DEMO_TOTP_KEY_HEX, confirmed=True)
    record("demo-seed", "user.create", "user", user.pk, {"username": name, "role": role})
    return user


# --- An organization waiting to be verified --------------------------------------------------

AWAITING_ACCOUNT = "demo-employer-new"


def seed_awaiting_verification() -> Employer | None:
    """Northern Ridge Carpentry, registered by demo-employer-new, not verified yet: its
    administrator uploaded its business registration document, which waits in the Ontario
    officers' queue (Organizations to verify). Apart from `seed`, for `jobgrant serve`: the
    document is a file in the receipts' storage. None when it is there already."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from jobgrant.service.demo_history.receipt import one_page_pdf
    from jobgrant.service.people.organization_verification import upload_proof
    from jobgrant.service.uploads import checked

    if User.objects.filter(username=AWAITING_ACCOUNT).exists():
        return None
    with transaction.atomic():
        employer = Employer.objects.create(
            business_number=business_number("30000000"),
            name="Northern Ridge Carpentry",
            employees=12,
            naics="238350",
            jurisdiction="ON",
            region="3595",
            street_address="88 Lakehead Road",
            city="Thunder Bay",
            postal_code="P7B 1A1",
            phone="807-555-0122",
            verification=Verification.UNVERIFIED,
        )
        user = _user(AWAITING_ACCOUNT, Role.EMPLOYER, demo_password_hash(), employers=[employer])
        text = (
            f"Ontario Business Registry - Northern Ridge Carpentry - business number "
            f"{employer.business_number} - registered 2019-03-14"
        )
        upload = SimpleUploadedFile("business-registration.pdf", one_page_pdf(text))
        upload_proof(user, employer, checked(upload, "file", default="registration"))
    return employer


# --- Files ready to claim  ------------------------------------------

#: Two trainees per file, as the participant form is answered: an employee, then a new hire.
READY_TRAINEES = (
    {
        "given_name": "Amélie",
        "family_name": "Tremblay",
        "status": "existing-employee",
        "employment_status": "employed-full-time",
        "sin": "130 692 544",
    },
    {
        "given_name": "Jonah",
        "family_name": "Clarke",
        "status": "unemployed",
        "employment_status": "unemployed",
        "sin": "193 456 787",
    },
)
READY_TUITIONS = ("6000.00", "4500.00", "9000.00")
_LINK = re.compile(r"/(?:participate|participer)/([0-9a-f]{64})/")  # en or fr
#: How long before today the files were applied for (their training began 20 days ago).
TODAY_DEFAULT_OFFSET = dt.timedelta(days=50)


def seed_ready_to_claim(today: dt.date | None = None) -> list[int]:
    """A few files of demo-employer's Acme ready to claim, walked as people would walk them:
    applied for 50 days ago, training started 20 days ago, recommended by one Ontario officer
    and approved by the other (the budget committed, the agreement issued), the agreement
    accepted, both trainees invited and confirmed through their form, and the file assigned to
    demo-officer-on-1, who assesses its claims. Returns their ids.

    Each step runs with the clock on its own day (READY_STEPS, between the application and the
    training's start), so the file's history tells the same story as "applied for 50 days ago";
    the messages they queue are left to the worker, as today's are.

    Apart from `seed` (which the tests load before each test), for `jobgrant serve` and the
    tests that want such files: each file costs an approval and four form submissions."""
    from jobgrant.service.grants.agreements import actions as agreement_actions
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.applications import assignment as assignment_actions
    from jobgrant.service.grants.models.agreements import Agreement
    from jobgrant.service.grants.participants import actions as participant_actions

    today = today or timezone.localdate()
    employer = User.objects.get(username="demo-employer")
    recommender = User.objects.get(username="demo-officer-on-1")
    approver = User.objects.get(username="demo-officer-on-2")
    acme = employer.employers.get(business_number=business_number("10000000"))
    ids = []
    applied = today - TODAY_DEFAULT_OFFSET
    on = _ready_moments(applied)
    for number, tuition in enumerate(READY_TUITIONS):
        body = _ready_body(acme.business_number, tuition, today)
        with clock_at(on["apply"]):
            application = actions.create_application(employer, body, today=applied)
            actions.submit_application(employer, application)
        with clock_at(on["recommend"]):
            clear_demo_flags(recommender, application)
            actions.recommend_application(recommender, application, "Ready-to-claim demo file.")
        with clock_at(on["approve"]):
            actions.approve_application(approver, application, "Ready-to-claim demo file.")
        with clock_at(on["accept"]):
            agreement_actions.accept_agreement(
                employer,
                Agreement.objects.get(application=application),
                "Ada Tremblay",
                "Owner",
                ["agreement", "cost_schedule", "general_terms"],
            )
        for position, trainee in enumerate(READY_TRAINEES):
            invite = {
                "trainee": position,
                "email": f"trainee-{number}-{position}@example.com",
                "language": "en",
            }
            with clock_at(on["invite"]):
                participant = participant_actions.invite_participant(employer, application, invite)
            answers = _answers(trainee) | {"sin": _demo_sin(number, position)}
            with clock_at(on["forms"]):
                participant_actions.submit_participant_form(
                    _link_token(participant.pk), answers, today=on["forms"].date()
                )
        # The officer who will assess the claims (s.34): assigned to the file.
        with clock_at(on["assign"]):
            assignment_actions.assign_application(recommender, application, recommender)
        ids.append(application.pk)
    return ids


def _ready_moments(applied: dt.date) -> dict[str, dt.datetime]:
    """When each step of a ready file happens, in Ontario's time: the officers on working days,
    everything within three weeks of the application, long before the training starts (30 days
    after it) and the trainees' forms before they are due (5 days before the start). Times of
    day that are not the demonstration history's (walk.WORK_HOUR, on the hour), so that the
    history never takes these files' messages for its own."""

    def working(day: dt.date) -> dt.date:
        while day.weekday() >= 5:
            day += dt.timedelta(days=1)
        return day

    recommend = working(applied + dt.timedelta(days=3))
    approve = working(recommend + dt.timedelta(days=2))
    accept = approve + dt.timedelta(days=1)
    forms = accept + dt.timedelta(days=2)
    days = {
        "apply": (applied, dt.time(9, 40)),
        "recommend": (recommend, dt.time(10, 20)),
        "approve": (approve, dt.time(14, 10)),
        "accept": (accept, dt.time(11, 5)),
        "invite": (accept, dt.time(11, 25)),
        "forms": (forms, dt.time(19, 35)),
        "assign": (working(forms + dt.timedelta(days=1)), dt.time(9, 50)),
    }
    zone = timezone.get_default_timezone()
    return {step: dt.datetime.combine(day, at, tzinfo=zone) for step, (day, at) in days.items()}


def _ready_body(business_number: str, tuition: str, today: dt.date) -> dict[str, object]:
    start = today - dt.timedelta(days=20)
    trainee_costs = {
        "tuition": tuition,
        "student_fees": "0.00",
        "materials": "250.00",
        "exam_fees": "0.00",
    }
    return {
        "jurisdiction": "ON",
        "region": "3550",
        "employers": [{"id": "acme", "business_number": business_number}],
        "training": {
            "course": "CNC machining certificate",
            "setting": "off-site",
            "start_date": start.isoformat(),
            "end_date": (start + dt.timedelta(days=75)).isoformat(),
            "hours": 120,
            "provider": {"name": "Mohawk College", "third_party": True},
        },
        "trainees": [
            {"employer_id": "acme", "status": trainee["status"], "costs": dict(trainee_costs)}
            for trainee in READY_TRAINEES
        ],
        "declarations": READY_DECLARATIONS,
    }


def _demo_sin(number: int, position: int) -> str:
    """A valid SIN (Luhn) of its own for each demonstration trainee: the caps per trainee across
    files (by SIN) would otherwise leave a later file's claim with nothing to pay."""
    stem = f"1{number:02d}{position:02d}{len(READY_TUITIONS):03d}"
    return stem + luhn.calc_check_digit(stem)


def _link_token(participant_id: int) -> str:
    """The single-use link in the invitation the outbox holds for the slot (as a trainee
    would find it in their mail)."""
    from jobgrant.service.notifications.models import Message

    message = (
        Message.objects.filter(subject_type="grants.participant", subject_id=str(participant_id))
        .order_by("-id")
        .first()
    )
    found = _LINK.search(message.body if message else "")
    if found is None:
        raise RuntimeError(f"no invitation link for participant {participant_id}")
    return found[1]


def _answers(trainee: dict[str, str]) -> dict[str, str]:
    return {
        "given_name": trainee["given_name"],
        "family_name": trainee["family_name"],
        "date_of_birth": "1990-04-12",
        "sin": trainee["sin"],
        "contact_email": f"{trainee['family_name'].lower()}@example.com",
        "phone": "905 555 0134",
        "street_address": "12 King Street East",
        "city": "Hamilton",
        "province": "ON",
        "postal_code": "L8N 1A1",
        "indigenous": "prefer-not-to-say",
        "disability": "no",
        "visible_minority": "prefer-not-to-say",
        "immigration": "no",
        "gender": "prefer-not-to-say",
        "education": "college",
        "first_language": "english",
        "employment_status": trainee["employment_status"],
        "noc": "72100",
        "hourly_wage": "28.50" if trainee["status"] == "existing-employee" else "",
        "weekly_hours": "40" if trainee["status"] == "existing-employee" else "",
        "receiving_ei": "no",
        "consent_name": f"{trainee['given_name']} {trainee['family_name']}",
        "consent": "yes",
    }
