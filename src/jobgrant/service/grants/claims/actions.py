"""Every change to a claim: start it, edit it, attach receipts, submit it; the officer's
assessment (return, deny, approve = certify under s.34).

One function, one transaction, with its audit entry, its ledger movements and its message (the
outbox row commits with its cause). The application's row is locked first, so the claims of one
file are changed one after the other: two submissions of one claim make one effect, the second
finding it submitted already (409).

The ledger follows the claim, per funder: submitting moves its
government money from the commitment to claimed (`claim`); returning or denying moves it back
(`unclaim`); approving makes the approved part payable and gives the rest back
(`approve_claim`). An amendment claims only what it asks above the version it amends; when it is
approved below that version, the unpaid difference goes back to the commitment
(`lower_approval`) and anything already paid above the new figure is left to recovery
(`grants.recovery_hooks.overpaid`). Approving a final claim releases
what the agreement committed and no claim used (`release_unused_commitment`).

The employer's side is here; the officer's is in `claim_assessment_actions` and the ledger's
movements in `claim_ledger_actions` (both answered from here too).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.agreements.actions import current_version
from jobgrant.service.grants.agreements.workflow import agreement_target_of
from jobgrant.service.grants.changes.actions import current_request
from jobgrant.service.grants.claims.figures import FUNDERS, Figures, LineIn, agreed_lines, work_out
from jobgrant.service.grants.claims.input import LineBody, claim_lines, is_final
from jobgrant.service.grants.claims.ledger import amended_shares, ledger_claim
from jobgrant.service.grants.claims.receipts import CheckedFile, invoice_number, max_files
from jobgrant.service.grants.claims.refusals import (
    claim_not_found,
    illegal_claim_transition,
    trainee_list,
)
from jobgrant.service.grants.claims.workflow import IllegalClaimTransition, target_of
from jobgrant.service.grants.core import access
from jobgrant.service.grants.integrity.actions import raise_for_receipts
from jobgrant.service.grants.models.agreements import Agreement, AgreementState
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.claims import Claim, ClaimLine, ClaimShare, ClaimState, Receipt
from jobgrant.service.grants.models.participants import Participant, ParticipantState
from jobgrant.service.grants.participants.workflow import CONFIRMED_SLOTS
from jobgrant.service.refusals import refused

CLAIMABLE = frozenset({AgreementState.ACCEPTED, AgreementState.ACTIVE})
OPEN = frozenset(
    {ClaimState.DRAFT, ClaimState.SUBMITTED, ClaimState.UNDER_REVIEW, ClaimState.RETURNED}
)
EDITABLE = frozenset({ClaimState.DRAFT, ClaimState.RETURNED})


# --- Locks and checks --------------------------------------------------------------------------


def _lock_application(application_id: int) -> Application:
    found = (
        Application.objects.select_for_update(of=("self",))
        .select_related("stream", "stream__program")
        .filter(pk=application_id)
        .first()
    )
    if found is None:
        raise claim_not_found()
    return found


def lock_claim(claim: Claim) -> tuple[Application, Claim]:
    application = _lock_application(claim.application_id)
    locked = Claim.objects.select_for_update().filter(pk=claim.pk).first()
    if locked is None:
        raise claim_not_found()
    locked.application = application
    return application, locked


def agreement_of(application: Application) -> Agreement:
    agreement = Agreement.objects.filter(application_id=application.pk).first()
    if agreement is None:
        raise refused(409, "AGREEMENT_NOT_CLAIMABLE", lambda: {"state": "—"}, extra={})
    agreement.application = application
    return agreement


def _refuse_unless_claimable(agreement: Agreement, today: dt.date) -> None:
    version = current_version(agreement)
    accepted = not version.needs_acceptance or version.accepted_at is not None
    if agreement.state not in CLAIMABLE or not accepted:
        state = agreement.state if accepted else AgreementState.ISSUED
        label = AgreementState(state).label
        raise refused(
            409, "AGREEMENT_NOT_CLAIMABLE", lambda: {"state": label}, extra={"state": state}
        )
    start = dt.date.fromisoformat(version.schedule["start_date"])
    if today < start:
        raise refused(
            409,
            "CLAIM_BEFORE_TRAINING",
            lambda: {"date": start.isoformat()},
            extra={"start_date": start.isoformat()},
        )


def move(claim: Claim, action: str) -> None:
    try:
        claim.state = target_of(action, claim.state)
    except IllegalClaimTransition:
        raise illegal_claim_transition(claim.state, ClaimState(claim.state).label) from None


def _check_employer(user: User, application: Application) -> None:
    access.require_role(user, Role.EMPLOYER)
    access.check_applicant(user, application)


def check_assessor(user: User, application: Application) -> None:
    """An officer who covers the file, with no tie to its employers, to whom it is assigned."""
    access.require_role(user, Role.OFFICER)
    access.check_officer(user, application)
    if application.assigned_to_id != user.pk:
        raise refused(403, "CLAIM_NOT_ASSIGNED")


def _today() -> dt.date:
    return timezone.localdate()


def summary(claim: Claim, **also: Any) -> dict[str, Any]:
    """What the audit trail keeps of a claim: its number, version, state and money (no trainee's
    details: those stay in the claim's rows)."""
    shares = {s.funder: s for s in claim.shares.all()} if claim.pk else {}
    return {
        "application": claim.application_id,
        "number": claim.number,
        "version": claim.version,
        "state": claim.state,
        "is_final": claim.is_final,
        "claimed_cents": claim.claimed_cents,
        **{f"{f}_claimed_cents": shares[f].claimed_cents for f in shares},
        **{
            f"{f}_approved_cents": shares[f].approved_cents
            for f in shares
            if shares[f].approved_cents is not None
        },
        **also,
    }


# --- The employer's side -----------------------------------------------------------------------


@audited_refusals_of("application")
def start_claim(user: User, application: Application, body: dict[str, Any]) -> Claim:
    """A new draft claim on an accepted agreement, from the training's start: its lines as
    given, else the agreement's lines not yet approved for each confirmed trainee. With
    `amends` (an approved claim's id), a new version of that claim, from its approved lines."""
    _check_employer(user, application)
    final = is_final(body, False)
    amends_id = body.get("amends")
    lines = claim_lines(body, application.pk) if "lines" in body else None
    with transaction.atomic():
        locked = _lock_application(application.pk)
        agreement = agreement_of(locked)
        _refuse_unless_claimable(agreement, _today())
        _refuse_if_open(locked)
        if amends_id is not None:
            claim = _new_amendment(user, locked, agreement, amends_id, final)
        else:
            claim = _new_claim(user, locked, agreement, final)
        defaults = _default_lines(claim, agreement) if lines is None else []
        if lines is None and not defaults and amends_id is None:
            _refuse_if_none_confirmed(locked, agreement)
        _set_lines(claim, lines if lines is not None else defaults)
        _refuse_unconfirmed(claim)
        record(user.username, "claim.start", "claim", claim.pk, summary(claim))
    return claim


def unconfirmed_trainees(application: Application) -> list[dict[str, Any]]:
    """The agreement's trainees whose participation is not confirmed (invited and waiting, or
    not invited yet), each with their number and name: nothing can be claimed for them."""
    agreement = Agreement.objects.filter(application_id=application.pk).first()
    if agreement is None:
        return []
    positions = sorted({position for position, _ in agreed_lines(current_version(agreement))})
    slots = {
        slot.position: slot
        for slot in Participant.objects.filter(application_id=application.pk).exclude(
            state=ParticipantState.WITHDRAWN
        )
    }
    waiting = []
    for position in positions:
        slot = slots.get(position)
        if slot is not None and slot.state in CONFIRMED_SLOTS | {ParticipantState.INELIGIBLE}:
            continue
        name = f"{slot.given_name} {slot.family_name}".strip() or slot.email if slot else ""
        waiting.append({"trainee": position + 1, "name": name, "invited": slot is not None})
    return waiting


def _refuse_if_none_confirmed(application: Application, agreement: Agreement) -> None:
    """A claim that would start empty because no trainee is confirmed is refused before it is
    made, naming who must confirm first and how."""
    waiting = unconfirmed_trainees(application)
    if not waiting:
        return
    named = [(row["trainee"], row["name"]) for row in waiting]

    def values() -> dict[str, object]:
        return {"trainees": trainee_list(named)}

    raise refused(
        409,
        "NO_TRAINEE_CONFIRMED",
        values,
        extra={"trainees": [row["trainee"] for row in waiting]},
    )


def _refuse_if_open(application: Application) -> None:
    open_one = (
        Claim.objects.filter(application_id=application.pk, state__in=OPEN)
        .values_list("number", flat=True)
        .first()
    )
    if open_one is not None:
        raise refused(
            409, "CLAIM_ALREADY_OPEN", lambda: {"number": open_one}, extra={"number": open_one}
        )


def _new_claim(user: User, application: Application, agreement: Agreement, final: bool) -> Claim:
    approved = Claim.objects.filter(application_id=application.pk, state=ClaimState.APPROVED)
    if approved.filter(is_final=True).exists():
        raise refused(409, "FINAL_CLAIM_MADE")
    last = Claim.objects.filter(application_id=application.pk).aggregate(n=Max("number"))["n"]
    return _create(
        application=application,
        agreement_version=current_version(agreement),
        number=(last or 0) + 1,
        version=1,
        is_final=final,
        created_by=user,
    )


def _new_amendment(
    user: User, application: Application, agreement: Agreement, amends_id: Any, final: bool
) -> Claim:
    amended = (
        Claim.objects.filter(application_id=application.pk, pk=amends_id).first()
        if isinstance(amends_id, int)
        else None
    )
    if amended is None:
        raise claim_not_found()
    if amended.state != ClaimState.APPROVED:
        raise illegal_claim_transition(amended.state, ClaimState(amended.state).label)
    return _create(
        application=application,
        agreement_version=current_version(agreement),
        number=amended.number,
        version=amended.version + 1,
        amends=amended,
        is_final=final or amended.is_final,
        created_by=user,
    )


def _create(**fields: Any) -> Claim:
    """The row; a second open version of the same claim breaks the unique index (two starts
    racing) and is refused as an open claim is."""
    try:
        with transaction.atomic():
            return Claim.objects.create(**fields)
    except IntegrityError:
        _refuse_if_open(fields["application"])
        raise


def _default_lines(claim: Claim, agreement: Agreement) -> list[LineBody]:
    """Version 1: the agreement's lines, less what approved claims have, for each confirmed
    trainee; an amendment: the approved lines of the version it amends."""
    if claim.amends_id:
        return [
            LineBody(line.participant, line.category, line.approved_cents or 0)
            for line in ClaimLine.objects.filter(claim_id=claim.amends_id).select_related(
                "participant"
            )
        ]
    slots = {
        slot.position: slot
        for slot in Participant.objects.filter(
            application_id=claim.application_id, state__in=CONFIRMED_SLOTS
        )
    }
    approved: dict[tuple[int, str], int] = {}
    for line in ClaimLine.objects.filter(
        claim__application_id=claim.application_id, claim__state=ClaimState.APPROVED
    ).select_related("participant"):
        key = (line.participant.position, line.category)
        approved[key] = approved.get(key, 0) + (line.approved_cents or 0)
    return [
        LineBody(slots[position], category, cents - approved.get((position, category), 0))
        for (position, category), cents in agreed_lines(current_version(agreement)).items()
        if position in slots and cents > approved.get((position, category), 0)
    ]


def _set_lines(claim: Claim, lines: list[LineBody]) -> None:
    ClaimLine.objects.filter(claim=claim).delete()
    ClaimLine.objects.bulk_create(
        ClaimLine(
            claim=claim,
            participant=line.participant,
            category=line.category,
            claimed_cents=line.cents,
        )
        for line in lines
    )
    claim.claimed_cents = sum(line.cents for line in lines)
    Claim.objects.filter(pk=claim.pk).update(
        claimed_cents=claim.claimed_cents, updated_at=timezone.now()
    )


def _refuse_unconfirmed(claim: Claim) -> None:
    """A claim for a trainee whose participant form is not confirmed is refused, naming them (a
    line at zero claims nothing, and is let be)."""
    lines = ClaimLine.objects.filter(claim=claim, claimed_cents__gt=0).select_related("participant")
    for line in lines:
        if line.participant.state not in CONFIRMED_SLOTS:
            raise _not_confirmed(line.participant)


def _not_confirmed(slot: Participant) -> ServiceError:
    name = f"{slot.given_name} {slot.family_name}".strip() or slot.email
    named = {"trainee": slot.position + 1, "name": name}
    return refused(
        409,
        "TRAINEE_NOT_CONFIRMED",
        lambda: named,
        extra={"trainee": slot.position + 1, "participant": slot.pk, "state": slot.state},
    )


@audited_refusals_of("claim")
def update_claim(user: User, claim: Claim, body: dict[str, Any]) -> Claim:
    """The employer changes a draft (or a returned claim, which goes back to draft): its lines
    (all of them, replaced) and whether it is the final claim."""
    _check_employer(user, claim.application)
    lines = claim_lines(body, claim.application_id) if "lines" in body else None
    with transaction.atomic():
        _, locked = lock_claim(claim)
        _reopen_or_edit(locked)
        locked.is_final = is_final(body, locked.is_final) or bool(
            locked.amends_id and locked.amends and locked.amends.is_final
        )
        locked.save(update_fields=["state", "is_final", "updated_at"])
        if lines is not None:
            _set_lines(locked, lines)
        _refuse_unconfirmed(locked)
        record(user.username, "claim.edit", "claim", locked.pk, summary(locked))
    return locked


def _reopen_or_edit(claim: Claim) -> None:
    move(claim, "reopen" if claim.state == ClaimState.RETURNED else "edit")


@audited_refusals_of("claim")
def discard_claim(user: User, claim: Claim) -> None:
    """The employer discards a draft never submitted: its lines and receipts go with it (the
    receipts' bytes are deleted from their storage once the transaction commits). A claim once
    submitted stays on the file whatever happens next (409)."""
    _check_employer(user, claim.application)
    with transaction.atomic():
        _, locked = lock_claim(claim)
        if locked.state != ClaimState.DRAFT:
            raise illegal_claim_transition(locked.state, ClaimState(locked.state).label)
        if locked.submitted_at is not None:
            raise refused(409, "CLAIM_ONCE_SUBMITTED", lambda: {"number": locked.number})
        receipts = list(Receipt.objects.filter(claim=locked))
        record(
            user.username,
            "claim.discard",
            "claim",
            locked.pk,
            summary(locked, receipts=[receipt.sha256 for receipt in receipts]),
        )
        stored = [(receipt.file.storage, receipt.file.name or "") for receipt in receipts]
        Receipt.objects.filter(claim=locked).delete()
        locked.delete()

        def delete_files() -> None:
            for storage, name in stored:
                if name:
                    storage.delete(name)

        transaction.on_commit(delete_files)


@audited_refusals_of("claim")
def add_receipts(
    user: User, claim: Claim, files: list[CheckedFile], invoice: object = None
) -> list[Receipt]:
    """Attach receipts (already checked: type from the content, size) to a draft or returned
    claim, at most settings.JOBGRANT_RECEIPTS_MAX_FILES in all, each with the invoice number
    given (optional: the provider's invoice or receipt number; refused, 422, before anything is
    written). The bytes go to the receipts' storage; should the transaction roll back, the
    stored files are deleted again."""
    number = invoice_number(invoice)
    _check_employer(user, claim.application)
    with transaction.atomic():
        _, locked = lock_claim(claim)
        if locked.state not in EDITABLE:
            raise illegal_claim_transition(locked.state, ClaimState(locked.state).label)
        limit = max_files()
        if Receipt.objects.filter(claim=locked).count() + len(files) > limit:
            raise refused(409, "TOO_MANY_RECEIPTS", lambda: {"count": limit}, extra={"max": limit})
        receipts = [_store(user, locked, checked, number) for checked in files]
        for receipt in receipts:
            uploaded = {
                "claim": locked.pk,
                "sha256": receipt.sha256,
                "content_type": receipt.content_type,
                "size": receipt.size,
                **({"invoice_number": receipt.invoice_number} if receipt.invoice_number else {}),
            }
            record(user.username, "receipt.upload", "receipt", receipt.pk, uploaded)
    return receipts


def _store(
    user: User, claim: Claim, checked: CheckedFile, number: tuple[str, str] = ("", "")
) -> Receipt:
    """The bytes into the receipts' storage under the claim's folder and their SHA-256, then the
    row. Bytes stored by a transaction that then rolls back stay behind, unreferenced: never a
    row without its file."""
    receipt = Receipt(
        claim=claim,
        original_name=checked.name,
        content_type=checked.content_type,
        size=checked.size,
        sha256=checked.sha256,
        invoice_number=number[0],
        invoice_key=number[1],
        uploaded_by=user,
    )
    receipt.file.save(checked.sha256, ContentFile(checked.content), save=False)
    receipt.save()
    return receipt


@audited_refusals_of("claim")
def submit_claim(user: User, claim: Claim) -> Claim:
    """The employer submits: every trainee confirmed, something claimed, a receipt attached;
    the figures worked out (shares, then caps) and the government money claimed in the ledger."""
    _check_employer(user, claim.application)
    with transaction.atomic():
        application, locked = lock_claim(claim)
        if locked.state == ClaimState.RETURNED:
            move(locked, "reopen")
        move(locked, "submit")
        agreement = agreement_of(application)
        _refuse_unless_claimable(agreement, _today())
        _refuse_unconfirmed(locked)
        lines = list(ClaimLine.objects.filter(claim=locked).select_related("participant"))
        if not any(line.claimed_cents for line in lines):
            raise refused(409, "NOTHING_CLAIMED")
        if not Receipt.objects.filter(claim=locked).exists():
            raise refused(409, "NO_RECEIPTS")
        locked.agreement_version = current_version(agreement)
        figures = figures_of(
            application, agreement, locked, [line_in(x, x.claimed_cents) for x in lines]
        )
        _save_claimed(locked, figures)
        ledger_claim(application, locked, user)
        if agreement.state == AgreementState.ACCEPTED:
            agreement.state = agreement_target_of("activate", agreement.state)
            agreement.save(update_fields=["state", "updated_at"])
        raise_for_receipts(user.username, locked)  # a receipt used in another file
        record(user.username, "claim.submit", "claim", locked.pk, summary(locked))
    return locked


def line_in(line: ClaimLine, cents: int) -> LineIn:
    return LineIn(line.participant.position, line.category, cents)


def figures_of(
    application: Application, agreement: Agreement, claim: Claim, lines: list[LineIn]
) -> Figures:
    return work_out(
        application,
        claim.agreement_version,
        lines,
        claim=claim,
        request=current_request(agreement),
    )


def figures_json(figures: Figures, lines: list[ClaimLine]) -> dict[str, Any]:
    return {
        "rules_version": figures.rules_version,
        "lines": {
            str(line.pk): figures.lines.get((line.participant.position, line.category), 0)
            for line in lines
        },
        "trainees": [
            {"trainee": position + 1, **money}
            for position, money in sorted(figures.trainees.items())
        ],
        "federal_cents": figures.shares["federal"],
        "provincial_cents": figures.shares["provincial"],
        "employer_cents": figures.employer_cents,
    }


def _save_claimed(claim: Claim, figures: Figures) -> None:
    lines = list(ClaimLine.objects.filter(claim=claim).select_related("participant"))
    claim.submitted_at = timezone.now()
    claim.caps = figures.caps
    claim.figures = figures_json(figures, lines)
    claim.employer_claimed_cents = figures.employer_cents
    claim.save()
    base = amended_shares(claim)
    for funder in FUNDERS:
        cents = figures.shares[funder]
        ClaimShare.objects.update_or_create(
            claim=claim,
            funder=funder,
            defaults={
                "claimed_cents": cents,
                "approved_cents": None,
                "ledger_claimed_cents": max(cents - base.get(funder, 0), 0),
            },
        )
