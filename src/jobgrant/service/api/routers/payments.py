"""Payments (s.33) and receivables.

    POST /payment-batches                       finance builds a batch {jurisdiction, fiscal_year}
    GET  /payment-batches, /payment-batches/{id}
    POST /payment-batches/{id}/authorize        a second finance officer
    GET  /payment-batches/{id}/export.csv       the file for the paying system
    POST /payment-batches/{id}/confirmations    the paying system's file (text/csv)
    GET  /receivables, POST /receivables        an officer of the file, or finance, raises one
    POST /receivables/{id}/repayments           finance records a repayment
    POST /receivables/{id}/write-off            finance asks; a second finance officer approves

Handlers are thin: the payments stage (batches, export, confirmation, recovery; access for
the reads) does the work (and refuses).
Every POST takes an Idempotency-Key.
"""

from __future__ import annotations

from typing import Annotated, Any

from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from ninja import Path, Query, Router

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import Role
from jobgrant.service.api.bodies import json_object, malformed_body, text_field
from jobgrant.service.api.idempotency import idempotent
from jobgrant.service.api.openapi import problems, read_by_hand
from jobgrant.service.api.payment_schemas import (
    AuthorizeBody,
    BatchBody,
    BatchOut,
    ConfirmationOut,
    ReceivableBody,
    ReceivableOut,
    RepaymentBody,
    WriteOffBody,
)
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import FISCAL_YEAR, MAX_DATABASE_ID, one_of
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.payments import (
    LineOutcome,
    PaymentBatch,
    Receivable,
    ReceivableState,
)
from jobgrant.service.grants.payments import access as payment_access
from jobgrant.service.grants.payments import batches as payment_batches
from jobgrant.service.grants.payments import confirmation as payment_confirmation
from jobgrant.service.grants.payments import export as payment_export
from jobgrant.service.grants.payments import recovery as recovery_actions
from jobgrant.service.grants.payments.paid import expected_cents

router = Router(tags=["payments"], auth=bearer)
BatchId = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]
ReceivableId = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]
MAX_LISTED = 200
CSV_TYPES = ("text/csv", "text/plain", "application/octet-stream")
RECEIVABLE_STATES: tuple[str, ...] = tuple(ReceivableState.values)
CSV = {
    "responses": {
        "200": {
            "description": "The batch's payments for the paying system (CSV, UTF-8).",
            "content": {"text/csv": {"schema": {"type": "string"}}},
        }
    }
}
CONFIRMATION_FILE = {
    "requestBody": {
        "required": True,
        "content": {
            "text/csv": {
                "schema": {
                    "type": "string",
                    "description": "CSV with a header line: document_number, amount, and "
                    "optionally paid_on (YYYY-MM-DD) and payment_reference.",
                }
            }
        },
    }
}


def batch_json(batch: PaymentBatch, *, with_payments: bool = False) -> dict[str, Any]:
    found: dict[str, Any] = {
        "id": batch.pk,
        "jurisdiction": batch.jurisdiction,
        "fiscal_year": batch.fiscal_year,
        "state": batch.state,
        "built_by": batch.built_by.username,
        "built_at": batch.built_at.isoformat(),
        "authorized_by": batch.authorized_by.username if batch.authorized_by else None,
        "authorized_at": batch.authorized_at.isoformat() if batch.authorized_at else None,
        "exported_at": batch.exported_at.isoformat() if batch.exported_at else None,
        "export_sha256": batch.export_sha256,
        "total": format_amount(batch.total_cents),
        "requests_count": batch.requests_count,
    }
    if with_payments:
        requests = batch.requests.select_related("payee", "claim").order_by("id")
        found["payments"] = [
            {
                "id": r.pk,
                "document_number": r.document_number,
                "application": r.application_id,
                "claim": r.claim_id,
                "claim_number": r.claim.number,
                "funder": r.funder,
                "payee": r.payee.name,
                "business_number": r.payee.business_number,
                "gross": format_amount(r.gross_cents),
                "set_off": format_amount(r.set_off_cents),
                "net": format_amount(r.net_cents),
                "state": r.state,
                "held_reason": r.held_reason,
                "paid_on": r.paid_on.isoformat() if r.paid_on else None,
            }
            for r in requests
        ]
    return found


@router.post(
    "/payment-batches",
    response={201: BatchOut, **problems(400, 401, 403, 409, 422)},
    openapi_extra=read_by_hand(BatchBody),
)
def create_payment_batch(request: HttpRequest) -> HttpResponse:
    """Build a batch (finance) of every certified claim of the jurisdiction and fiscal year not
    on hold: a payment per claim and funder of approved to date − paid to date, each payee's open
    receivables set off against it. 409 when there is nothing to pay."""
    user = caller(request)

    def work() -> HttpResponse:
        batch = payment_batches.build_batch(user, json_object(request))
        return json_response(batch_json(batch, with_payments=True), status=201)

    return idempotent(request, user, work)


@router.get("/payment-batches", response={200: list[BatchOut], **problems(401, 403, 422)})
def list_payment_batches(
    request: HttpRequest,
    jurisdiction: Annotated[str | None, Query(pattern=one_of(JURISDICTION_CODES))] = None,
    fiscal_year: Annotated[str | None, Query(pattern=FISCAL_YEAR)] = None,
) -> HttpResponse:
    """The latest batches (at most 200), newest first (finance, auditors)."""
    user = caller(request)
    access.require_role(user, Role.FINANCE, Role.AUDITOR, Role.ADMIN)
    batches = payment_access.visible_batches(user)
    if jurisdiction:
        batches = batches.filter(jurisdiction=jurisdiction)
    if fiscal_year:
        batches = batches.filter(fiscal_year=fiscal_year)
    return json_response([batch_json(b) for b in batches[:MAX_LISTED]])


@router.get("/payment-batches/{batch_id}", response={200: BatchOut, **problems(401, 403, 404, 422)})
def get_payment_batch(request: HttpRequest, batch_id: BatchId) -> HttpResponse:
    """One batch with its payments."""
    batch = payment_access.get_visible_batch(caller(request), batch_id)
    return json_response(batch_json(batch, with_payments=True))


@router.post(
    "/payment-batches/{batch_id}/authorize",
    response={200: BatchOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(AuthorizeBody, required=False),
)
def authorize_payment_batch(request: HttpRequest, batch_id: BatchId) -> HttpResponse:
    """Authorize the batch (s.33): a finance officer who did not build it and certified none of
    its claims (403 otherwise, recorded in the audit trail)."""
    user = caller(request)

    def work() -> HttpResponse:
        note = text_field(json_object(request), "note")
        batch = payment_batches.authorize_batch(
            user, payment_access.get_visible_batch(user, batch_id), note
        )
        return json_response(batch_json(batch))

    return idempotent(request, user, work)


@router.get(
    "/payment-batches/{batch_id}/export.csv",
    response=problems(401, 403, 404, 409, 422),
    openapi_extra=CSV,
)
def export_payment_batch(request: HttpRequest, batch_id: BatchId) -> HttpResponse:
    """The authorized batch as the paying system imports it: document number, business number,
    payee, amount, fiscal year, funder, GL coding. The first download marks the batch exported;
    every download is the same file, byte for byte."""
    user = caller(request)
    batch = payment_access.get_visible_batch(user, batch_id)
    content = payment_export.export_batch(user, batch)
    response = HttpResponse(content, content_type="text/csv; charset=utf-8")
    name = f"payments-{batch.jurisdiction}-{batch.fiscal_year}-batch-{batch.pk}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    return response


def confirmation_json(imported: payment_confirmation.Imported) -> dict[str, Any]:
    confirmation = imported.confirmation
    unmatched = (
        confirmation.lines.exclude(outcome=LineOutcome.RECONCILED)
        .select_related("request")
        .order_by("line_number")
    )
    return {
        "id": confirmation.pk,
        "batch": confirmation.batch_id,
        "sha256": confirmation.sha256,
        "replayed": imported.replayed,
        "lines": confirmation.lines_count,
        "reconciled": confirmation.reconciled_count,
        "reconciled_amount": format_amount(confirmation.reconciled_cents),
        "unmatched": [
            {
                "line": line.line_number,
                "document_number": line.document_number,
                "amount": line.amount,
                "outcome": line.outcome,
                "expected_amount": (
                    format_amount(expected)
                    if (expected := expected_cents(line)) is not None
                    else None
                ),
            }
            for line in unmatched
        ],
    }


@router.post(
    "/payment-batches/{batch_id}/confirmations",
    response={200: ConfirmationOut, **problems(400, 401, 403, 404, 409, 415, 422)},
    openapi_extra=CONFIRMATION_FILE,
)
def confirm_payment_batch(request: HttpRequest, batch_id: BatchId) -> HttpResponse:
    """Import the paying system's confirmation file (text/csv): each line matched on its
    document number, reconciled (the payment disburses) or listed with the reason it did not
    match: no_match, duplicate, wrong_amount, unknown_document. The same file again changes
    nothing (replayed: true)."""
    user = caller(request)

    def work() -> HttpResponse:
        if request.body and request.content_type not in CSV_TYPES:
            raise malformed_body(
                "must be the confirmation file itself, sent as text/csv",
                "doit être le fichier de confirmation lui-même, envoyé en text/csv",
            )
        batch = payment_access.get_visible_batch(user, batch_id)
        imported = payment_confirmation.import_confirmations(user, batch, request.body)
        return json_response(confirmation_json(imported))

    return idempotent(request, user, work)


def receivable_json(receivable: Receivable) -> dict[str, Any]:
    return {
        "id": receivable.pk,
        "application": receivable.application_id,
        "claim": receivable.claim_id,
        "debtor": receivable.debtor.name,
        "funder": receivable.funder,
        "cause": receivable.cause,
        "reason": receivable.reason,
        "amount": format_amount(receivable.amount_cents),
        "recovered": format_amount(receivable.recovered_cents),
        "pending_set_off": format_amount(receivable.pending_set_off_cents),
        "written_off": format_amount(receivable.written_off_cents),
        "outstanding": format_amount(receivable.outstanding_cents),
        "state": receivable.state,
        "raised_at": receivable.raised_at.isoformat(),
        "due_on": receivable.due_on.isoformat(),
        "write_off_requested_by": (
            receivable.write_off_requested_by.username
            if receivable.write_off_requested_by
            else None
        ),
        "written_off_by": receivable.written_off_by.username if receivable.written_off_by else None,
        "recoveries": [
            {
                "kind": r.kind,
                "amount": format_amount(r.amount_cents),
                "received_on": r.received_on.isoformat(),
                "reference": r.reference,
            }
            for r in receivable.recoveries.all()
        ],
    }


@router.get("/receivables", response={200: list[ReceivableOut], **problems(401, 403, 422)})
def list_receivables(
    request: HttpRequest,
    state: Annotated[str | None, Query(pattern=one_of(RECEIVABLE_STATES))] = None,
) -> HttpResponse:
    """The receivables the caller may read (at most 200), newest first: finance and auditors
    all, officers those of their files, employers their own."""
    user = caller(request)
    found = payment_access.visible_receivables(user).select_related(
        "write_off_requested_by", "written_off_by"
    )
    if state:
        found = found.filter(state=state)
    found = found.prefetch_related(Prefetch("recoveries"))
    return json_response([receivable_json(r) for r in found[:MAX_LISTED]])


def _fresh(user: Any, receivable_id: int) -> Receivable:
    return payment_access.get_visible_receivable(user, receivable_id)


@router.post(
    "/receivables",
    response={201: ReceivableOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(ReceivableBody),
)
def create_receivable(request: HttpRequest) -> HttpResponse:
    """Raise a receivable (an officer of the file, or finance): a trainee who did not complete,
    or an ineligible cost found after payment. Due 14 days later; the employer is told."""
    user = caller(request)

    def work() -> HttpResponse:
        receivable = recovery_actions.raise_by_hand(user, json_object(request))
        return json_response(receivable_json(_fresh(user, receivable.pk)), status=201)

    return idempotent(request, user, work)


@router.post(
    "/receivables/{receivable_id}/repayments",
    response={200: ReceivableOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(RepaymentBody),
)
def create_repayment(request: HttpRequest, receivable_id: ReceivableId) -> HttpResponse:
    """Record a repayment the bank confirmed (finance): the ledger recovers it."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        recovery_actions.record_repayment(user, _fresh(user, receivable_id), body)
        return json_response(receivable_json(_fresh(user, receivable_id)))

    return idempotent(request, user, work)


@router.post(
    "/receivables/{receivable_id}/write-off",
    response={200: ReceivableOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(WriteOffBody, required=False),
)
def write_off(request: HttpRequest, receivable_id: ReceivableId) -> HttpResponse:
    """Write a receivable off: a first finance officer asks, with a reason; a second approves
    (the same person twice: 403, audited). Only then is it written off in the ledger."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        recovery_actions.write_off_receivable(user, _fresh(user, receivable_id), body)
        return json_response(receivable_json(_fresh(user, receivable_id)))

    return idempotent(request, user, work)
