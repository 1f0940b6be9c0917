"""Who may see which payment batch and which receivable (finance's side of a file).

Permission-checked fetches: `visible_*` gives what `user` may read, `get_visible_*` one of
them or the refusal (audited), so nobody learns that a batch or a receivable exists.
"""

from __future__ import annotations

from django.db.models import QuerySet

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.payments import PaymentBatch, Receivable
from jobgrant.service.grants.payments.refusals import batch_not_found, receivable_not_found


def visible_batches(user: User) -> QuerySet[PaymentBatch]:
    """Finance, auditors and administrators see every batch; nobody else any."""
    if user.role in (Role.FINANCE, Role.AUDITOR, Role.ADMIN):
        return PaymentBatch.objects.select_related("built_by", "authorized_by")
    return PaymentBatch.objects.none()


# The refusal keeps the name the audit trail has always recorded for it.
@audited_refusals_of("paymentbatch", action="get_batch")
def get_visible_batch(user: User, batch_id: int) -> PaymentBatch:
    access.require_role(user, Role.FINANCE, Role.AUDITOR, Role.ADMIN)
    found = visible_batches(user).filter(pk=batch_id).first()
    if found is None:
        raise batch_not_found()
    return found


def visible_receivables(user: User) -> QuerySet[Receivable]:
    """Finance, auditors and administrators see every receivable; officers those of their
    files; employers those of the employers they act for."""
    everything = Receivable.objects.select_related("application", "debtor")
    if user.role in (Role.FINANCE, Role.AUDITOR, Role.ADMIN):
        return everything
    if user.role == Role.EMPLOYER:
        return everything.filter(debtor__in=access.employers_acted_for(user))
    if user.role == Role.OFFICER:
        return everything.filter(application__in=access.visible_applications(user))
    return everything.none()


@audited_refusals_of("receivable")
def get_visible_receivable(user: User, receivable_id: int) -> Receivable:
    found = visible_receivables(user).filter(pk=receivable_id).first()
    if found is None:
        raise receivable_not_found()
    return found
