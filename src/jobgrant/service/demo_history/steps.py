"""One file of the history, step by step, through the service's actions: applied for,
recommended, approved, accepted, its trainees confirmed through their form, the final claim
with its receipt, the claim certified. Each step runs at the plan's day (`walk` moves the clock
there first), as the people concerned would have done it."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile

from jobgrant.rules.money import format_amount
from jobgrant.service.demo import _link_token
from jobgrant.service.demo_history import evaluation, page_timings
from jobgrant.service.demo_history.cast import Cast
from jobgrant.service.demo_history.declarations import declarations
from jobgrant.service.demo_history.plan import FilePlan, TraineePlan
from jobgrant.service.demo_history.receipt import invoice_pdf
from jobgrant.service.demo_support import clear_demo_flags
from jobgrant.service.grants.agreements import actions as agreement_actions
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.applications import assignment as assignment_actions
from jobgrant.service.grants.claims import actions as claim_actions
from jobgrant.service.grants.claims import assessment as claim_assessment_actions
from jobgrant.service.grants.claims.receipts import checked
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.burden import BurdenStep
from jobgrant.service.grants.models.claims import Claim
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.grants.participants import actions as participant_actions

CONFIRMATIONS = ["agreement", "cost_schedule", "general_terms"]
POSTAL = {"ON": "L8N 1A1", "BC": "V6B 1A1", "MB": "R3C 1A1", "NS": "B3H 1A1", "PE": "C1A 1A1"}
CITY = {
    "ON": "Hamilton",
    "BC": "Vancouver",
    "MB": "Winnipeg",
    "NS": "Halifax",
    "PE": "Charlottetown",
}


@dataclass
class FileState:
    """What the walk has made of one planned file so far."""

    plan: FilePlan
    application: Application | None = None
    participants: dict[int, Participant] = field(default_factory=dict)
    claim: Claim | None = None


def body(plan: FilePlan, business_number: str) -> dict[str, Any]:
    """The application as the employer's form would send it."""
    return {
        "jurisdiction": plan.jurisdiction,
        "region": plan.employer.region,
        "employers": [{"id": "lead", "business_number": business_number}],
        "training": {
            "course": plan.course,
            "setting": plan.setting,
            "start_date": plan.start.isoformat(),
            "end_date": plan.end.isoformat(),
            "hours": plan.hours,
            "provider": {"name": plan.provider, "third_party": True},
        },
        "trainees": [
            {
                "employer_id": "lead",
                "status": trainee.status,
                "costs": {
                    "tuition": format_amount(trainee.tuition_cents),
                    "student_fees": "0.00",
                    "materials": format_amount(trainee.materials_cents),
                    "exam_fees": "0.00",
                },
                "baseline": evaluation.baseline(trainee),
            }
            for trainee in plan.trainees
        ],
        "declarations": declarations(plan),
        "counterfactual": evaluation.counterfactual_answers(plan)[0],
    }


def apply(state: FileState, cast: Cast) -> None:
    """The application made and submitted, its wizard's steps timed (the burden meter)."""
    submit(state, cast)
    page_timings.applied(_application(state), state.plan.number, state.plan.employer.employees)


def submit(state: FileState, cast: Cast) -> None:
    """The application made and submitted, untimed (the comparison group's: only what its
    net outcomes need)."""
    plan = state.plan
    employer = cast.employers[plan.employer.number]
    user = cast.employer_users[plan.jurisdiction]
    made = actions.create_application(
        user, body(plan, employer.business_number), today=plan.received_on
    )
    state.application = actions.submit_application(user, made)


def recommend(state: FileState, cast: Cast) -> None:
    """The recommender first clears the file's risk flags (the history's prices and providers
    may raise some), saying what they checked, as an officer must before recommending."""
    office = cast.offices[state.plan.jurisdiction]
    application = _application(state)
    clear_demo_flags(office.recommender, application)
    actions.recommend_application(office.recommender, application, "Eligible; costs reasonable.")


def approve(state: FileState, cast: Cast) -> None:
    office = cast.offices[state.plan.jurisdiction]
    actions.approve_application(office.approver, _application(state), "Approved as recommended.")


def accept(state: FileState, cast: Cast) -> None:
    application = _application(state)
    agreement = Agreement.objects.get(application=application)
    user = cast.employer_users[state.plan.jurisdiction]
    signatory = f"{state.plan.employer.name.split(' (')[0]} owner"
    agreement_actions.accept_agreement(user, agreement, signatory, "Owner", CONFIRMATIONS)
    office = cast.offices[state.plan.jurisdiction]
    assignment_actions.assign_application(office.recommender, application, office.recommender)


def invite(state: FileState, cast: Cast) -> None:
    user = cast.employer_users[state.plan.jurisdiction]
    for trainee in state.plan.trainees:
        invitation = {
            "trainee": trainee.position,
            "email": _email(state.plan, trainee),
            "language": trainee.language,
        }
        state.participants[trainee.position] = participant_actions.invite_participant(
            user, _application(state), invitation
        )


def answer_forms(state: FileState, today: dt.date) -> None:
    for trainee in state.plan.trainees:
        token = _link_token(state.participants[trainee.position].pk)
        state.participants[trainee.position] = participant_actions.submit_participant_form(
            token, form_answers(state.plan, trainee), today=today
        )
        participant = state.participants[trainee.position]
        page_timings.done(
            BurdenStep.PARTICIPANT_FORM,
            _application(state),
            state.plan.number,
            state.plan.employer.employees,
            subject=participant.pk,
        )


def form_answers(plan: FilePlan, trainee: TraineePlan) -> dict[str, str]:
    employed = trainee.status == "existing-employee"
    wage = format_amount(trainee.wage_before_cents) if trainee.wage_before_cents else ""
    return {
        "given_name": trainee.given_name,
        "family_name": trainee.family_name,
        "date_of_birth": trainee.birth.isoformat(),
        "sin": trainee.sin,
        "contact_email": _email(plan, trainee),
        "phone": "",
        "street_address": f"{10 + trainee.position} Main Street",
        "city": CITY[plan.jurisdiction],
        "province": plan.jurisdiction,
        "postal_code": POSTAL[plan.jurisdiction],
        "indigenous": trainee.indigenous,
        "disability": trainee.disability,
        "visible_minority": trainee.visible_minority,
        "immigration": trainee.immigration,
        "gender": trainee.gender,
        "education": trainee.education,
        "first_language": {"fr": "french"}.get(trainee.language, "english"),
        "employment_status": "employed-full-time" if employed else "unemployed",
        "noc": plan.noc if employed else "",
        "hourly_wage": wage if employed else "",
        "weekly_hours": "40" if employed else "",
        "receiving_ei": "no",
        "consent_name": f"{trainee.given_name} {trainee.family_name}",
        "consent": "yes",
    }


def _email(plan: FilePlan, trainee: TraineePlan) -> str:
    return f"trainee-{plan.number}-{trainee.position}@example.com"


def claim(state: FileState, cast: Cast) -> None:
    """The final claim: the agreed costs of every confirmed trainee (the employer paid the
    trainer in full), with the trainer's invoice as its receipt."""
    user = cast.employer_users[state.plan.jurisdiction]
    application = _application(state)
    made = claim_actions.start_claim(user, application, {"is_final": True})
    pdf = invoice_pdf(state.plan.provider, state.plan.number, state.plan.course)
    upload = SimpleUploadedFile(f"invoice-{state.plan.number}.pdf", pdf, "application/pdf")
    claim_actions.add_receipts(user, made, [checked(upload)])
    state.claim = claim_actions.submit_claim(user, made)
    employees = state.plan.employer.employees
    page_timings.done(BurdenStep.CLAIM, application, state.plan.number, employees, made.pk)


def certify(state: FileState, cast: Cast) -> None:
    office = cast.offices[state.plan.jurisdiction]
    if state.claim is None:
        raise RuntimeError(f"file {state.plan.number}: no claim to certify")
    state.claim = claim_assessment_actions.approve_claim(office.recommender, state.claim, {})


def _application(state: FileState) -> Application:
    if state.application is None:
        raise RuntimeError(f"file {state.plan.number} was not applied for")
    return state.application
