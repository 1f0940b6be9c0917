"""Holding a payment: taken out of a batch awaiting authorization, with a reason (its claim
waits, no batch takes it, and its set-offs go back to the receivables); lifting the hold lets
the next batch take the claim again. Each is one transaction with its audit entry.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Count, Sum

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.grants.core import access
from jobgrant.service.grants.core.input import ReasonRule, checked_reason
from jobgrant.service.grants.models.payments import (
    OPEN_REQUEST_STATES,
    BatchState,
    PaymentBatch,
    PaymentRequest,
    Receivable,
    RequestState,
    SetOff,
)
from jobgrant.service.grants.payments.limits import MAX_REASON
from jobgrant.service.grants.payments.refusals import (
    illegal_payment_transition,
    payment_not_found,
)
from jobgrant.service.refusals import forbidden_for

_HOLD_REASON_WANTED = (
    f"is required (1 to {MAX_REASON} characters)",
    f"est obligatoire (1 à {MAX_REASON} caractères)",
)
#: Why finance holds a payment (kept in the audit trail).
HOLD_REASON = ReasonRule(MAX_REASON, missing=_HOLD_REASON_WANTED, too_long=_HOLD_REASON_WANTED)


@audited_refusals_of("paymentrequest")
def hold_payment(user: User, request_id: int, reason: object) -> PaymentRequest:
    """Take a payment out of a batch awaiting authorization, with a reason; its claim is on
    hold (no batch takes it) until the hold is lifted."""
    access.require_role(user, Role.FINANCE)
    text = checked_reason(reason, HOLD_REASON)
    with transaction.atomic():
        request = _lock_request(request_id)
        batch = PaymentBatch.objects.select_for_update().get(pk=request.batch_id)
        if request.state != RequestState.BATCHED or batch.state != BatchState.BUILT:
            raise illegal_payment_transition(
                "hold", request.state, RequestState(request.state).label
            )
        _cancel_set_offs(request)
        PaymentRequest.objects.filter(pk=request.pk).update(
            state=RequestState.HELD, held_reason=text, held_by=user
        )
        _recount(batch)
        record(
            user.username,
            "payment.hold",
            "paymentrequest",
            request.pk,
            {"document_number": request.document_number, "reason": text},
        )
    request.refresh_from_db()
    return request


@audited_refusals_of("paymentrequest")
def lift_hold(user: User, request_id: int) -> PaymentRequest:
    """The claim may be paid again: the next batch takes it (with a new document number).
    Never by someone affiliated with the payee (PAYEE_CONFLICT)."""
    access.require_role(user, Role.FINANCE)
    with transaction.atomic():
        request = _lock_request(request_id)
        if request.state != RequestState.HELD:
            raise illegal_payment_transition(
                "lift", request.state, RequestState(request.state).label
            )
        if user.employers.filter(pk=request.payee_id).exists():
            raise forbidden_for("PAYEE_CONFLICT")
        PaymentRequest.objects.filter(pk=request.pk).update(state=RequestState.CANCELLED)
        record(
            user.username,
            "payment.lift_hold",
            "paymentrequest",
            request.pk,
            {"document_number": request.document_number},
        )
    request.refresh_from_db()
    return request


def _lock_request(request_id: int) -> PaymentRequest:
    found = PaymentRequest.objects.select_for_update().filter(pk=request_id).first()
    if found is None:
        raise payment_not_found()
    return found


def _cancel_set_offs(request: PaymentRequest) -> None:
    for set_off in SetOff.objects.filter(request=request):
        receivable = Receivable.objects.select_for_update().get(pk=set_off.receivable_id)
        receivable.pending_set_off_cents -= set_off.amount_cents
        receivable.save(update_fields=["pending_set_off_cents"])
    SetOff.objects.filter(request=request).delete()


def _recount(batch: PaymentBatch) -> None:
    sums = batch.requests.filter(state__in=OPEN_REQUEST_STATES).aggregate(
        total=Sum("net_cents"), count=Count("id")
    )
    batch.total_cents = int(sums["total"] or 0)
    batch.requests_count = int(sums["count"] or 0)
    batch.save(update_fields=["total_cents", "requests_count"])
