"""The officer's side of a claim: open the assessment, return it for more information, deny
it, or approve it per line and certify it (s.34). Only the officer the file is assigned to; the
ledger moves in the same transaction (claim_ledger_actions), and the employer is told by email in
their language."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from jobgrant.rules.money import format_money
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.grants.burden import actions as burden
from jobgrant.service.grants.claims.actions import (
    agreement_of,
    check_assessor,
    figures_json,
    figures_of,
    line_in,
    lock_claim,
    move,
    summary,
)
from jobgrant.service.grants.claims.figures import FUNDERS, Figures
from jobgrant.service.grants.claims.input import CLAIM_REASON, decisions
from jobgrant.service.grants.claims.ledger import (
    ledger_approve,
    ledger_unclaim,
    release_unused_commitment,
)
from jobgrant.service.grants.core import access
from jobgrant.service.grants.core.input import checked_reason
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.burden import BurdenStep
from jobgrant.service.grants.models.claims import Claim, ClaimLine, ClaimShare, ClaimState
from jobgrant.service.language import language_of
from jobgrant.service.links import page_link
from jobgrant.service.notifications.outbox import enqueue

# --- The officer's side ------------------------------------------------------------------------


def _lock_for_assessment(user: User, claim: Claim) -> tuple[Application, Claim]:
    """The locks and the officer's checks; a submitted claim goes under review first."""
    access.require_role(user, Role.OFFICER)
    access.check_officer(user, claim.application)
    application, locked = lock_claim(claim)
    check_assessor(user, application)
    if locked.state == ClaimState.SUBMITTED:
        move(locked, "review")
    return application, locked


@audited_refusals_of("claim")
def review_claim(user: User, claim: Claim) -> Claim:
    """The assigned officer opens the assessment of a submitted claim (it is then under review)."""
    with transaction.atomic():
        _, locked = lock_claim(claim)
        check_assessor(user, locked.application)
        move(locked, "review")
        locked.save(update_fields=["state", "updated_at"])
        record(user.username, "claim.review", "claim", locked.pk, summary(locked))
    return locked


@audited_refusals_of("claim")
def return_claim(user: User, claim: Claim, why: Any) -> Claim:
    """Back to the employer for more information (the reason says what): its money goes back
    to the commitment until it is submitted again."""
    text = checked_reason(why, CLAIM_REASON)
    return _close(user, claim, "return", text, "claim_returned")


@audited_refusals_of("claim")
def deny_claim(user: User, claim: Claim, why: Any) -> Claim:
    """Denied, with the reason the employer reads: its money goes back to the commitment."""
    text = checked_reason(why, CLAIM_REASON)
    return _close(user, claim, "deny", text, "claim_denied")


def _close(user: User, claim: Claim, action: str, text: str, message: str) -> Claim:
    with transaction.atomic():
        application, locked = _lock_for_assessment(user, claim)
        move(locked, action)
        locked.decided_by, locked.decided_at, locked.reason = user, timezone.now(), text
        locked.save()
        ledger_unclaim(application, locked, user)
        record(user.username, f"claim.{action}", "claim", locked.pk, summary(locked, reason=text))
        if action == "return":
            burden.sent_back(BurdenStep.CLAIM, application.pk, locked.pk)
        tell(message, locked)
    return locked


@audited_refusals_of("claim")
def approve_claim(user: User, claim: Claim, body: dict[str, Any]) -> Claim:
    """The assigned officer sets the approved amount of each line (a line left out is approved
    as claimed; one lowered needs the reason the employer reads) and certifies the claim
    (s.34): the approved money becomes payable. A final claim releases what is left unused."""
    why = checked_reason(body.get("reason"), CLAIM_REASON, required=False)
    with transaction.atomic():
        application, locked = _lock_for_assessment(user, claim)
        move(locked, "approve")
        lines = {
            line.pk: line
            for line in ClaimLine.objects.filter(claim=locked).select_related("participant")
        }
        chosen = decisions(body, {pk: line.claimed_cents for pk, line in lines.items()})
        agreement = agreement_of(application)
        figures = figures_of(
            application,
            agreement,
            locked,
            [line_in(lines[d.line_id], d.cents) for d in chosen],
        )
        moved = _certify(user, application, locked, figures, chosen, lines, why)
        released = release_unused_commitment(application, user) if locked.is_final else {}
        entry = summary(locked, reason=why, **moved, **released)
        record(user.username, "claim.approve", "claim", locked.pk, entry)
        tell("claim_approved", locked)
    return locked


def _certify(
    user: User,
    application: Application,
    claim: Claim,
    figures: Figures,
    chosen: list[Any],
    lines: dict[int, ClaimLine],
    why: str,
) -> dict[str, int]:
    for decision in chosen:
        line = lines[decision.line_id]
        line.approved_cents = figures.lines.get((line.participant.position, line.category), 0)
        line.reason = decision.reason
        line.save(update_fields=["approved_cents", "reason"])
    shares = {s.funder: s for s in ClaimShare.objects.filter(claim=claim)}
    approved = {f: min(figures.shares[f], shares[f].claimed_cents) for f in FUNDERS}
    now = timezone.now()
    claim.decided_by, claim.decided_at, claim.reason = user, now, why
    claim.certified_by, claim.certified_at = user, now
    claim.approved_cents = sum(line.approved_cents or 0 for line in lines.values())
    clamped = sum(figures.shares.values()) - sum(approved.values())
    claim.employer_approved_cents = figures.employer_cents + clamped
    claim.caps = figures.caps
    claim.figures = figures_json(figures, list(lines.values()))
    claim.save()
    moved = ledger_approve(user, application, claim, shares, approved)
    for funder, share in shares.items():
        share.approved_cents = approved[funder]
        share.ledger_claimed_cents = 0
        share.save(update_fields=["approved_cents", "ledger_claimed_cents"])
    if claim.amends_id:
        amended = Claim.objects.select_for_update().get(pk=claim.amends_id)
        move(amended, "supersede")
        amended.save(update_fields=["state", "updated_at"])
        record(user.username, "claim.supersede", "claim", amended.pk, summary(amended, by=claim.pk))
    return moved


# --- Messages ----------------------------------------------------------------------------------


def tell(kind: str, claim: Claim) -> None:
    """Queue `kind` to the person who made the application, in their language."""
    person = User.objects.get(pk=claim.application.created_by_id)
    if "@" not in (person.email or ""):
        return
    language = language_of(person)
    link = page_link("web:employer-claim", language, claim.pk)
    government = sum(s.approved_cents or 0 for s in claim.shares.all())
    context: dict[str, str | int] = {
        "reference": claim.application_id,
        "claim": claim.number,
        "version": claim.version,
        "reason": claim.reason,
        "approved": format_money(government, language),
        "link": link,
    }
    enqueue(
        kind,
        subject=claim,
        milestone=claim.decided_at.isoformat() if claim.decided_at else "",
        to=person.email,
        language=language,
        context=context,
    )
