"""The shapes of /api/v1: every request body, answer and problem, as Ninja Schema classes.

They are the OpenAPI document's components. Money is a decimal string ("5000.00") at this edge,
never a number: requests match AMOUNT_IN (what the rules kernel reads), answers AMOUNT_OUT (what
`format_amount` writes, always two decimals).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from ninja import Schema
from pydantic import Field

from jobgrant.rules.batch import SETTINGS, STATUSES
from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.requests import COURSE_MAX
from jobgrant.service.api.clock_schemas import ClockOut
from jobgrant.service.grants.core.streams import CODE_MAX as STREAM_CODE_MAX
from jobgrant.service.grants.models.applications import Counterfactual, State, WageBand

AMOUNT_IN = r"^\d{1,10}(\.\d{1,2})?$"
AMOUNT_OUT = r"^-?\d+\.\d{2}$"
FISCAL_YEAR = r"^\d{4}-\d{2}$"
#: Ids are the database's 64-bit integers: anything outside 1..2^63-1 cannot name a row.
MAX_DATABASE_ID = 2**63 - 1
#: A note or a reason, in characters: a page of text (a 2 MB note was once stored).
NOTE_MAX = 4000
#: An employer's reference inside a body: what ApplicationEmployer.reference holds.
EMPLOYER_REF_MAX = 100
STATES: tuple[str, ...] = tuple(State.values)


def one_of(codes: tuple[str, ...]) -> str:
    """A pattern that matches exactly one of `codes` (validated, and documented as such)."""
    return "^(" + "|".join(codes) + ")$"


AmountIn = Annotated[str, Field(pattern=AMOUNT_IN, examples=["5000.00"])]
#: An amount a declaration may leave blank ("" is read as not given, as null is).
AmountOrBlank = Annotated[str, Field(pattern=f"^$|{AMOUNT_IN}", examples=["1500.00", ""])]
Amount = Annotated[str, Field(pattern=AMOUNT_OUT, examples=["5000.00"])]
Jurisdiction = Annotated[str, Field(pattern=one_of(JURISDICTION_CODES), examples=["ON"])]


# --- Problems (application/problem+json, RFC 9457) ---------------------------------------------


class FieldProblem(Schema):
    field: str = Field(description="The field's path, e.g. `trainees[0].costs.tuition`.")
    message_en: str
    message_fr: str


class Problem(Schema):
    """A refusal: what went wrong, in English and French, and each field at fault."""

    type: str
    title: str
    status: int = Field(ge=400, le=599)
    detail: str
    detail_fr: str
    code: str = Field(examples=["INVALID_INPUT"])
    errors: list[FieldProblem] = Field(default_factory=list)
    state: str | None = Field(None, description="The application's state (409 answers).")


# --- Authentication -------------------------------------------------------------------------


class Credentials(Schema):
    # Django's own username rule; it also keeps NUL characters (refused by PostgreSQL) out.
    username: str = Field(min_length=1, max_length=150, pattern=r"^[\w.@+-]+$")
    password: str = Field(min_length=1, max_length=4096)
    otp: str = Field(
        default="",
        max_length=32,
        pattern=r"^[0-9a-z -]*$",
        description="The code of the account's authenticator app, or one of its recovery "
        "codes: required for staff, and for an employer who set a second factor up.",
    )
    client: str = Field(
        default="default",
        min_length=1,
        max_length=64,
        pattern=r"^[\w.@+ -]+$",
        description="The name of the client the token is for: asking again for the same "
        "client replaces its token (one token per client, not one per sign-in).",
    )
    days: int = Field(default=30, ge=1, le=90, description="How long the token works, in days.")


class Token(Schema):
    token: str
    client: str
    expires_at: str


class TokenOut(Schema):
    id: int
    client: str
    prefix: str = Field(description="The token's first characters, to recognize it by.")
    created_at: str
    expires_at: str
    last_used_at: str | None
    owner: str


class RevokeBody(Schema):
    reason: str = Field(default="", max_length=500, description="Why (kept in the audit trail).")


class Revoked(Schema):
    id: int
    revoked: bool


# --- Registry -------------------------------------------------------------------------------


VerificationState = Literal["unverified", "verified", "refused", "disputed"]


class EmployerOut(Schema):
    id: int
    business_number: str
    name: str
    jurisdiction: str
    employees: int
    verification: VerificationState = Field(
        description="Whether an officer verified the organization: only a verified one "
        "submits applications and receives consortium partners' requests."
    )


class EmployerDocument(Schema):
    id: int
    name: str
    content_type: str
    size: int
    uploaded_at: str
    reviewed: bool


class EmployerDetail(EmployerOut):
    phone: str = Field(
        description="Its telephone number as NNN-NNN-NNNN, given when it registered (empty for "
        "an organization registered before it was asked).",
        examples=["905-555-0120"],
    )
    verified_at: str | None = Field(description="When it was verified (null unless verified).")
    verified_against: Literal["document", "registry"] | None = Field(
        description="A document the organization uploaded, or a registry check the officer "
        "attested (null unless verified)."
    )
    documents: list[EmployerDocument] = Field(
        description="The documents its people uploaded to prove its registration, newest first."
    )


class VerifyBody(Schema):
    method: Literal["document", "registry"]
    proof: int | None = Field(
        None, description="With method document: the id of one of its documents."
    )
    note: str = Field(
        max_length=2000,
        description="What the officer checked (for a registry check, their attestation: which "
        "registry, what it showed).",
    )


class RefuseBody(Schema):
    reason: str = Field(max_length=2000, description="Why; sent to its administrators.")


class NoBody(Schema):
    """A POST that reads nothing from its body (a JSON object, or no body at all)."""


class PartnerRequestOut(Schema):
    """A request to be named as a consortium partner in an application."""

    id: int
    application_id: int
    application_state: str = Field(json_schema_extra={"enum": list(STATES)})
    partner_business_number: str
    lead_name: str = Field(description="The organization that applies and named the partner.")
    state: str = Field(json_schema_extra={"enum": ["pending", "accepted", "declined"]})
    decided_at: dt.datetime | None


# --- An application's body (also the body of a quote) ----------------------------------------
# These document the body; the rules kernel's reader (jobgrant.rules.requests) checks it, so that
# every problem keeps its exact field path and bilingual message (see api/bodies.py).


class EmployerRef(Schema):
    id: str = Field(
        min_length=1,
        max_length=EMPLOYER_REF_MAX,
        description="The employer's reference inside this body.",
        examples=["acme"],
    )
    business_number: str = Field(description="A registered employer's business number (BN9).")


class Provider(Schema):
    name: str
    third_party: bool


class Training(Schema):
    course: str | None = Field(
        None,
        min_length=1,
        max_length=COURSE_MAX,
        description="The course or program funded, as the officer reads it (optional).",
        examples=["CNC machining certificate"],
    )
    setting: str = Field(json_schema_extra={"enum": list(SETTINGS)})
    start_date: dt.date
    end_date: dt.date
    hours: AmountIn | Annotated[int, Field(ge=0)] = Field(
        description="Hours, with at most two decimals."
    )
    provider: Provider


class Costs(Schema):
    tuition: AmountIn
    student_fees: AmountIn
    materials: AmountIn
    exam_fees: AmountIn


class Baseline(Schema):
    """The trainee before the training, as the employer knows it (for the net outcomes; never
    read by the rules)."""

    employed: bool = Field(description="Employed when the application is made.")
    wage_band: str | None = Field(
        None,
        json_schema_extra={"enum": list(WageBand.values)},
        description="The usual hourly wage's band; only when employed.",
    )
    weekly_hours: int | None = Field(
        None, ge=1, le=168, description="The usual hours a week; only when employed."
    )


class Trainee(Schema):
    employer_id: str = Field(description="The `id` of one of the body's employers.")
    status: str = Field(json_schema_extra={"enum": list(STATUSES)})
    costs: Costs
    wages_in_kind: AmountIn = "0.00"
    baseline: Baseline | None = None
    under_represented: bool = Field(
        False,
        description=(
            "The trainee agreed to be declared from a group under-represented in the labour"
            " market; read only by the ranking of an intake whose criteria score it (never by"
            " the quote's figures)."
        ),
    )


PreparedByCode = Literal["employer", "consultant", "provider"]
RelationCode = Literal["owners", "directors", "family", "shared_address"]


class Declarations(Schema):
    """What the employer declares: who prepared the application and what they are paid, ties
    to the training provider, other government funding for the same training, the provider's
    details, and the two conflict-of-interest attestations. Checked whole: a field that only
    applies to another answer (a fee when the employer prepared it) is refused, not dropped.
    In British Columbia a consultant may prepare an application but only the employer's own
    account submits it."""

    prepared_by: PreparedByCode
    preparer_name: str | None = Field(
        None, max_length=200, description="Required unless prepared_by is employer."
    )
    preparer_fee: AmountOrBlank | None = Field(
        None, description="What the employer pays the preparer; required unless employer."
    )
    related_to_provider: bool = Field(
        description="Owners, directors or officers in common, family ties or the same address."
    )
    relations: list[RelationCode] | None = Field(
        None, description="Each relation once; required when related_to_provider."
    )
    other_funding: bool = Field(description="Other government funding for this training.")
    other_funding_program: str | None = Field(None, max_length=200)
    other_funding_amount: AmountOrBlank | None = None
    provider_public_institution: bool = Field(
        description="A public college, university or school board: no business number asked."
    )
    provider_business_number: str | None = Field(
        None, description="The provider's BN9; required unless a public institution."
    )
    provider_street_address: str = Field(max_length=200)
    provider_city: str = Field(max_length=100)
    provider_postal_code: str = Field(examples=["L9C 1E9"])
    provider_phone: str = Field(examples=["905-555-0101"])
    trainer_name: str = Field(
        max_length=200, description="Who signed the trainer's attestation, for the provider."
    )
    trainer_attests_no_conflict: Literal[True] = Field(
        description="The employer holds the trainer's signed attestation of no conflict of "
        "interest other than those declared."
    )
    employer_attests_no_conflict: Literal[True] = Field(
        description="The employer attests no conflict of interest other than those declared."
    )


class ApplicationBody(Schema):
    """An application: the `jobgrant quote` input without policy, delivery and application_date
    (the program decides them); each employer is named by its registered business number.
    `declarations` may come now or with the submission; submitting requires them."""

    jurisdiction: Jurisdiction
    region: str | None = Field(None, description="An economic region of the jurisdiction.")
    employers: list[EmployerRef] = Field(min_length=1)
    training: Training
    trainees: list[Trainee] = Field(min_length=1)
    declarations: Declarations | None = None
    stream: (
        Annotated[int, Field(ge=1, le=MAX_DATABASE_ID)]
        | Annotated[str, Field(min_length=1, max_length=STREAM_CODE_MAX)]
        | None
    ) = Field(
        None,
        description="The stream applied to, by its id or its code: required where the program"
        " has more than one stream open on the day (the refusal without it names each open"
        " stream with its id), optional where only one is. A code that several open streams"
        " share is refused: give the id.",
    )
    counterfactual: str | None = Field(
        None,
        json_schema_extra={"enum": list(Counterfactual.values)},
        description="Would this training have happened without the grant? yes (as planned),"
        " yes-later, yes-smaller or no; optional. Never read by the rules.",
    )


class SubmitBody(Schema):
    """Submitting: the declarations, unless the application was made with them (given here,
    they replace those)."""

    note: str = Field("", max_length=NOTE_MAX)
    declarations: Declarations | None = None


class NoteBody(Schema):
    note: str = Field("", max_length=NOTE_MAX)
    reason: str = Field(
        "", max_length=NOTE_MAX, description="Why the application is denied (required to deny)."
    )


# --- Quotes and applications ----------------------------------------------------------------


class Reason(Schema):
    code: str = Field(examples=["TRAINING_STARTED_BEFORE_APPLICATION"])
    message_en: str
    message_fr: str
    trainee: int | None
    employer: str | None
    rule: str


class Figures(Schema):
    eligible_cost: Amount
    federal: Amount
    provincial: Amount
    employer: Amount
    in_kind: Amount


class Totals(Figures):
    government: Amount


class EmployerFigures(Figures):
    id: str


class TraineeFigures(Figures):
    index: int
    employer_id: str


class Reference(Schema):
    title: str
    href: str


class ParameterRead(Schema):
    name: str = Field(examples=["cjg.federal.max_per_trainee"])
    effective_date: dt.date
    value: str
    layer: str = Field(description="The policy or overlay the value comes from.")
    reference: list[Reference]


class ExplanationStep(Schema):
    """One computed value: the formula that made it, its inputs and the parameters it read."""

    target: str = Field(examples=["trainees[0].federal"])
    value: str
    formula: str
    inputs: dict[str, str]
    parameters: list[ParameterRead]


class QuoteOut(Schema):
    """The rules kernel's quote: the `jobgrant quote` JSON contract."""

    policy: str
    jurisdiction: str
    region: str | None
    delivery: str
    fiscal_year: str = Field(pattern=FISCAL_YEAR)
    eligible: bool
    reasons: list[Reason]
    totals: Totals
    employers: list[EmployerFigures]
    trainees: list[TraineeFigures]
    explanation: list[ExplanationStep] | None = Field(
        None, description="How each figure was computed (only when asked for)."
    )


class ApplicationOut(Schema):
    id: int
    state: str = Field(json_schema_extra={"enum": list(STATES)})
    jurisdiction: str
    fiscal_year: str = Field(pattern=FISCAL_YEAR)
    delivery: str
    policy: str
    received_on: dt.date
    federal: Amount
    provincial: Amount
    employer: Amount
    quote: QuoteOut


class StateChangeOut(Schema):
    from_state: str = Field(alias="from")
    to: str
    by: str
    at: dt.datetime
    note: str


class DeclarationsOut(Schema):
    """The declarations as made, with when the employer attested and who did."""

    prepared_by: PreparedByCode
    preparer_name: str
    preparer_fee: Amount | None
    related_to_provider: bool
    relations: list[RelationCode]
    other_funding: bool
    other_funding_program: str
    other_funding_amount: Amount | None
    provider_public_institution: bool
    provider_business_number: str
    provider_street_address: str
    provider_city: str
    provider_postal_code: str
    provider_phone: str
    trainer_name: str
    trainer_attests_no_conflict: bool
    employer_attests_no_conflict: bool
    declared_by: str
    declared_at: dt.datetime


class ApplicationDetail(ApplicationOut):
    policy_version: str
    explanation: list[ExplanationStep]
    history: list[StateChangeOut]
    declarations: DeclarationsOut | None = Field(
        description="null when the application was made before declarations were asked, "
        "while a draft has none yet, or to a consortium partner (they are the applicant's)."
    )
    clocks: list[ClockOut] = Field(
        description="Each service standard that applies to the file, with its clock."
    )


class ApplicationCreated(ApplicationOut):
    declarations: DeclarationsOut | None = Field(
        description="The declarations made with the application; null when it was made without."
    )


class ApplicationPage(Schema):
    count: int
    offset: int
    limit: int
    items: list[ApplicationOut]


class Transitioned(Schema):
    id: int
    state: str = Field(json_schema_extra={"enum": list(STATES)})


class AssignBody(Schema):
    to: str = Field(
        "",
        max_length=150,
        description=(
            "The username of the officer to give the file to: another officer who covers it "
            "(the right government and jurisdiction, no tie to its employers). Empty or absent: "
            "the caller takes it."
        ),
    )


class Assigned(Schema):
    id: int
    state: str = Field(json_schema_extra={"enum": list(STATES)})
    assigned_to: str | None = Field(description="The assigned officer's username; null: nobody.")


# --- Ledger ---------------------------------------------------------------------------------


class BudgetOut(Schema):
    funder: str
    jurisdiction: str
    fiscal_year: str = Field(pattern=FISCAL_YEAR)
    stream: str
    allocated: Amount
    committed: Amount = Field(
        description="Committed to date: everything promised in agreements, including what was"
        " since claimed or paid. Engagé à ce jour, y compris ce qui a depuis été réclamé ou payé.",
        examples=["5000.00"],
    )
    disbursed: Amount = Field(
        description="Paid to date, less what became owed back. Payé à ce jour, moins ce qui est"
        " devenu à recouvrer.",
        examples=["5000.00"],
    )
    available: Amount


# --- Participants (trainees confirming their participation) ----------------------------------

PARTICIPANT_STATES: tuple[str, ...] = (
    "invited",
    "form_submitted",
    "confirmed",
    "ineligible",
    "withdrawn",
)


class InvitationBody(Schema):
    """Invite one trainee: the link goes to `email`, in `language`, and nowhere else."""

    trainee: int = Field(
        ge=0, description="The trainee's `index` in the application's quote.", examples=[0]
    )
    email: str = Field(max_length=254, examples=["amelie.tremblay@example.com"])
    language: str = Field(json_schema_extra={"enum": ["en", "fr"]}, examples=["fr"])


class ParticipantOut(Schema):
    id: int
    application: int
    trainee: int
    state: str = Field(json_schema_extra={"enum": list(PARTICIPANT_STATES)})
    email: str
    language: str
    invited_at: dt.datetime
    submitted_at: dt.datetime | None
    link_expires_at: dt.datetime | None = Field(description="When the live link expires.")
    link_expired: bool
    ineligible_reason: str | None = Field(examples=["EMPLOYED_BEFORE_TRAINING"])
    masked_sin: str | None = Field(pattern=r"^\*\*\*-\*\*\*-\d{3}$", examples=["***-***-544"])
    funded_elsewhere: Amount | None = Field(
        description="Government money the same person (same SIN) got in other approved files "
        "of the fiscal year; shown to the back office only."
    )


class ParticipantList(Schema):
    application: int
    participants_by: dt.date | None = Field(description="When every trainee must have answered.")
    items: list[ParticipantOut]


class EmptyBody(Schema):
    """No field is read: send {} or no body at all."""
