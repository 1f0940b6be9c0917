"""Claims: start one on an application, read and edit it, attach receipts, submit it; the
officer returns, denies or approves (certifies) it.

    POST  /applications/{application_id}/claims          the employer ({is_final, lines, amends})
    GET   /claims/{claim_id}                              whoever may read the application
    PATCH /claims/{claim_id}                              the employer, a draft or returned claim
    POST  /claims/{claim_id}/receipts                     multipart: one or more `file` parts,
                                                          an optional `invoice_number`
    GET   /claims/{claim_id}/receipts/{receipt_id}        the file: attachment, its own type
    POST  /claims/{claim_id}/submit                       the employer
    POST  /claims/{claim_id}/discard                      the employer, a draft never submitted
    POST  /claims/{claim_id}/return | /deny               the assigned officer ({reason})
    POST  /claims/{claim_id}/approve                      the assigned officer ({reason, lines})

Handlers are thin: grants.claim_actions does the work and refuses; every POST takes an
Idempotency-Key (the receipts' key covers the files' SHA-256, not the raw body).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from typing import Annotated, Any

from django.http import FileResponse, HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.urls import reverse
from ninja import Path, Router

from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import User
from jobgrant.service.api.bodies import json_object, malformed_body
from jobgrant.service.api.claim_schemas import (
    ApprovalBody,
    ClaimBody,
    ClaimOut,
    ClaimPatch,
    DiscardedOut,
    ReasonBody,
    ReceiptsOut,
)
from jobgrant.service.api.idempotency import idempotent
from jobgrant.service.api.openapi import problems, read_by_hand
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import MAX_DATABASE_ID, EmptyBody
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.errors import ServiceError, bad_input, problem
from jobgrant.service.grants.claims import access as claim_access
from jobgrant.service.grants.claims import actions as claim_actions
from jobgrant.service.grants.claims import assessment as claim_assessment
from jobgrant.service.grants.claims.reasons import in_both
from jobgrant.service.grants.claims.receipts import (
    INVOICE_NUMBER_MAX,
    INVOICE_NUMBER_PATTERN,
    checked,
    download_name,
    max_bytes,
    max_files,
    receipt_response,
    shown_name,
)
from jobgrant.service.grants.claims.view import describe
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.claims import Claim, Receipt
from jobgrant.service.grants.models.payments import PaymentRequest
from jobgrant.service.grants.payments.paid import claim_payments, claim_status
from jobgrant.service.outcomes.clocks import pay_clocks

router = Router(tags=["claims"], auth=bearer)
ApplicationId = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]
ClaimId = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]
ReceiptId = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]
#: What a multipart request may carry beyond its files (boundaries, headers of the parts).
MULTIPART_SLACK = 64 * 1024


def _money(cents: int | None) -> str | None:
    return None if cents is None else format_amount(int(cents))


def _when(value: Any) -> str | None:
    return value.isoformat() if value else None


def claim_json(claim: Claim) -> dict[str, Any]:
    shown = describe(claim)
    shares = shown["shares"]
    delta = shown["delta"]
    payments = claim_payments(claim)
    return {
        "id": claim.pk,
        "application": claim.application_id,
        "number": claim.number,
        "version": claim.version,
        "amends": claim.amends_id,
        "is_final": claim.is_final,
        "state": claim.state,
        "agreement_version": claim.agreement_version.number,
        "created_by": claim.created_by.username,
        "created_at": claim.created_at.isoformat(),
        "submitted_at": _when(claim.submitted_at),
        "decided_by": claim.decided_by.username if claim.decided_by else None,
        "decided_at": _when(claim.decided_at),
        "certified_by": claim.certified_by.username if claim.certified_by else None,
        "certified_at": _when(claim.certified_at),
        "reason": claim.reason,
        "claimed": format_amount(claim.claimed_cents),
        "approved": _money(claim.approved_cents),
        "lines": [
            {
                "id": row["id"],
                "participant": row["participant"],
                "trainee": row["trainee"],
                "category": row["category"],
                "agreed": format_amount(row["agreed_cents"]),
                "claimed": format_amount(row["claimed_cents"]),
                "counted": _money(row["counted_cents"]),
                "approved": _money(row["approved_cents"]),
                "reason": row["reason"],
            }
            for row in shown["lines"]
        ],
        "shares": {
            key: {
                "claimed": format_amount(int(v["claimed"] or 0)),
                "approved": _money(v["approved"]),
            }
            for key, v in shares.items()
        },
        "caps": [_cap_json(cap) for cap in shown["caps"]],
        "delta": (
            {"amends": claim.amends_id, **{k: format_amount(v) for k, v in delta.items()}}
            if delta is not None
            else None
        ),
        "receipts": [_receipt_json(receipt) for receipt in shown["receipts"]],
        "payments": [_payment_json(payment) for payment in payments],
        "paid": format_amount(claim_status(claim, payments).paid_cents),
        "clocks": [clock.as_json() for clock in pay_clocks(claim)],
    }


def _payment_json(payment: PaymentRequest) -> dict[str, Any]:
    return {
        "claim": payment.claim_id,
        "document_number": payment.document_number,
        "funder": payment.funder,
        "gross": format_amount(payment.gross_cents),
        "set_off": format_amount(payment.set_off_cents),
        "net": format_amount(payment.net_cents),
        "state": payment.state,
        "paid_on": payment.paid_on.isoformat() if payment.paid_on else None,
    }


def _cap_json(cap: dict[str, Any]) -> dict[str, Any]:
    english, french = in_both(cap)
    return {
        "rule": cap["rule"],
        "before": format_amount(int(cap["before_cents"])),
        "after": format_amount(int(cap["after_cents"])),
        "why_en": english,
        "why_fr": french,
    }


def _receipt_json(receipt: Receipt) -> dict[str, Any]:
    return {
        "id": receipt.pk,
        "name": download_name(receipt.original_name, receipt.content_type),
        "content_type": receipt.content_type,
        "size": receipt.size,
        "sha256": receipt.sha256,
        "invoice_number": receipt.invoice_number or None,
        "uploaded_by": receipt.uploaded_by.username,
        "uploaded_at": receipt.uploaded_at.isoformat(),
        "href": reverse("api-v1:get_receipt", args=[receipt.claim_id, receipt.pk]),
    }


def _fresh(user: User, claim_id: int) -> Claim:
    return claim_access.get_visible_claim(user, claim_id)


@router.post(
    "/applications/{application_id}/claims",
    response={201: ClaimOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(ClaimBody, required=False),
)
def create_claim(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Start a claim (a draft) on the application's accepted agreement, from the training's
    start: interim or final, or an amendment of an approved claim. One open claim at a time."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        application = access.get_visible_application(user, application_id, without=("explanation",))
        claim = claim_actions.start_claim(user, application, body)
        return json_response(claim_json(_fresh(user, claim.pk)), status=201)

    return idempotent(request, user, work)


@router.get("/claims/{claim_id}", response={200: ClaimOut, **problems(401, 403, 404, 422)})
def get_claim(request: HttpRequest, claim_id: ClaimId) -> HttpResponse:
    """One claim: its lines beside the agreement, the money per funder, the caps and why,
    the receipts, the decision."""
    return json_response(claim_json(_fresh(caller(request), claim_id)))


@router.patch(
    "/claims/{claim_id}",
    response={200: ClaimOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(ClaimPatch),
)
def update_claim(request: HttpRequest, claim_id: ClaimId) -> HttpResponse:
    """Change a draft's lines (all of them) or whether it is final; a returned claim goes back
    to draft."""
    user = caller(request)
    body = json_object(request)
    claim_actions.update_claim(user, _fresh(user, claim_id), body)
    return json_response(claim_json(_fresh(user, claim_id)))


@router.post(
    "/claims/{claim_id}/receipts",
    response={201: ReceiptsOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "required": ["file"],
                        "properties": {
                            "file": {
                                "type": "array",
                                "items": {"type": "string", "format": "binary"},
                                "description": "PDF, PNG or JPEG, decided from the content.",
                            },
                            "invoice_number": {
                                "type": "string",
                                "maxLength": INVOICE_NUMBER_MAX,
                                "pattern": INVOICE_NUMBER_PATTERN,
                                "description": (
                                    "Optional: the training provider's invoice or receipt "
                                    "number, given to every file of this upload. Printable "
                                    "characters (no tab, line break or control character), "
                                    "a letter or a digit among them; blank is none. Compared "
                                    "with the other files' receipts of the same provider "
                                    "without case, spaces, dashes or leading zeros (the risk "
                                    "flag receipt_reused)."
                                ),
                            },
                        },
                    }
                }
            },
        }
    },
)
def upload_receipts(request: HttpRequest, claim_id: ClaimId) -> HttpResponse:
    """Attach receipts (itemized invoice, proof of payment): PDF, PNG or JPEG, decided from the
    bytes; at most 20 per claim and 10 MB each (settings); with the provider's invoice number
    if given (422 naming `invoice_number` if it is not one)."""
    user = caller(request)
    too_big = _refuse_oversized(request)
    if too_big is not None:
        return too_big

    def work() -> HttpResponse:
        files = _checked_all(_files(request))
        invoice = _invoice(request)
        claim = _fresh(user, claim_id)
        claim_actions.add_receipts(user, claim, files, invoice)
        fresh = _fresh(user, claim_id)
        receipts = claim_json(fresh)["receipts"]
        return json_response({"claim": fresh.pk, "receipts": receipts}, status=201)

    return idempotent(request, user, work, digest=_multipart_digest(request))


def _checked_all(uploads: list[Any]) -> list[Any]:
    """Every file checked; the refused ones all named at once, each by its place and its
    name (none is attached then: the request's title says nothing was saved)."""
    files: list[Any] = []
    found: list[dict[str, str]] = []
    for i, upload in enumerate(uploads):
        try:
            files.append(checked(upload, f"file[{i}]"))
        except ServiceError as error:
            name = shown_name(upload.name)
            found.extend(
                {
                    **p,
                    "message_en": f"(“{name}”) {p['message_en']}" if name else p["message_en"],
                    "message_fr": f"(« {name} ») {p['message_fr']}" if name else p["message_fr"],
                }
                for p in error.problems
            )
    if found:
        raise bad_input(found)
    return files


def _refuse_oversized(request: HttpRequest) -> HttpResponse | None:
    from jobgrant.service.api.problems import problem_response

    length = int(request.META.get("CONTENT_LENGTH") or 0)
    if length > max_files() * max_bytes() + MULTIPART_SLACK:
        return problem_response(
            bad_input(
                [
                    problem(
                        "file",
                        "is larger than a claim's receipts may be",
                        "dépasse ce que les pièces d'une demande peuvent peser",
                    )
                ]
            )
        )
    return None


def _files(request: HttpRequest) -> list[Any]:
    if not (request.content_type or "").startswith("multipart/form-data"):
        raise bad_input(
            [problem("(body)", "must be multipart/form-data", "doit être en multipart/form-data")]
        )
    try:
        files = request.FILES.getlist("file")
    except (MultiPartParserError, ValueError):
        raise malformed_body(
            "is not a readable multipart body", "n'est pas un corps multipart lisible"
        ) from None
    if not files:
        raise bad_input([problem("file", "is required", "est obligatoire")])
    return files


def _invoice(request: HttpRequest) -> str | None:
    given = request.POST.getlist("invoice_number")
    if len(given) > 1:
        raise bad_input(
            [
                problem(
                    "invoice_number",
                    "is given more than once: one invoice number per upload",
                    "est donné plus d'une fois : un numéro de facture par envoi",
                )
            ]
        )
    return given[0] if given else None


def _multipart_digest(request: HttpRequest) -> Callable[[], str]:
    """A retry's fingerprint: the path and each file's name and SHA-256 (the raw body, which
    Django will not hold in memory past its limit, is not read)."""

    def digest() -> str:
        found = hashlib.sha256(f"{request.method}\0{request.path}\0".encode())
        try:
            files = request.FILES.getlist("file")
        except (MultiPartParserError, ValueError):  # the handler names the problem
            files = []
        for upload in files:
            content = hashlib.sha256()
            for chunk in upload.chunks():
                content.update(chunk)
            upload.seek(0)
            found.update(f"{upload.name}\0{content.hexdigest()}\0".encode())
        with contextlib.suppress(MultiPartParserError, ValueError):
            for number in request.POST.getlist("invoice_number"):
                found.update(f"invoice_number\0{number}\0".encode())
        return found.hexdigest()

    return digest


@router.get(
    "/claims/{claim_id}/receipts/{receipt_id}",
    response=problems(401, 403, 404, 422),
    openapi_extra={
        "responses": {
            "200": {
                "description": "The receipt, as an attachment, with the type found at upload.",
                "content": {
                    kind: {"schema": {"type": "string", "format": "binary"}}
                    for kind in ("application/pdf", "image/png", "image/jpeg")
                },
            }
        }
    },
)
def get_receipt(request: HttpRequest, claim_id: ClaimId, receipt_id: ReceiptId) -> FileResponse:
    """A receipt's file, only to those who may read the claim."""
    receipt = claim_access.get_visible_receipt(caller(request), claim_id, receipt_id)
    return receipt_response(receipt)


@router.post(
    "/claims/{claim_id}/submit",
    response={200: ClaimOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(EmptyBody, required=False),
)
def submit_claim(request: HttpRequest, claim_id: ClaimId) -> HttpResponse:
    """Submit the claim: every trainee confirmed, a receipt attached; its figures are worked out
    (the kernel's shares, then the caps) and its government money claimed in the ledger."""
    user = caller(request)

    def work() -> HttpResponse:
        json_object(request)  # no field is read, but the body must be an object if sent
        claim_actions.submit_claim(user, _fresh(user, claim_id))
        return json_response(claim_json(_fresh(user, claim_id)))

    return idempotent(request, user, work)


@router.post(
    "/claims/{claim_id}/discard",
    response={200: DiscardedOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(EmptyBody, required=False),
)
def discard_claim(request: HttpRequest, claim_id: ClaimId) -> HttpResponse:
    """Discard a draft never submitted, with its lines and receipts (the employer). A claim
    once submitted stays on the file (409 CLAIM_ONCE_SUBMITTED)."""
    user = caller(request)

    def work() -> HttpResponse:
        json_object(request)  # no field is read, but the body must be an object if sent
        claim = _fresh(user, claim_id)
        number = claim.number
        claim_actions.discard_claim(user, claim)
        return json_response({"id": claim_id, "number": number, "discarded": True})

    return idempotent(request, user, work)


REASON_ANSWERS = {200: ClaimOut, **problems(400, 401, 403, 404, 409, 422)}


@router.post(
    "/claims/{claim_id}/return",
    response=REASON_ANSWERS,
    openapi_extra=read_by_hand(ReasonBody),
)
def return_claim(request: HttpRequest, claim_id: ClaimId) -> HttpResponse:
    """Return the claim to the employer for more information (the assigned officer; a reason)."""
    return _decide_with_reason(request, claim_id, claim_assessment.return_claim)


@router.post(
    "/claims/{claim_id}/deny",
    response=REASON_ANSWERS,
    openapi_extra=read_by_hand(ReasonBody),
)
def deny_claim(request: HttpRequest, claim_id: ClaimId) -> HttpResponse:
    """Deny the claim (the assigned officer; a reason)."""
    return _decide_with_reason(request, claim_id, claim_assessment.deny_claim)


def _decide_with_reason(
    request: HttpRequest, claim_id: int, decide: Callable[[User, Claim, Any], Claim]
) -> HttpResponse:
    """Decide once per Idempotency-Key with the body's reason; the answer is the claim."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        decide(user, _fresh(user, claim_id), body.get("reason"))
        return json_response(claim_json(_fresh(user, claim_id)))

    return idempotent(request, user, work)


@router.post(
    "/claims/{claim_id}/approve",
    response={200: ClaimOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(ApprovalBody, required=False),
)
def approve_claim(request: HttpRequest, claim_id: ClaimId) -> HttpResponse:
    """Approve and certify the claim (s.34; the assigned officer): the amount per line (a line
    left out is approved as it counts after the caps; one lowered needs a reason)."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        claim_assessment.approve_claim(user, _fresh(user, claim_id), body)
        return json_response(claim_json(_fresh(user, claim_id)))

    return idempotent(request, user, work)
