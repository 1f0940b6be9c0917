"""Payments (FAA s.33): build a batch, hold a payment, authorize, export, import confirmations.

Each is one transaction with its audit entry. Building a batch for a jurisdiction and fiscal
year locks that year's document counter first, so two batches of one pool are built one after
the other and never both take a claim (a partial unique index on open requests per claim and
funder backs it). The money of a claim is `approved to date − paid to date` per funder, worked
out per claim number (all its versions): approved on the version in force, minus what was paid
on every version, plus what an amendment already took back as a receivable, minus what is on
its way in a batch. A negative amount is not paid: it is raised as a receivable. Open
receivables of the same employer and funder are set off against its payments (the batch nets
them: the paying system pays gross − set-off). A confirmed payment disburses, and its set-offs
recover, in the transaction of the import.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, Q, Sum
from django.utils import timezone

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.money import format_amount, format_money
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import bad_input, problem
from jobgrant.service.grants.completion.report import complete_paid_files
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import Application, ApplicationEmployer
from jobgrant.service.grants.models.claims import Claim, ClaimShare, ClaimState
from jobgrant.service.grants.models.payments import (
    OPEN_REQUEST_STATES,
    BatchState,
    ConfirmationImport,
    ConfirmationLine,
    DocumentCounter,
    LineOutcome,
    PaymentBatch,
    PaymentRequest,
    Receivable,
    ReceivableCause,
    ReceivableState,
    Recovery,
    RecoveryKind,
    RequestState,
    SetOff,
)
from jobgrant.service.grants.payments.files import (
    ConfirmationRow,
    ExportLine,
    Known,
    Matched,
    document_number,
    export_csv,
    gl_coding,
    match,
    parse_confirmation_file,
)
from jobgrant.service.grants.payments.recovery import employer_language, settle_state, tell_employer
from jobgrant.service.grants.payments.recovery_hooks import overpaid
from jobgrant.service.grants.payments.refusals import (
    illegal_payment_transition,
    payment_not_found,
)
from jobgrant.service.ledger import bulk
from jobgrant.service.ledger.models import BudgetAccount, Funder
from jobgrant.service.refusals import forbidden_for, refused
from jobgrant.service.rows import insert_many

FISCAL_YEAR_LENGTH = 7
CHUNK = 1000  # ids per IN (...) list: inside SQLite's limit on bound parameters
MAX_REASON = 2000
Lineage = tuple[int, int, str]  # (application id, claim number, funder)


def _checked_pool(fields: dict[str, Any]) -> tuple[str, str]:
    jurisdiction, year = fields.get("jurisdiction"), fields.get("fiscal_year")
    problems = []
    if jurisdiction not in JURISDICTION_CODES:
        problems.append(
            problem(
                "jurisdiction",
                "must be a province or territory code (e.g. ON)",
                "doit être le code d'une province ou d'un territoire (p. ex. ON)",
            )
        )
    if not _is_fiscal_year(year):
        problems.append(
            problem(
                "fiscal_year",
                "must be a fiscal year written 2026-27",
                "doit être un exercice écrit 2026-27",
            )
        )
    if problems:
        raise bad_input(problems)
    return str(jurisdiction), str(year)


def _is_fiscal_year(year: object) -> bool:
    if not isinstance(year, str) or len(year) != FISCAL_YEAR_LENGTH or year[4] != "-":
        return False
    start, end = year[:4], year[5:]
    return start.isdigit() and end.isdigit() and (int(start) + 1) % 100 == int(end)


# --- Building ----------------------------------------------------------------------------------


@dataclass
class _Due:
    claim_id: int
    application_id: int
    number: int
    funder: str
    stream: str
    cents: int


def _lock_counter(jurisdiction: str, year: str) -> DocumentCounter:
    DocumentCounter.objects.get_or_create(jurisdiction=jurisdiction, fiscal_year=year)
    return DocumentCounter.objects.select_for_update().get(
        jurisdiction=jurisdiction, fiscal_year=year
    )


def _sums(rows: Iterable[tuple[int, int, str, int | None]]) -> dict[Lineage, int]:
    found: dict[Lineage, int] = defaultdict(int)
    for application_id, number, funder, cents in rows:
        found[(application_id, number, funder)] += int(cents or 0)
    return found


def dues(jurisdiction: str, year: str) -> list[_Due]:
    """approved to date − paid to date of every approved claim of the pool, per funder, leaving
    out the claims with a payment on hold (the figures may be negative: money to take back)."""
    in_pool = Q(application__jurisdiction=jurisdiction, application__fiscal_year=year)
    requests = PaymentRequest.objects.filter(in_pool)
    paid = _sums(
        requests.filter(state=RequestState.PAID)
        .values_list("application_id", "claim__number", "funder")
        .annotate(total=Sum("gross_cents"))
    )
    on_the_way = _sums(
        requests.filter(state__in=OPEN_REQUEST_STATES)
        .values_list("application_id", "claim__number", "funder")
        .annotate(total=Sum("gross_cents"))
    )
    held = set(
        requests.filter(state=RequestState.HELD).values_list(
            "application_id", "claim__number", "funder"
        )
    )
    taken_back = _sums(
        Receivable.objects.filter(in_pool, cause=ReceivableCause.AMENDMENT)
        .values_list("application_id", "claim__number", "funder")
        .annotate(total=Sum("amount_cents"))
    )
    shares = ClaimShare.objects.filter(
        claim__state=ClaimState.APPROVED,
        claim__application__jurisdiction=jurisdiction,
        claim__application__fiscal_year=year,
        approved_cents__isnull=False,
    ).values_list(
        "claim_id",
        "claim__application_id",
        "claim__number",
        "funder",
        "approved_cents",
        "claim__application__stream__code",
    )
    found = []
    for claim_id, application_id, number, funder, approved, stream in shares.order_by(
        "claim__application_id", "claim__number", "funder"
    ):
        key = (application_id, number, funder)
        if key in held:
            continue
        cents = (
            int(approved or 0) - paid.get(key, 0) + taken_back.get(key, 0) - on_the_way.get(key, 0)
        )
        if cents:
            found.append(_Due(claim_id, application_id, number, funder, stream, cents))
    return found


def _payees(application_ids: Iterable[int]) -> dict[int, int]:
    """application id -> its lead employer's id (the payee)."""
    ids = sorted(set(application_ids))
    payees: dict[int, int] = {}
    for start in range(0, len(ids), CHUNK):
        rows = (
            ApplicationEmployer.objects.filter(application_id__in=ids[start : start + CHUNK])
            .order_by("application_id", "-position")
            .values_list("application_id", "employer_id")
        )
        payees.update(rows)  # the last written per application is its lowest position
    return payees


def _accounts(jurisdiction: str, year: str) -> dict[tuple[str, str], BudgetAccount]:
    found = BudgetAccount.objects.filter(jurisdiction=jurisdiction, fiscal_year=year)
    return {(str(a.funder), str(a.stream)): a for a in found}


@audited_refusals_of("paymentbatch")
def build_batch(user: User, fields: dict[str, Any]) -> PaymentBatch:
    """A batch of every certified claim of a jurisdiction and fiscal year not on hold, one
    payment request per claim and funder, open receivables of each payee set off against it."""
    access.require_role(user, Role.FINANCE)
    jurisdiction, year = _checked_pool(fields)
    with transaction.atomic():
        counter = _lock_counter(jurisdiction, year)
        found = dues(jurisdiction, year)
        to_pay = [due for due in found if due.cents > 0]
        if not to_pay:
            raise refused(
                409, "NOTHING_TO_PAY", lambda: {"jurisdiction": jurisdiction, "year": year}
            )
        _take_back([due for due in found if due.cents < 0], user)
        batch = _make_batch(user, counter, to_pay)
        record(
            user.username,
            "payment_batch.build",
            "paymentbatch",
            batch.pk,
            {
                "jurisdiction": jurisdiction,
                "fiscal_year": year,
                "requests": batch.requests_count,
                "total": format_amount(batch.total_cents),
            },
        )
    return batch


def _take_back(negative: list[_Due], user: User) -> None:
    """Paid more than is approved now and nobody raised it yet: a receivable, never a negative
    payment."""
    for due in negative:
        claim = Claim.objects.select_related("certified_by").get(pk=due.claim_id)
        overpaid(claim, due.funder, -due.cents, actor=user.username)


@dataclass
class _NewRequest:
    """A payment request about to be written (plain values: no model instance for each of
    20,000 payments)."""

    claim_id: int
    application_id: int
    payee_id: int
    account_id: int
    funder: str
    document_number: str
    gross_cents: int
    set_off_cents: int = 0
    net_cents: int = 0


_REQUEST_COLUMNS = (
    "batch_id",
    "claim_id",
    "application_id",
    "payee_id",
    "account_id",
    "funder",
    "document_number",
    "gross_cents",
    "set_off_cents",
    "net_cents",
    "state",
    "held_reason",
    "payment_reference",
)


def _make_batch(user: User, counter: DocumentCounter, to_pay: list[_Due]) -> PaymentBatch:
    jurisdiction, year = counter.jurisdiction, counter.fiscal_year
    payees = _payees(due.application_id for due in to_pay)
    accounts = _accounts(jurisdiction, year)
    batch = PaymentBatch.objects.create(
        jurisdiction=jurisdiction,
        fiscal_year=year,
        built_by=user,
        built_at=timezone.now(),
    )
    requests = [
        _NewRequest(
            claim_id=due.claim_id,
            application_id=due.application_id,
            payee_id=payees[due.application_id],
            account_id=accounts[(due.funder, due.stream)].pk,
            funder=due.funder,
            document_number=document_number(jurisdiction, year, sequence),
            gross_cents=due.cents,
            net_cents=due.cents,
        )
        for sequence, due in enumerate(to_pay, start=counter.last + 1)
    ]
    counter.last += len(requests)
    counter.save(update_fields=["last"])
    netted = _net_receivables(jurisdiction, requests)
    ids = insert_many(
        PaymentRequest,
        _REQUEST_COLUMNS,
        [
            (
                *(batch.pk, r.claim_id, r.application_id, r.payee_id, r.account_id, r.funder),
                *(r.document_number, r.gross_cents, r.set_off_cents, r.net_cents),
                *(str(RequestState.BATCHED), "", ""),
            )
            for r in requests
        ],
        returning=True,
    )
    SetOff.objects.bulk_create(
        [
            SetOff(request_id=ids[index], receivable_id=receivable_id, amount_cents=cents)
            for index, receivable_id, cents in netted
        ],
        batch_size=CHUNK,
    )
    batch.requests_count = len(requests)
    batch.total_cents = sum(request.net_cents for request in requests)
    batch.save(update_fields=["requests_count", "total_cents"])
    return batch


def _net_receivables(jurisdiction: str, requests: list[_NewRequest]) -> list[tuple[int, int, int]]:
    """Set the open receivables of each payee and funder off against its payments, oldest due
    first (each receivable row locked: a repayment recorded meanwhile waits). Returns (index of
    the request, receivable id, cents) for each set-off."""
    by_payee: dict[tuple[int, str], list[int]] = defaultdict(list)
    for index, request in enumerate(requests):
        by_payee[(request.payee_id, request.funder)].append(index)
    netted: list[tuple[int, int, int]] = []
    open_states = (ReceivableState.OPEN, ReceivableState.PARTIALLY_RECOVERED)
    owed = (
        Receivable.objects.select_for_update()
        .filter(
            state__in=open_states,
            application__jurisdiction=jurisdiction,
            debtor_id__in={payee for payee, _ in by_payee},
        )
        .order_by("due_on", "id")
    )
    for receivable in owed:
        for index in by_payee.get((receivable.debtor_id, receivable.funder), []):
            request = requests[index]
            cents = min(receivable.outstanding_cents, request.net_cents)
            if cents <= 0:
                continue
            request.set_off_cents += cents
            request.net_cents -= cents
            netted.append((index, receivable.pk, cents))
            receivable.pending_set_off_cents += cents
        Receivable.objects.filter(pk=receivable.pk).update(
            pending_set_off_cents=receivable.pending_set_off_cents
        )
    return netted


# --- Holding -----------------------------------------------------------------------------------


@audited_refusals_of("paymentrequest")
def hold_payment(user: User, request_id: int, reason: object) -> PaymentRequest:
    """Take a payment out of a batch awaiting authorization, with a reason; its claim is on
    hold (no batch takes it) until the hold is lifted."""
    access.require_role(user, Role.FINANCE)
    text = reason.strip() if isinstance(reason, str) else ""
    if not text or len(text) > MAX_REASON:
        raise bad_input(
            [
                problem(
                    "reason",
                    f"is required (1 to {MAX_REASON} characters)",
                    f"est obligatoire (1 à {MAX_REASON} caractères)",
                )
            ]
        )
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
    """The claim may be paid again: the next batch takes it (with a new document number)."""
    access.require_role(user, Role.FINANCE)
    with transaction.atomic():
        request = _lock_request(request_id)
        if request.state != RequestState.HELD:
            raise illegal_payment_transition(
                "lift", request.state, RequestState(request.state).label
            )
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


# --- Authorizing and exporting -----------------------------------------------------------------


@audited_refusals_of("paymentbatch")
def authorize_batch(user: User, batch: PaymentBatch, note: str = "") -> PaymentBatch:
    """s.33: a second finance officer authorizes the batch: never its builder, never the
    certifier of a claim it pays, never someone affiliated with an employer it pays."""
    access.require_role(user, Role.FINANCE)
    with transaction.atomic():
        locked = PaymentBatch.objects.select_for_update().get(pk=batch.pk)
        if locked.state != BatchState.BUILT:
            raise illegal_payment_transition(
                "authorize", locked.state, BatchState(locked.state).label
            )
        if locked.built_by_id == user.pk:
            raise forbidden_for("BUILDER_AUTHORIZES")
        open_requests = locked.requests.filter(state=RequestState.BATCHED)
        certified = (
            Claim.objects.filter(payments__in=open_requests, certified_by=user)
            .values_list("number", "application_id")
            .first()
        )
        if certified is not None:
            number, application_id = certified
            raise refused(
                403,
                "CERTIFIER_AUTHORIZES",
                lambda: {"claim": number, "application": application_id},
            )
        if user.employers.filter(pk__in=open_requests.values("payee_id")).exists():
            raise forbidden_for("PAYEE_CONFLICT")
        now = timezone.now()
        open_requests.update(state=RequestState.AUTHORIZED)
        locked.state, locked.authorized_by, locked.authorized_at = BatchState.AUTHORIZED, user, now
        locked.save(update_fields=["state", "authorized_by", "authorized_at"])
        record(
            user.username,
            "payment_batch.authorize",
            "paymentbatch",
            locked.pk,
            {
                "requests": locked.requests_count,
                "total": format_amount(locked.total_cents),
                "note": note[:MAX_REASON],
            },
        )
    return locked


@audited_refusals_of("paymentbatch")
def export_batch(user: User, batch: PaymentBatch) -> bytes:
    """The file for the paying system. The first export moves the batch and its payments to
    exported and keeps the file; every later download is that same file, byte for byte."""
    access.require_role(user, Role.FINANCE, Role.AUDITOR)
    if batch.export_sha256:
        return batch.export_csv.encode("utf-8")
    if user.role != Role.FINANCE:
        access.require_role(user, Role.FINANCE)
    with transaction.atomic():
        locked = PaymentBatch.objects.select_for_update().get(pk=batch.pk)
        if locked.export_sha256:
            return locked.export_csv.encode("utf-8")
        if locked.state != BatchState.AUTHORIZED:
            raise refused(
                409,
                "BATCH_NOT_AUTHORIZED",
                lambda: {"state": BatchState(locked.state).label},
                extra={"state": locked.state},
            )
        content = export_csv(_export_lines(locked))
        requests = locked.requests.filter(state=RequestState.AUTHORIZED)
        requests.update(state=RequestState.EXPORTED)
        locked.state, locked.exported_at = BatchState.EXPORTED, timezone.now()
        locked.export_csv = content.decode("utf-8")
        locked.export_sha256 = hashlib.sha256(content).hexdigest()
        locked.save(update_fields=["state", "exported_at", "export_csv", "export_sha256"])
        record(
            user.username,
            "payment_batch.export",
            "paymentbatch",
            locked.pk,
            {"sha256": locked.export_sha256, "requests": locked.requests_count},
        )
    return content


def _export_lines(batch: PaymentBatch) -> list[ExportLine]:
    rows = (
        batch.requests.filter(state=RequestState.AUTHORIZED)
        .order_by("id")
        .values_list(
            "document_number",
            "payee__business_number",
            "payee__name",
            "net_cents",
            "funder",
            "account__stream",
        )
    )
    return [
        ExportLine(
            number,
            business_number,
            payee,
            cents,
            batch.fiscal_year,
            funder,
            gl_coding(funder, batch.jurisdiction, batch.fiscal_year, stream),
        )
        for number, business_number, payee, cents, funder, stream in rows
    ]


# --- Confirming --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Imported:
    confirmation: ConfirmationImport
    replayed: bool  # the same file was imported before: nothing changed


def import_confirmations(
    user: User, batch: PaymentBatch, content: bytes, filename: str = ""
) -> Imported:
    return _import(user, batch, content, filename)


@audited_refusals_of("paymentbatch")
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
                "set_off": format_money(set_off, employer_language(application)),
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


def funder_label(funder: str) -> str:
    return str(Funder(funder).label) if funder in Funder.values else funder
