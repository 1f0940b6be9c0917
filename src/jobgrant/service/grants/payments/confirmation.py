"""Confirming what was paid: the paying system's file, matched on document numbers.

A confirmed payment disburses, and its set-offs recover, in the transaction of the import; every
other line is kept with its reason; the same file imported again changes nothing. A file whose
final claim is paid may complete: the import asks the completion stage (`completion.report`,
the one call from payments up to a later stage, declared in the stage contract).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections import defaultdict
from dataclasses import dataclass, fields
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from jobgrant.rules.money import format_amount, format_money
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.grants.completion.report import complete_paid_files
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.payments import (
    OPEN_REQUEST_STATES,
    BatchState,
    ConfirmationImport,
    ConfirmationLine,
    LineOutcome,
    PaymentBatch,
    PaymentRequest,
    Receivable,
    Recovery,
    RecoveryKind,
    RequestState,
    SetOff,
)
from jobgrant.service.grants.payments.files import (
    ConfirmationRow,
    Known,
    Matched,
    match,
    parse_confirmation_file,
)
from jobgrant.service.grants.payments.limits import CHUNK
from jobgrant.service.grants.payments.recovery import settle_state, tell_employer
from jobgrant.service.language import language_of
from jobgrant.service.ledger import bulk
from jobgrant.service.ledger.models import BudgetAccount
from jobgrant.service.rows import insert_many


@dataclass(frozen=True)
class Imported:
    confirmation: ConfirmationImport
    replayed: bool  # the same file was imported before: nothing changed


def import_confirmations(
    user: User, batch: PaymentBatch, content: bytes, filename: str = ""
) -> Imported:
    return _import(user, batch, content, filename)


@audited_refusals_of("paymentbatch", action="import_confirmations")
def _import(user: User, batch: PaymentBatch, content: bytes, filename: str) -> Imported:
    """Match the paying system's file on document numbers: each reconciled payment disburses
    (and its set-offs recover) in this transaction; every other line is kept with its reason.
    The same file (by SHA-256) imported again changes nothing."""
    access.require_role(user, Role.FINANCE)
    digest = hashlib.sha256(content).hexdigest()
    earlier = ConfirmationImport.objects.filter(sha256=digest).first()
    if earlier is not None:
        return Imported(earlier, replayed=True)
    rows = parse_confirmation_file(content)
    with transaction.atomic():
        # Imports of one batch take turns (its row locked); the file is looked for again once
        # the lock is held, so a concurrent import of the same file is found, not repeated.
        PaymentBatch.objects.select_for_update().filter(pk=batch.pk).first()
        earlier = ConfirmationImport.objects.filter(sha256=digest).first()
        if earlier is not None:
            return Imported(earlier, replayed=True)
        requests = _lock_requests_named(rows)
        outcomes = match(rows, lambda number: _known(requests.get(number), batch))
        confirmation = ConfirmationImport.objects.create(
            batch=batch,
            sha256=digest,
            filename=filename[:200],
            imported_by=user,
            imported_at=timezone.now(),
            lines_count=len(rows),
        )
        _write_lines(confirmation, outcomes)
        paid = [
            (requests[m.row.document_number], m.row)
            for m in outcomes
            if m.outcome == LineOutcome.RECONCILED
        ]
        _pay(user, confirmation, paid)
        confirmation.reconciled_count = len(paid)
        confirmation.reconciled_cents = sum(request.net_cents for request, _ in paid)
        confirmation.save(update_fields=["reconciled_count", "reconciled_cents"])
        _close_reconciled_batches({request.batch_id for request, _ in paid})
        # A file whose completion report is in completes once its final claim is paid.
        complete_paid_files({request.application_id for request, _ in paid}, actor=user.username)
        record(
            user.username,
            "payment_batch.confirm",
            "confirmationimport",
            confirmation.pk,
            {
                "batch": batch.pk,
                "sha256": digest,
                "lines": len(rows),
                "reconciled": len(paid),
                "amount": format_amount(confirmation.reconciled_cents),
                "unmatched": {
                    outcome: sum(1 for m in outcomes if m.outcome == outcome)
                    for outcome in LineOutcome.values
                    if outcome != LineOutcome.RECONCILED
                },
            },
        )
    return Imported(confirmation, replayed=False)


_LINE_COLUMNS = (
    "confirmation_id",
    "line_number",
    "document_number",
    "amount",
    "outcome",
    "request_id",
)


def _write_lines(confirmation: ConfirmationImport, outcomes: list[Matched]) -> None:
    """Every line's outcome, in one INSERT of plain values (no model objects: 20,000 of them
    were a second of CPU)."""
    insert_many(
        ConfirmationLine,
        _LINE_COLUMNS,
        [
            (
                *(confirmation.pk, m.row.line_number, m.row.document_number),
                *(m.row.amount, str(m.outcome), m.request_id),
            )
            for m in outcomes
        ],
    )


@dataclass
class _Named:
    """What matching and paying need of a payment request named in the file (its row is
    locked; no model instance for each of 20,000 payments)."""

    pk: int
    batch_id: int
    application_id: int
    payee_id: int
    account_id: int
    document_number: str
    state: str
    gross_cents: int
    set_off_cents: int
    net_cents: int
    paid_on: dt.date | None = None


# The columns of _Named, in its order (the primary key first).
_NAMED_COLUMNS = ("id", *(f.name for f in fields(_Named)[1:-1]))
_NAMED_SQL = (
    f'SELECT {", ".join(_NAMED_COLUMNS)} FROM "{PaymentRequest._meta.db_table}"'
    ' WHERE "document_number" = ANY(%s) ORDER BY "id" FOR UPDATE'
)


def _lock_requests_named(rows: list[ConfirmationRow]) -> dict[str, _Named]:
    """The requests the file names, by document number, each row locked (in the order of their
    ids, as every import locks them)."""
    numbers = sorted({row.document_number for row in rows})
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_NAMED_SQL, [numbers])
            found = [_Named(*row) for row in cursor.fetchall()]
    else:
        found = [
            _Named(*row)
            for start in range(0, len(numbers), CHUNK)
            for row in PaymentRequest.objects.select_for_update()
            .filter(document_number__in=numbers[start : start + CHUNK])
            .order_by("id")
            .values_list(*_NAMED_COLUMNS)
        ]
    return {request.document_number: request for request in found}


def _known(request: _Named | None, batch: PaymentBatch) -> Known | None:
    """A payment of another batch is named in this batch's file: not this file's to confirm."""
    if request is None:
        return None
    return Known(
        request_id=request.pk,
        net_cents=request.net_cents,
        awaiting=request.state == RequestState.EXPORTED and request.batch_id == batch.pk,
        paid=request.state == RequestState.PAID,
    )


def _pay(
    user: User,
    confirmation: ConfirmationImport,
    paid: list[tuple[_Named, ConfirmationRow]],
) -> None:
    """Mark the payments paid; disburse them per account; recover their set-offs; tell each
    employer once per file."""
    if not paid:
        return
    today = timezone.localdate()
    for request, row in paid:
        request.paid_on = row.paid_on or today
    _mark_paid(paid, timezone.now())
    per_account: dict[int, list[bulk.Cause]] = defaultdict(list)
    for request, _ in paid:
        cause = bulk.Cause(
            request.application_id, request.gross_cents, f"payment:{request.document_number}"
        )
        per_account[request.account_id].append(cause)
    accounts = BudgetAccount.objects.in_bulk(list(per_account))
    for account_id in sorted(per_account):
        bulk.move_many(
            "disburse", accounts[account_id], per_account[account_id], actor=user.username
        )
    _recover_set_offs(user, [request.pk for request, _ in paid if request.set_off_cents])
    _tell_paid(confirmation, [request for request, _ in paid])


_TABLE = PaymentRequest._meta.db_table
# One statement for every payment, each row its own day and reference, the values as one array
# per column (Django's bulk_update writes a CASE per column and row: 30 s of CPU for 2,000
# payments).
_PAID_SQL = (
    f'UPDATE "{_TABLE}" SET "state" = %s, "paid_at" = %s, "paid_on" = v."paid_on",'
    ' "payment_reference" = v."reference"'
    " FROM unnest(%s::bigint[], %s::date[], %s::varchar[]) AS v(id, paid_on, reference)"
    f' WHERE "{_TABLE}"."id" = v."id"'
)
_PAID_ONE_SQL = (
    f'UPDATE "{_TABLE}" SET "state" = %s, "paid_at" = %s, "paid_on" = %s,'
    ' "payment_reference" = %s WHERE "id" = %s'
)


def _mark_paid(paid: list[tuple[_Named, ConfirmationRow]], now: Any) -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                _PAID_SQL,
                [
                    str(RequestState.PAID),
                    now,
                    [request.pk for request, _ in paid],
                    [request.paid_on for request, _ in paid],
                    [row.payment_reference for _, row in paid],
                ],
            )
        else:
            cursor.executemany(
                _PAID_ONE_SQL,
                [
                    (str(RequestState.PAID), now, r.paid_on, row.payment_reference, r.pk)
                    for r, row in paid
                ],
            )


def _recover_set_offs(user: User, request_ids: list[int]) -> None:
    if not request_ids:
        return
    set_offs = SetOff.objects.filter(request_id__in=request_ids).select_related("request")
    for set_off in set_offs.order_by("receivable_id", "id"):
        receivable = (
            Receivable.objects.select_for_update()
            .select_related("application", "account")
            .get(pk=set_off.receivable_id)
        )
        Recovery.objects.create(
            receivable=receivable,
            kind=RecoveryKind.SET_OFF,
            amount_cents=set_off.amount_cents,
            received_on=set_off.request.paid_on or timezone.localdate(),
            reference=set_off.request.document_number,
            payment=set_off.request,
            recorded_by=user,
            recorded_at=timezone.now(),
        )
        bulk.move_many(
            "recover",
            receivable.account,
            [
                bulk.Cause(
                    receivable.application_id,
                    set_off.amount_cents,
                    f"receivable:{receivable.pk}",
                )
            ],
            actor=user.username,
        )
        receivable.pending_set_off_cents -= set_off.amount_cents
        receivable.recovered_cents += set_off.amount_cents
        receivable.state = settle_state(receivable, RecoveryKind.SET_OFF)
        receivable.save(update_fields=["pending_set_off_cents", "recovered_cents", "state"])
        record(
            user.username,
            "receivable.set_off",
            "receivable",
            receivable.pk,
            {
                "amount": format_amount(set_off.amount_cents),
                "payment": set_off.request.document_number,
                "state": receivable.state,
            },
        )


def _tell_paid(confirmation: ConfirmationImport, requests: list[_Named]) -> None:
    """One message per file, employer paid and person told: what was paid, in their language
    (a file of 10,000 payments to 200 employers sends 200 messages, not 10,000)."""
    people = _people_of({request.application_id for request in requests})
    grouped: dict[tuple[int, int], list[_Named]] = defaultdict(list)
    for request in requests:
        grouped[(request.payee_id, people[request.application_id])].append(request)
    # Only the application each message is written from is loaded whole (200, not 10,000).
    applications = Application.objects.select_related("created_by").in_bulk(
        [paid[0].application_id for paid in grouped.values()]
    )
    for (payee_id, _person), paid in grouped.items():
        application = applications[paid[0].application_id]
        set_off = sum(r.set_off_cents for r in paid)
        numbers = sorted({r.application_id for r in paid})
        tell_employer(
            application,
            "payment_sent",
            confirmation,
            amount_cents=sum(r.net_cents for r in paid),
            milestone=f"payee:{payee_id}",
            extra={
                "reference": ", ".join(str(n) for n in numbers[:20])
                + (" …" if len(numbers) > 20 else ""),
                "documents": ", ".join(r.document_number for r in paid[:20])
                + (" …" if len(paid) > 20 else ""),
                "set_off": format_money(set_off, language_of(application.created_by)),
                "has_set_off": "yes" if set_off else "",
            },
        )


def _people_of(application_ids: set[int]) -> dict[int, int]:
    """application id -> the person who made it, in chunks (no model objects)."""
    ids = sorted(application_ids)
    people: dict[int, int] = {}
    for start in range(0, len(ids), CHUNK):
        people.update(
            Application.objects.filter(pk__in=ids[start : start + CHUNK]).values_list(
                "id", "created_by_id"
            )
        )
    return people


def _close_reconciled_batches(batch_ids: set[int]) -> None:
    for batch_id in batch_ids:
        waiting = PaymentRequest.objects.filter(
            batch_id=batch_id, state__in=OPEN_REQUEST_STATES
        ).exists()
        if not waiting:
            PaymentBatch.objects.filter(pk=batch_id, state=BatchState.EXPORTED).update(
                state=BatchState.RECONCILED
            )
