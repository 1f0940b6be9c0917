"""Payment batches (FAA s.33): built from what each approved claim is owed, authorized by a
second finance officer.

Each is one transaction with its audit entry. Building a batch for a jurisdiction and fiscal
year locks that year's document counter first, so two batches of one pool are built one after
the other and never both take a claim (a partial unique index on open requests per claim and
funder backs it). The money of a claim is `approved to date − paid to date` per funder, worked
out per claim number (all its versions): approved on the version in force, minus what was paid
on every version, plus what an amendment already took back as a receivable, minus what is on
its way in a batch. A negative amount is not paid: it is raised as a receivable. Open
receivables of the same employer and funder are set off against its payments (the batch nets
them: the paying system pays gross − set-off).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Q, Sum
from django.utils import timezone

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import bad_input, problem
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import ApplicationEmployer
from jobgrant.service.grants.models.claims import Claim, ClaimShare, ClaimState
from jobgrant.service.grants.models.payments import (
    OPEN_REQUEST_STATES,
    BatchState,
    DocumentCounter,
    PaymentBatch,
    PaymentRequest,
    Receivable,
    ReceivableCause,
    ReceivableState,
    RequestState,
    SetOff,
)
from jobgrant.service.grants.payments.files import (
    document_number,
)
from jobgrant.service.grants.payments.limits import CHUNK, MAX_REASON
from jobgrant.service.grants.payments.recovery_hooks import overpaid
from jobgrant.service.grants.payments.refusals import (
    illegal_payment_transition,
)
from jobgrant.service.ledger.models import BudgetAccount
from jobgrant.service.refusals import forbidden_for, refused
from jobgrant.service.rows import insert_many

FISCAL_YEAR_LENGTH = 7
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
    payment request per claim and funder, open receivables of each payee set off against it.
    Never built by someone affiliated with an employer it would pay (PAYEE_CONFLICT)."""
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
        payees = set(_payees(due.application_id for due in to_pay).values())
        if user.employers.filter(pk__in=payees).exists():
            raise forbidden_for("PAYEE_CONFLICT")
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


# --- Authorizing -------------------------------------------------------------------------------


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
