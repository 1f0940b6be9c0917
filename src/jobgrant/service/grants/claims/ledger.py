"""The ledger's movements of a claim, per funder, inside the caller's transaction (the claim's
actions call them): `claim` at submission, `unclaim` on return or denial, `approve_claim` at
certification, `lower_approval` when an amendment lowers an unpaid approval (what was paid above
the new figure goes to `grants.recovery_hooks.overpaid`, a receivable), and the final
claim's release of the unused commitment."""

from __future__ import annotations

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.claims.figures import FUNDERS
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.claims import Claim, ClaimShare
from jobgrant.service.grants.payments import recovery_hooks
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount, Funder
from jobgrant.service.refusals import amount, refused


def amended_shares(claim: Claim) -> dict[str, int]:
    if not claim.amends_id:
        return {}
    return {
        share.funder: share.approved_cents or 0
        for share in ClaimShare.objects.filter(claim_id=claim.amends_id)
    }


def accounts_of(application: Application) -> dict[str, BudgetAccount]:
    pool = operations.Pool(
        application.jurisdiction, application.fiscal_year, application.stream.code
    )
    return operations.pool_accounts(pool)


def ledger_short(error: operations.BucketShort) -> ServiceError:
    """A movement the ledger refused (the source bucket short): 409, naming the funder, what was
    needed and what the bucket holds."""
    funder = Funder(error.account.funder).label
    return refused(
        409,
        "CLAIM_BUDGET_SHORT",
        lambda: {
            "funder": funder,
            "requested": amount(error.requested_cents),
            "available": amount(error.held_cents),
        },
        extra={"funder": error.account.funder, "bucket": error.bucket},
    )


def ledger_claim(application: Application, claim: Claim, user: User) -> None:
    accounts = accounts_of(application)
    try:
        for share in ClaimShare.objects.filter(claim=claim).order_by("funder"):
            if share.ledger_claimed_cents:
                operations.claim(
                    accounts[share.funder],
                    share.ledger_claimed_cents,
                    actor=user.username,
                    application=application,
                    reference=f"claim:{claim.pk}",
                )
    except operations.BucketShort as error:
        raise ledger_short(error) from None


def ledger_unclaim(application: Application, claim: Claim, user: User) -> None:
    accounts = accounts_of(application)
    for share in ClaimShare.objects.filter(claim=claim).order_by("funder"):
        if share.ledger_claimed_cents:
            operations.unclaim(
                accounts[share.funder],
                share.ledger_claimed_cents,
                actor=user.username,
                application=application,
                reference=f"claim:{claim.pk}",
            )
            share.ledger_claimed_cents = 0
            share.save(update_fields=["ledger_claimed_cents"])


def ledger_approve(
    user: User,
    application: Application,
    claim: Claim,
    shares: dict[str, ClaimShare],
    approved: dict[str, int],
) -> dict[str, int]:
    """Per funder: the approved part above the amended version becomes payable, the rest of the
    claimed money goes back; an approval below the amended version lowers the unpaid approval,
    and what was paid above the new figure is handed to recovery."""
    accounts = accounts_of(application)
    base = amended_shares(claim)
    moved: dict[str, int] = {}
    reference = f"claim:{claim.pk}"
    balances = operations.application_balances(application) if claim.amends_id else {}
    for funder in FUNDERS:
        account, claimed = accounts[funder], shares[funder].ledger_claimed_cents
        up = approved[funder] - base.get(funder, 0)
        actor = user.username
        operations.approve_claim(
            account, claimed, max(up, 0), actor=actor, application=application, reference=reference
        )
        if up < 0:
            unpaid = _unpaid(claim, funder, base.get(funder, 0), balances)
            lowered = min(-up, unpaid)
            if lowered:
                operations.lower_approval(
                    account, lowered, actor=actor, application=application, reference=reference
                )
            if -up > lowered:
                moved[f"{funder}_overpaid_cents"] = -up - lowered
                _overpaid(claim, funder, -up - lowered)
            moved[f"{funder}_lowered_cents"] = lowered
        moved[f"{funder}_approved_cents"] = approved[funder]
    return moved


def _unpaid(
    claim: Claim, funder: str, approved_before: int, balances: dict[str, operations.Balances]
) -> int:
    """What of the amended version's approval is not paid yet: the claim number's approval less
    what was paid on it (recovery_hooks.paid_to_date, every version), and never more than the
    file's payable money not disbursed."""
    held = balances.get(funder, operations.Balances())
    unpaid = max(held.payable - held.disbursed, 0)
    return min(unpaid, max(approved_before - recovery_hooks.paid_to_date(claim, funder), 0))


def _overpaid(claim: Claim, funder: str, cents: int) -> None:
    """Paid above an amendment's new figure: a receivable (grants.recovery_hooks)."""
    recovery_hooks.overpaid(claim, funder, cents)


def release_unused_commitment(application: Application, user: User) -> dict[str, int]:
    """At the final claim: what the agreement committed and no claim holds (claimed, payable or
    paid) goes back to the budget, per funder. Runs inside the caller's transaction (approving a
    final claim calls it); returns the cents released per funder."""
    accounts = accounts_of(application)
    released: dict[str, int] = {}
    for funder, held in operations.application_balances(application).items():
        unused = held.committed - held.claimed
        if unused > 0 and funder in accounts:
            operations.release(
                accounts[funder], unused, actor=user.username, application=application
            )
            released[f"{funder}_released_cents"] = unused
    return released
