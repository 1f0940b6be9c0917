"""Every change to a change request: ask for it, approve it, deny it.

One function, one transaction, with its audit entry, its ledger postings and its message (the
outbox row commits with its cause). The agreement's row is locked first, so two requests on one
agreement are decided one after the other (and a unique index keeps one open at a time even so).

What a change does is worked out the same way when it is asked for and when it is approved:
the change is applied to the agreement's request (`change_kinds`), checked by the rules kernel's
reader and quoted again under the agreement's policy. Approving then moves the difference in
government money: more is committed under the no-over-commit rule (BUDGET_EXHAUSTED, and the
whole approval rolls back, when a budget is short), less is released. Each approval makes a new
agreement version (`agreement_actions.new_version`, its due dates worked out again from the new
dates); a change of money or scope (provider, trainees, any money) needs the applicant's
acceptance again (`accept_agreement` on the new version, `agreement_workflow`'s accept_version).
A date change inside the agreement's fiscal year that moves no money is self-service: the service
approves it at once, no officer involved.
"""

from __future__ import annotations

import copy
import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone, translation

from jobgrant.rules.money import format_amount, parse_amount
from jobgrant.rules.requests import InvalidRequestError, parse_quote_request
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.anchors import anchored
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import ServiceError, bad_input, problem
from jobgrant.service.grants.agreements.actions import current_version, new_version
from jobgrant.service.grants.agreements.document import terms_of
from jobgrant.service.grants.burden import actions as burden
from jobgrant.service.grants.changes.kinds import Proposal, kernel_problems, propose
from jobgrant.service.grants.changes.refusals import change_not_found, illegal_change_transition
from jobgrant.service.grants.changes.workflow import IllegalChangeTransition, target_of
from jobgrant.service.grants.core import access
from jobgrant.service.grants.core.budget_refusals import budget_refusal
from jobgrant.service.grants.core.input import ReasonRule, checked_reason
from jobgrant.service.grants.core.quoting import kernel_request, policy_version, run_quote
from jobgrant.service.grants.models.agreements import Agreement, AgreementState, AgreementVersion
from jobgrant.service.grants.models.applications import Application, ApplicationEmployer
from jobgrant.service.grants.models.burden import BurdenStep
from jobgrant.service.grants.models.changes import ChangeKind, ChangeRequest, ChangeState
from jobgrant.service.grants.models.claims import UNDER_ASSESSMENT, Claim
from jobgrant.service.language import language_of, localized
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount, Funder
from jobgrant.service.links import page_link
from jobgrant.service.notifications.outbox import enqueue
from jobgrant.service.refusals import refused

NOTE_MAX = 4000
#: An officer's reason to approve (optional) or deny (required) a change; the employer reads it.
DECISION_REASON = ReasonRule(
    NOTE_MAX, missing=("is required to deny", "est obligatoire pour refuser")
)
#: The agreement's states in which a change can be asked for and approved.
CHANGEABLE = frozenset({AgreementState.ACCEPTED, AgreementState.ACTIVE})
#: Kinds that change the agreement's scope: the applicant accepts the new version again.
SCOPE_KINDS = frozenset({ChangeKind.PROVIDER, ChangeKind.TRAINEES, ChangeKind.COST_REALLOCATION})
FUNDERS = (Funder.FEDERAL, Funder.PROVINCIAL)  # every approval locks budgets in this order
MONEY = ("federal", "provincial", "employer")


@dataclass(frozen=True)
class Preview:
    """What a change would do, worked out and checked, nothing written."""

    proposal: Proposal
    request: dict[str, Any]  # the agreement's request after the change
    quote: dict[str, Any]  # the rules kernel's quote of it
    figures: dict[str, dict[str, int]]  # {"before": {federal, provincial, employer}, "after"}

    @property
    def moves_money(self) -> bool:
        return self.figures["before"] != self.figures["after"]

    @property
    def needs_acceptance(self) -> bool:
        return self.proposal.kind in SCOPE_KINDS or self.moves_money


def claim_under_assessment(agreement: Agreement) -> bool:
    """Whether a claim on the agreement is submitted or under review (then no change may be
    asked for or approved while it is assessed)."""
    return Claim.objects.filter(
        application_id=agreement.application_id, state__in=UNDER_ASSESSMENT
    ).exists()


def current_request(agreement: Agreement) -> dict[str, Any]:
    """The agreement's request as in force: the last approved change's, or the application's."""
    last = (
        ChangeRequest.objects.filter(agreement_id=agreement.pk, state=ChangeState.APPROVED)
        .order_by("-id")
        .values_list("request", flat=True)
        .first()
    )
    found = last if last is not None else agreement.application.request
    return copy.deepcopy(found) if isinstance(found, dict) else {}


def _figures_of(version: AgreementVersion) -> dict[str, int]:
    return {
        "federal": version.federal_cents,
        "provincial": version.provincial_cents,
        "employer": version.employer_cents,
    }


def preview_change(user: User, agreement: Agreement, kind: Any, body: Any) -> Preview:
    """What the change would be, checked as asking for it checks it: ServiceError(422) naming
    each bad field in both languages, 409 when the agreement cannot change or the change would
    make the training ineligible. Writes nothing (the employer's review page shows it)."""
    access.require_role(user, Role.EMPLOYER)
    access.check_applicant(user, agreement.application)
    _refuse_unless_changeable(agreement, current_version(agreement))
    return _worked_out(agreement, kind, body)


def _worked_out(agreement: Agreement, kind: Any, body: Any) -> Preview:
    application = agreement.application
    version = current_version(agreement)
    proposal = propose(kind, body, current_request(agreement), application.fiscal_year)
    quote = _requote(application, version.policy, proposal)
    if not quote["eligible"]:
        raise _not_eligible(quote["reasons"])
    after = {key: _cents(quote["totals"][key]) for key in MONEY}
    figures = {"before": _figures_of(version), "after": after}
    return Preview(proposal, proposal.request, quote, figures)


def _requote(application: Application, policy: str, proposal: Proposal) -> dict[str, Any]:
    """The new request quoted under the agreement's policy, as approval quotes: with what each
    employer was approved this fiscal year, less this agreement's own money (already counted)."""
    links = list(application.employers.select_related("employer").order_by("position"))
    program = application.stream.program
    request = kernel_request(
        proposal.request, [link.employer for link in links], program, application.received_on
    )
    request["policy"] = policy
    for entry, link in zip(request["employers"], links, strict=True):
        others = _cents(entry["approved_this_fiscal_year"]) - link.government_cents
        entry["approved_this_fiscal_year"] = _amount(max(others, 0))
    try:
        parse_quote_request(request)
    except InvalidRequestError as error:
        raise kernel_problems(error, proposal) from None
    return run_quote(request, explain=False)


def _not_eligible(reasons: list[dict[str, Any]]) -> ServiceError:
    codes = [reason["code"] for reason in reasons]

    def named() -> dict[str, str]:
        return {"reasons": " ".join(localized(reason) or reason["code"] for reason in reasons)}

    return refused(409, "CHANGE_NOT_ELIGIBLE", named, extra={"reasons": codes})


# --- Asking for a change -----------------------------------------------------------------------


@audited_refusals_of("agreement")
def request_change(
    user: User, agreement: Agreement, kind: Any, body: Any, *, today: dt.date | None = None
) -> ChangeRequest:
    """The employer, acting for the applicant, asks for a change of `kind` (`body` as the API
    has it, without `kind`). Refused, writing nothing, when a field is wrong (422, each named),
    when the agreement is not accepted, when another change is open or a claim is under
    assessment (409). A date change that is self-service is approved in the same transaction."""
    access.require_role(user, Role.EMPLOYER)
    access.check_applicant(user, agreement.application)
    note = _note(body)
    with transaction.atomic():
        locked = _lock(agreement)
        version = current_version(locked)
        _refuse_unless_changeable(locked, version)
        _refuse_if_open(locked)
        preview = _worked_out(locked, kind, body)
        change = _create(user, locked, preview, note)
        summary = {**_summary(change), **anchored(note)}  # the note, bound (audit.anchors)
        record(user.username, "change_request.submit", "changerequest", change.pk, summary)
        if preview.proposal.kind == ChangeKind.DATES and not preview.moves_money:
            _approve(change, locked, preview, by=user, decider=None, reason="")
    return change


def _create(user: User, agreement: Agreement, preview: Preview, note: str) -> ChangeRequest:
    """The row; a second open request on the agreement breaks the unique index (two requests
    racing where the row lock cannot serialize them) and is refused as one open already is."""
    try:
        with transaction.atomic():
            return ChangeRequest.objects.create(
                agreement=agreement,
                kind=preview.proposal.kind,
                body=preview.proposal.body,
                diff=preview.proposal.diff,
                figures=preview.figures,
                request=preview.request,
                note=note,
                requested_by=user,
            )
    except IntegrityError:
        _refuse_if_open(agreement)
        raise


def _note(body: Any) -> str:
    note = body.get("note", "") if isinstance(body, dict) else ""
    if not isinstance(note, str):
        raise bad_input([problem("note", "must be text", "doit être du texte")])
    if len(note) > NOTE_MAX:
        raise bad_input(
            [
                problem(
                    "note",
                    f"must have at most {NOTE_MAX} characters",
                    f"doit compter au plus {NOTE_MAX} caractères",
                )
            ]
        )
    return note.strip()


def _lock(agreement: Agreement) -> Agreement:
    locked = (
        Agreement.objects.select_for_update()
        .select_related("application")
        .filter(pk=agreement.pk)
        .first()
    )
    if locked is None:
        raise change_not_found()
    return locked


def _refuse_unless_changeable(agreement: Agreement, version: AgreementVersion) -> None:
    if agreement.state not in CHANGEABLE:
        label = AgreementState(agreement.state).label
        raise refused(
            409,
            "AGREEMENT_NOT_CHANGEABLE",
            lambda: {"state": label},
            extra={"state": agreement.state},
        )
    if version.needs_acceptance and version.accepted_at is None:
        label = AgreementState.ISSUED.label
        raise refused(
            409,
            "AGREEMENT_NOT_CHANGEABLE",
            lambda: {"state": label},
            extra={"state": AgreementState.ISSUED},
        )
    if claim_under_assessment(agreement):
        raise refused(409, "CLAIM_UNDER_ASSESSMENT", extra={"state": agreement.state})


def _refuse_if_open(agreement: Agreement) -> None:
    open_one = (
        ChangeRequest.objects.filter(agreement_id=agreement.pk, state=ChangeState.SUBMITTED)
        .values_list("pk", flat=True)
        .first()
    )
    if open_one is not None:
        raise refused(
            409,
            "CHANGE_ALREADY_OPEN",
            lambda: {"id": open_one},
            extra={"state": str(ChangeState.SUBMITTED), "open": open_one},
        )


# --- Deciding ----------------------------------------------------------------------------------


@audited_refusals_of("changerequest")
def approve_change(user: User, change: ChangeRequest, reason: str = "") -> ChangeRequest:
    """An officer who covers the file, not affiliated with its employers and not the requester,
    approves: the change is worked out again, its money committed or released, and a new
    agreement version made, all or nothing."""
    why = checked_reason(reason, DECISION_REASON, required=False)
    with transaction.atomic():
        locked, agreement = _lock_change(user, change, "approve_change")
        _refuse_unless_changeable(agreement, current_version(agreement))
        preview = _worked_out(agreement, locked.kind, {**locked.body, "kind": locked.kind})
        _approve(locked, agreement, preview, by=user, decider=user, reason=why)
    return _refreshed(change, locked)


@audited_refusals_of("changerequest")
def deny_change(
    user: User, change: ChangeRequest, reason: str, *, missing_information: bool = False
) -> ChangeRequest:
    """An officer denies, with the reason the employer reads; nothing else changes. Denied
    because information is missing: the request counts as sent back (the burden meter)."""
    why = checked_reason(reason, DECISION_REASON)
    with transaction.atomic():
        locked, agreement = _lock_change(user, change, "deny_change")
        locked.state = ChangeState.DENIED
        locked.decided_by, locked.decided_at, locked.reason = user, timezone.now(), why
        locked.save(update_fields=["state", "decided_by", "decided_at", "reason"])
        summary = _summary(locked)
        if missing_information:
            summary["missing_information"] = True
            burden.sent_back(BurdenStep.CHANGE, agreement.application_id, locked.pk)
        record(user.username, "change_request.deny", "changerequest", locked.pk, summary)
        _tell("change_denied", locked, agreement)
    return _refreshed(change, locked)


def _lock_change(user: User, change: ChangeRequest, action: str) -> tuple[ChangeRequest, Agreement]:
    """The agreement's row, then the change's, locked; the officer's checks; the transition."""
    application = change.agreement.application
    access.check_officer(user, application)
    agreement = _lock(change.agreement)
    locked = ChangeRequest.objects.select_for_update().filter(pk=change.pk).first()
    if locked is None:
        raise change_not_found()
    if locked.requested_by_id == user.pk:
        raise refused(403, "REQUESTER_DECIDES")
    try:
        target_of(action, locked.state)
    except IllegalChangeTransition:
        label = ChangeState(locked.state).label
        raise illegal_change_transition(action, locked.state, label) from None
    return locked, agreement


def _approve(
    change: ChangeRequest,
    agreement: Agreement,
    preview: Preview,
    *,
    by: User,
    decider: User | None,
    reason: str,
) -> None:
    """Approve `change` (caller holds the atomic and the locks): the money, the version, the
    application's figures, the audit entry and the message."""
    application = Application.objects.select_for_update().get(pk=agreement.application_id)
    moved = _move_money(application, preview, by)
    _save_figures(application, preview)
    version = new_version(
        agreement,
        by=by,
        changes=_terms(application, preview),
        reason=_version_reason(change, reason),
        needs_acceptance=preview.needs_acceptance,
    )
    change.state = target_of("approve_change", change.state)
    change.decided_by, change.decided_at, change.reason = decider, timezone.now(), reason
    change.self_service = decider is None
    change.needs_acceptance = preview.needs_acceptance
    change.diff, change.figures, change.request = (
        preview.proposal.diff,
        preview.figures,
        preview.request,
    )
    change.version = version
    change.save()
    actor = by.username
    summary = {**_summary(change), "version": version.number, **moved}
    record(actor, "change_request.approve", "changerequest", change.pk, summary)
    _tell("change_approved", change, agreement)


def _move_money(application: Application, preview: Preview, by: User) -> dict[str, int]:
    """Commit what the change adds per funder, under the no-over-commit rule, and release what
    it takes away; returns the cents moved per funder (+ committed, - released)."""
    before, after = preview.figures["before"], preview.figures["after"]
    deltas = [(str(funder), after[str(funder)] - before[str(funder)]) for funder in FUNDERS]
    stream = application.stream.code
    pool = operations.Pool(application.jurisdiction, application.fiscal_year, stream)
    more = [(funder, cents) for funder, cents in deltas if cents > 0]
    if more:
        try:
            operations.commit_shares(pool, more, actor=by.username, application=application)
        except (operations.NoBudget, operations.InsufficientBudget) as error:
            raise budget_refusal(error, application, ChangeState.SUBMITTED) from None
    for funder, cents in deltas:
        if cents < 0:
            account = BudgetAccount.objects.get(
                funder=funder,
                jurisdiction=application.jurisdiction,
                fiscal_year=application.fiscal_year,
                stream=stream,
            )
            operations.release(account, -cents, actor=by.username, application=application)
    return {f"{funder}_moved_cents": cents for funder, cents in deltas if cents}


def _save_figures(application: Application, preview: Preview) -> None:
    """The application's approved money follows the agreement in force: what a withdrawal or an
    offer's end gives back, and what counts against each employer's yearly cap."""
    after = preview.figures["after"]
    Application.objects.filter(pk=application.pk).update(
        federal_cents=after["federal"],
        provincial_cents=after["provincial"],
        employer_cents=after["employer"],
        updated_at=timezone.now(),
    )
    application.federal_cents = after["federal"]
    application.provincial_cents = after["provincial"]
    application.employer_cents = after["employer"]
    figures = {row["id"]: row for row in preview.quote["employers"]}
    for link in ApplicationEmployer.objects.filter(application=application):
        row = figures.get(link.reference)
        if row is not None:
            government = _cents(row["federal"]) + _cents(row["provincial"])
            if government != link.government_cents:
                ApplicationEmployer.objects.filter(pk=link.pk).update(government_cents=government)


def _terms(application: Application, preview: Preview) -> dict[str, Any]:
    """The new version's terms, read from the new request and quote as version 1's were."""
    shown = copy.copy(application)
    shown.request = preview.request
    shown.quote = {k: v for k, v in preview.quote.items() if k != "explanation"}
    terms = terms_of(shown)
    terms["policy"] = preview.quote["policy"]
    terms["policy_version"] = policy_version()
    return terms


def _version_reason(change: ChangeRequest, reason: str) -> str:
    label = ChangeKind(change.kind).label
    with translation.override("en"):
        text = f"Change request {change.pk} ({label})"
    return f"{text}: {reason}" if reason else text


def _refreshed(change: ChangeRequest, locked: ChangeRequest) -> ChangeRequest:
    for field in (
        "state",
        "decided_by",
        "decided_at",
        "reason",
        "self_service",
        "needs_acceptance",
        "version",
        "diff",
        "figures",
        "request",
    ):
        setattr(change, field, getattr(locked, field))
    return change


def _summary(change: ChangeRequest) -> dict[str, Any]:
    """What the audit trail keeps of a change: its kind, state and figures (no trainee's
    details: the diff stays in the change's row)."""
    return {
        "agreement": change.agreement_id,
        "kind": change.kind,
        "state": change.state,
        "fields": sorted({entry["field"] for entry in change.diff}),
        "figures": change.figures,
        "self_service": change.self_service,
        **({"reason": change.reason} if change.reason else {}),
    }


def _tell(kind: str, change: ChangeRequest, agreement: Agreement) -> None:
    """Queue `kind` to the person who made the application, in their language."""
    person = User.objects.get(pk=agreement.application.created_by_id)
    if "@" not in (person.email or ""):
        return
    language = language_of(person)
    link = page_link("web:employer-change", language, change.pk)
    with translation.override(language):
        what = str(ChangeKind(change.kind).label)
    version = change.version.number if change.version else 0
    context: dict[str, str | int] = {
        "reference": agreement.application_id,
        "change": change.pk,
        "kind": what,
        "reason": change.reason,
        "link": link,
        "version": version,
        "needs_acceptance": "yes" if change.needs_acceptance else "",
        "self_service": "yes" if change.self_service else "",
    }
    enqueue(kind, subject=change, to=person.email, language=language, context=context)


def _cents(text: str) -> int:
    return parse_amount(str(text))


def _amount(cents: int) -> str:
    return format_amount(cents)
