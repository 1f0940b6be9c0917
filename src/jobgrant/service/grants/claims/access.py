"""Who may read which claim and receipt: the readers of its application (grants.access).

Anyone else is told there is no such claim (404, never 403), and the refusal is recorded."""

from __future__ import annotations

from django.db.models import QuerySet

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.grants.claims.refusals import claim_not_found
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.claims import Claim, Receipt


def visible_claims(user: User) -> QuerySet[Claim]:
    return Claim.objects.filter(application__in=access.visible_applications(user).values("pk"))


@audited_refusals_of("claim")
def get_visible_claim(user: User, claim_id: int) -> Claim:
    found = (
        Claim.objects.select_related(
            "application", "agreement_version", "created_by", "certified_by", "decided_by"
        )
        .filter(pk=claim_id)
        .first()
    )
    if found is None or not access.can_see(user, found.application):
        raise claim_not_found()
    return found


@audited_refusals_of("receipt")
def get_visible_receipt(user: User, claim_id: int, receipt_id: int) -> Receipt:
    found = (
        Receipt.objects.select_related("claim", "claim__application")
        .filter(pk=receipt_id, claim_id=claim_id)
        .first()
    )
    if found is None or not access.can_see(user, found.claim.application):
        raise claim_not_found()
    return found
