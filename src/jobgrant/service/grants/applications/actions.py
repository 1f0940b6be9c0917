"""Every change to an application: one function, one transaction, its audit entry and postings.

Views and API handlers call these; they never save models themselves. Refusals raise
ServiceError; a 403 or 404 is recorded in the audit trail in a transaction of its own (the
refused action itself writes nothing; audit/actions.py).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, NamedTuple, ParamSpec, TypeVar

from django.db import connection, transaction
from django.utils import timezone

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.anchors import anchored
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import ServiceError, not_found
from jobgrant.service.grants.agreements.actions import Recipient, issue_agreement
from jobgrant.service.grants.applications import declarations, service_standards
from jobgrant.service.grants.applications import messages as application_messages
from jobgrant.service.grants.applications import partners as partner_actions
from jobgrant.service.grants.applications.service_standards import Standard
from jobgrant.service.grants.applications.training_dates import check_training_dates
from jobgrant.service.grants.core import access
from jobgrant.service.grants.core.budget_refusals import budget_refusal
from jobgrant.service.grants.core.evaluation_answers import check_evaluation_answers
from jobgrant.service.grants.core.input import ReasonRule, checked_reason
from jobgrant.service.grants.core.quoting import (
    Quoted,
    checked_employers,
    employer_cap_may_apply,
    kernel_request,
    policy_version,
    quote_checked,
    run_quote,
)
from jobgrant.service.grants.core.workflow import IllegalTransition, target_of
from jobgrant.service.grants.integrity import actions as integrity
from jobgrant.service.grants.models.agreements import Agreement, AgreementState
from jobgrant.service.grants.models.applications import (
    Application,
    ApplicationEmployer,
    FormDraft,
    Program,
    State,
    StateChange,
    Stream,
)
from jobgrant.service.grants.ranking.decisions import (
    PLACE_COLUMNS,
    PLACE_JOINS,
    Place,
    check_decision_follows_rank,
)
from jobgrant.service.language import current_language
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount, Funder
from jobgrant.service.refusals import illegal_transition, refused
from jobgrant.service.registry.models import Employer, Verification

P = ParamSpec("P")
R = TypeVar("R")


def _summary(application: Application) -> dict[str, Any]:
    """What the audit trail keeps of an application: no personal information."""
    return {
        "state": application.state,
        "jurisdiction": application.jurisdiction,
        "fiscal_year": application.fiscal_year,
        "federal_cents": application.federal_cents,
        "provincial_cents": application.provincial_cents,
        "employer_cents": application.employer_cents,
    }


@audited_refusals_of("application")
def create_application(user: User, payload: Any, *, today: dt.date | None = None) -> Application:
    """Quote and save a draft application for employers the user acts for, with its
    declarations when the body has them (checked whole before anything is written)."""
    access.require_role(user, Role.EMPLOYER)
    received = today or timezone.localdate()
    payload, declared = declarations.declaration_of(payload)
    employers = checked_employers(payload)
    access.check_employer_may_act(user, employers[0])
    quoted = quote_checked(payload, employers, received, explain=True)
    counterfactual = check_evaluation_answers(payload)
    with transaction.atomic():
        application = _save_draft(user, payload, employers, quoted, received)
        if counterfactual:
            application.counterfactual = counterfactual
            application.save(update_fields=["counterfactual"])
        partner_actions.ask_partners(user, application)
        record(
            user.username,
            "application.create",
            "application",
            application.pk,
            _summary(application),
        )
        if declared is not None:
            declarations.save_declaration(user, application, declared)
    return application


def _save_draft(
    user: User,
    payload: dict[str, Any],
    employers: list[Any],
    quoted: Quoted,
    received: dt.date,
) -> Application:
    """The draft, made to the stream of the intake the quote was for (chosen or the only one
    open on `received`: grants.core.streams)."""
    program, result, intake = quoted.program, quoted.result, quoted.intake
    totals = result["totals"]
    application = Application.objects.create(
        stream=intake.stream,
        intake=intake,
        jurisdiction=program.jurisdiction,
        fiscal_year=result["fiscal_year"],
        delivery=result["delivery"],
        created_by=user,
        received_on=received,
        request=payload,
        policy=result["policy"],
        policy_version=policy_version(),
        quote={k: v for k, v in result.items() if k != "explanation"},
        explanation=result["explanation"],
        eligible=result["eligible"],
        federal_cents=_cents(totals["federal"]),
        provincial_cents=_cents(totals["provincial"]),
        employer_cents=_cents(totals["employer"]),
    )
    for position, (entry, employer, figures) in enumerate(
        zip(payload["employers"], employers, result["employers"], strict=True)
    ):
        government = _cents(figures["federal"]) + _cents(figures["provincial"])
        ApplicationEmployer.objects.create(
            application=application,
            employer=employer,
            reference=entry["id"],
            position=position,
            government_cents=government,
            employees=employer.employees,
        )
    StateChange.objects.create(application=application, to_state=State.DRAFT, actor=user)
    return application


def _cents(amount: str) -> int:
    dollars, _, cents = amount.partition(".")
    return int(dollars) * 100 + int(cents or 0)


class Locked(NamedTuple):
    """What a transition reads with the application's row lock, besides the row itself."""

    before: str  # the state the application was in
    stream_code: str
    program_policy: str
    program_delivery: str
    applicant: Recipient  # whoever made the application: its messages go to them
    place: Place  # its intake's state and selection, and its rank


_APPLICATION = Application._meta.db_table
_LOCK_SQL = (
    'SELECT a."state", a."recommended_by_id", a."decided_by_id", a."decision_reason", s."code",'
    f' p."policy", p."delivery", u."email", u."preferred_language", {PLACE_COLUMNS}'
    f' FROM "{_APPLICATION}" a'
    f' JOIN "{Stream._meta.db_table}" s ON s."id" = a."stream_id"'
    f' JOIN "{Program._meta.db_table}" p ON p."id" = s."program_id"'
    f' JOIN "{User._meta.db_table}" u ON u."id" = a."created_by_id"{PLACE_JOINS}'
    ' WHERE a."id" = %s'
)
_STATE_CHANGE_SQL = (
    f'INSERT INTO "{StateChange._meta.db_table}" ("application_id", "from_state", "to_state",'
    ' "actor_id", "at", "note") VALUES (%s, %s, %s, %s, %s, %s)'
)
# Only what a transition changes: rewriting the stored quote and explanation would cost every
# transition their encoding and, on PostgreSQL, their TOAST and WAL.
_SAVE_SQL = (
    f'UPDATE "{_APPLICATION}" SET "state" = %s, "recommended_by_id" = %s, "decided_by_id" = %s,'
    ' "decision_reason" = %s, "updated_at" = %s WHERE "id" = %s'
)


def _transition(user: User, application: Application, action: str, note: str = "") -> Locked:
    """Lock the row, check the transition, and record the change (caller holds the atomic).

    What a transition may have changed (state, recommender, decider, reason) is read again with
    the lock into `application`, and the stream and program with it; the rest of the row never
    changes once the application is made. Plain statements, as every action runs them."""
    lock = " FOR UPDATE OF a" if connection.features.has_select_for_update_of else ""
    with connection.cursor() as cursor:
        cursor.execute(_LOCK_SQL + lock, [application.pk])
        row = cursor.fetchone()
        if row is None:
            raise not_found()
        before, recommended_by, decided_by, reason, stream, policy, delivery, *more = row
        email, language, *place = more
        application.state, application.decision_reason = before, reason
        application.recommended_by_id, application.decided_by_id = recommended_by, decided_by
        try:
            application.state = target_of(action, before)
        except IllegalTransition as error:
            raise illegal_transition(action, before, State(before).label) from error
        cursor.execute(
            _STATE_CHANGE_SQL,
            [application.pk, before, application.state, user.pk, timezone.now(), note],
        )
    return Locked(before, stream, policy, delivery, Recipient(email, language), Place(*place))


def _save(application: Application) -> None:
    application.updated_at = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            _SAVE_SQL,
            [
                application.state,
                application.recommended_by_id,
                application.decided_by_id,
                application.decision_reason,
                application.updated_at,
                application.pk,
            ],
        )


def _finish(user: User, application: Application, action: str, **also: str) -> Application:
    _save(application)
    return _audit(user, application, action, **also)


def _audit(user: User, application: Application, action: str, **also: str) -> Application:
    """Record the transition; `also` adds what the auditor needs besides the figures (the
    reason for a denial or a withdrawal)."""
    summary = {**_summary(application), **also}
    record(user.username, f"application.{action}", "application", application.pk, summary)
    return application


@audited_refusals_of("application")
def submit_application(user: User, application: Application, declared: Any = None) -> Application:
    """Submit a draft; its declarations are required, made before or given here (`declared`,
    the body's object, replaces those made before)."""
    access.check_applicant(user, application)
    checked = None if declared is None else declarations.checked_declaration(declared)
    with transaction.atomic():
        locked = _transition(user, application, "submit")
        if checked is not None:
            declarations.save_declaration(user, application, checked)
        declarations.check_declared(application)
        check_organizations_verified(application)
        # After the row lock: a partner's answer and this submission cannot cross.
        partner_actions.check_partners_consented(application)
        integrity.raise_on_submission(user.username, application)  # shown to the officers
        application_messages.application_received(application, locked.applicant)
        _start_the_decision_clock(application, locked)
        return _finish(user, application, "submit")


def _start_the_decision_clock(application: Application, locked: Locked) -> None:
    """Store the day the decision is due (the queue sorts by it): the standard in force today,
    where the file is, counted from today, the day it was received."""
    place = service_standards.place_of(application, locked.program_policy)
    today = timezone.localdate()
    terms = service_standards.terms_of(Standard.DECIDE, place, today)
    application.decide_by = service_standards.due_on(terms, application.jurisdiction, today)
    Application.objects.filter(pk=application.pk).update(decide_by=application.decide_by)


def check_organizations_verified(application: Application) -> None:
    """Refuse (403) to submit while an organization the application names is not verified
    (people/organization_verification.py): unverified or refused, or disputed."""
    waiting = [
        link.employer
        for link in application.employers.select_related("employer").order_by("position")
        if link.employer.verification != Verification.VERIFIED
    ]
    if not waiting:
        return
    disputed = [e for e in waiting if e.verification == Verification.DISPUTED]
    named = disputed or waiting
    shown = ", ".join(f"{e.name} ({e.business_number})" for e in named)
    code = "ORGANIZATION_DISPUTED" if disputed else "ORGANIZATION_NOT_VERIFIED"
    raise refused(
        403,
        code,
        lambda: {"organizations": shown},
        extra={"organizations": [e.business_number for e in named]},
    )


@audited_refusals_of("application")
def recommend_application(user: User, application: Application, note: str = "") -> Application:
    """Recommend for approval; what is not eligible is refused (409, with its reasons)."""
    access.check_officer(user, application)
    with transaction.atomic():
        locked = _transition(user, application, "recommend", note)
        integrity.check_none_open(application)  # each flag cleared with a reason first
        check_training_dates(application)
        # Refused here, the whole transaction rolls back: the state change is not kept either.
        _refuse_if_ineligible(application, locked)
        application.recommended_by = user
        return _finish(user, application, "recommend", **anchored(note))


@audited_refusals_of("application")
def approve_application(user: User, application: Application, note: str = "") -> Application:
    """Approve and commit the government shares against their budgets, all or nothing.

    Separation of duties is checked on the recommender read with the row lock: a
    recommendation by the same officer that commits while this approval waits for the lock is
    seen, and refused (403, audited), never left to the database's constraint (a 500)."""
    access.check_officer(user, application)
    with transaction.atomic():
        locked = _transition(user, application, "approve", note)
        access.check_not_recommender(user, application)
        check_training_dates(application)  # the agreement is dated from them: never a 500
        _refuse_if_ineligible(application, locked)
        ranked = check_decision_follows_rank(application, "approve", locked.place)
        application.decided_by = user
        _save(application)
        issued = issue_agreement(application, user, locked.applicant)  # in this transaction
        # The budget rows and the audit head are what every approval waits for: lock them last,
        # so that they are held only for the commitments, the two audit entries and the end of
        # the transaction.
        _commit_shares(application, locked.stream_code, user)
        issued.record()
        return _audit(user, application, "approve", **anchored(note), **ranked)


def _refuse_if_ineligible(application: Application, locked: Locked) -> None:
    """Refuse unless the application is still eligible today.

    The stored quote stands when nothing it was decided on can have changed: it was eligible,
    the program still uses the same policy and delivery, the rules files are the same, and the
    policy sets no per-employer cap here (the request and the application date are stored).
    Otherwise the employers' rows are locked first, so two approvals for the same employer are
    decided one after the other, and the quote is run again with what each employer has been
    approved so far this fiscal year (a per-employer cap may have filled up since).
    """
    if _stored_quote_stands(application, locked):
        return
    links = list(application.employers.select_related("employer").order_by("employer_id"))
    Employer.objects.select_for_update().filter(pk__in=[link.employer_id for link in links]).count()
    ordered = sorted(links, key=lambda link: link.position)
    request = kernel_request(
        application.request,
        [link.employer for link in ordered],
        application.stream.program,
        application.received_on,
    )
    fresh = run_quote(request, explain=False)
    if not fresh["eligible"]:
        raise _not_eligible(fresh["reasons"], locked.before)


def _not_eligible(reasons: list[dict[str, Any]], state: str) -> ServiceError:
    """The refusal, naming each reason in both languages (and its code, for programs)."""
    codes = [reason["code"] for reason in reasons]

    def named() -> dict[str, str]:
        key = f"message_{current_language()}"
        return {"reasons": " ".join(reason[key] for reason in reasons)}

    return refused(409, "NOT_ELIGIBLE", named, extra={"state": state, "reasons": codes})


def _stored_quote_stands(application: Application, locked: Locked) -> bool:
    region = application.request.get("region") if isinstance(application.request, dict) else None
    return (
        application.eligible
        and application.policy == locked.program_policy
        and application.delivery == locked.program_delivery
        and application.policy_version == policy_version()
        and not employer_cap_may_apply(
            locked.program_policy,
            application.jurisdiction,
            region if isinstance(region, str) else None,
            application.received_on,
        )
    )


def _shares(application: Application) -> list[tuple[str, int]]:
    """The government shares to commit, federal first (every approval locks in that order)."""
    shares = [
        (Funder.FEDERAL, application.federal_cents),
        (Funder.PROVINCIAL, application.provincial_cents),
    ]
    return [(str(funder), cents) for funder, cents in shares if cents > 0]


def _government_shares(
    application: Application, stream: str
) -> list[tuple[BudgetAccount | None, int]]:
    return [
        (
            BudgetAccount.objects.filter(
                funder=funder,
                jurisdiction=application.jurisdiction,
                fiscal_year=application.fiscal_year,
                stream=stream,
            ).first(),
            cents,
        )
        for funder, cents in _shares(application)
    ]


def _commit_shares(application: Application, stream: str, user: User) -> None:
    pool = operations.Pool(application.jurisdiction, application.fiscal_year, stream)
    try:
        operations.commit_shares(
            pool, _shares(application), actor=user.username, application=application
        )
    except (operations.NoBudget, operations.InsufficientBudget) as error:
        raise budget_refusal(error, application, State.RECOMMENDED) from None


#: Why an officer denies an application: sent to the applicant, so it never holds a SIN (no
#: maximum: the decision keeps whatever the officer wrote).
DENIAL_REASON = ReasonRule(
    None,
    missing=("is required to deny", "est obligatoire pour refuser"),
    holds_sin=(
        "must not contain a social insurance number: it is sent to the applicant",
        "ne doit pas contenir de numéro d'assurance sociale : il est envoyé au demandeur",
    ),
)


@audited_refusals_of("application")
def deny_application(user: User, application: Application, reason: str) -> Application:
    access.check_officer(user, application)
    why = checked_reason(reason, DENIAL_REASON)
    with transaction.atomic():
        locked = _transition(user, application, "deny", reason)
        ranked = check_decision_follows_rank(application, "deny", locked.place)
        application.decided_by, application.decision_reason = user, why
        application_messages.application_denied(application)
        return _finish(user, application, "deny", reason=why, **anchored(reason), **ranked)


@audited_refusals_of("application")
def withdraw_application(user: User, application: Application, note: str = "") -> Application:
    """The applicant withdraws; an approved application gives its commitments back."""
    access.check_applicant(user, application)
    with transaction.atomic():
        if Agreement.objects.filter(
            application_id=application.pk,
            state__in=(AgreementState.COMPLETED, AgreementState.CLOSED),
        ).exists():
            raise refused(409, "FILE_COMPLETED")  # its money was paid: nothing to give back
        locked = _transition(user, application, "withdraw", note)
        if locked.before == State.APPROVED:
            for account, cents in _government_shares(application, locked.stream_code):
                if account is not None:
                    operations.release(account, cents, actor=user.username, application=application)
        return _finish(
            user, application, "withdraw", **({"reason": note} if note else {}), **anchored(note)
        )


# --- The web form's drafts: what an employer typed, before it is an application ---------------


@audited_refusals_of("formdraft")
def save_form_draft(
    user: User, draft: FormDraft | None, step: str, typed: Any, *, lead: Employer | None = None
) -> FormDraft:
    """Keep what was typed at `step` (unchecked: the draft is checked whenever it is used).
    Drafts are the employer's own notes, so no audit entry is written."""
    access.require_role(user, Role.EMPLOYER)
    if draft is None:
        draft = FormDraft(owner=user, data={})
    elif draft.owner_id != user.pk:
        raise not_found()
    draft.data = {**draft.data, step: typed}
    draft.step = step
    if lead is not None:
        access.check_employer_may_act(user, lead)
        draft.lead = lead
    draft.save()
    return draft


@audited_refusals_of("formdraft")
def delete_form_draft(user: User, draft: FormDraft) -> None:
    if draft.owner_id != user.pk:
        raise not_found()
    draft.delete()
