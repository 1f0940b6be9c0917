"""Moving money between a budget's buckets: allocate, earmark, commit, release, disburse.

Every operation runs inside the caller's transaction: the balance update and the postings
commit (or roll back) together with the state change that caused them. The commitment rule is
structural: one conditional UPDATE that only succeeds while the allocation covers it, backed by
a CHECK constraint, so concurrent approvals can never over-commit a budget. An intake's budget is
an earmark on its account, taken and spent by the same means (ADR 0048): a file of an intake with
an earmark commits from the earmark, any other file from what no earmark holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from django.db import connection, transaction
from django.db.backends.utils import CursorWrapper
from django.db.models import F, Q, Sum
from django.db.models.expressions import CombinedExpression
from django.utils import timezone

from jobgrant.service.ledger.models import (
    NESTED_BUCKETS,
    Bucket,
    BudgetAccount,
    Earmark,
    LedgerTransaction,
    Posting,
)

if TYPE_CHECKING:
    from jobgrant.service.grants.models.applications import Application


@dataclass
class InsufficientBudget(Exception):  # noqa: N818 - the business name of the refusal
    account: BudgetAccount
    requested_cents: int

    @property
    def available_cents(self) -> int:
        return self.account.available_cents


@dataclass
class InsufficientIntakeBudget(InsufficientBudget):
    """The intake's earmark on the account cannot take the commitment (ADR 0048)."""

    earmark: Earmark | None = None

    @property
    def available_cents(self) -> int:
        return self.earmark.available_cents if self.earmark else 0


class EarmarkBelowCommitted(Exception):  # noqa: N818 - the business name of the refusal
    """An intake's budget lowered below what its files already committed of it."""

    def __init__(self, earmark: Earmark, cents: int) -> None:
        super().__init__(f"earmark {earmark.pk}: {cents} is below {earmark.committed_cents}")
        self.earmark = earmark
        self.cents = cents


class NoBudget(Exception):  # noqa: N818 - the business name of the refusal
    """The pool has no budget account for a funder that has a share to commit."""

    def __init__(self, funder: str) -> None:
        super().__init__(f"no {funder} budget")
        self.funder = funder


@dataclass(frozen=True)
class Pool:
    """Where an application's money comes from: one budget account per funder."""

    jurisdiction: str
    fiscal_year: str
    stream: str


def _post(
    kind: str,
    actor: str,
    legs: list[tuple[BudgetAccount, str, int]],
    application: Application | None = None,
    reference: str = "",
) -> LedgerTransaction:
    if sum(amount for _, _, amount in legs) != 0:
        raise ValueError("a ledger transaction's legs must sum to zero")
    entry = LedgerTransaction.objects.create(
        kind=kind, actor=actor, application=application, reference=reference
    )
    Posting.objects.bulk_create(
        Posting(transaction=entry, account=account, bucket=bucket, amount_cents=amount)
        for account, bucket, amount in legs
        if amount
    )
    return entry


def _require_transaction() -> None:
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("ledger operations run inside the transaction of their cause")


def _require_positive(cents: int) -> None:
    """A commitment or release of zero or less would move money the other way unchecked."""
    if isinstance(cents, bool) or not isinstance(cents, int) or cents <= 0:
        raise ValueError(f"an amount to commit or release must be positive cents, not {cents!r}")


def allocate(account: BudgetAccount, cents: int, *, actor: str) -> None:
    _require_transaction()
    BudgetAccount.objects.filter(pk=account.pk).update(allocated_cents=F("allocated_cents") + cents)
    _post(
        "allocate",
        actor,
        [(account, Bucket.APPROPRIATION, -cents), (account, Bucket.AVAILABLE, cents)],
    )
    account.refresh_from_db()


def commit(
    account: BudgetAccount, cents: int, *, actor: str, application: Application | None
) -> None:
    """Commit `cents` against one account, with the statements an approval runs
    (commit_shares): InsufficientBudget if the allocation is short, and the caller's
    transaction must then roll back. `account` is not refreshed on success, as a re-read would
    only lengthen the budget row's hold (callers read balances afresh)."""
    funder = str(account.funder)
    _commit_to({funder: account.pk}, [(funder, cents)], actor=actor, application=application)


def release(account: BudgetAccount, cents: int, *, actor: str, application: Application) -> None:
    """Give back a commitment (withdrawal after approval); more than is committed is refused
    by the database (CHECK), and the caller's transaction must then roll back. What the
    application committed from its intake's earmark goes back to the earmark (the earmark's row
    first, then the account's, as a commitment locks them); the rest to the account."""
    _require_transaction()
    _require_positive(cents)
    to_earmark = min(cents, earmarked_commitment(application, account))
    reference = ""
    if to_earmark > 0 and application.intake_id is not None:
        Earmark.objects.filter(intake_id=application.intake_id, account=account).update(
            committed_cents=F("committed_cents") - to_earmark
        )
        reference = intake_reference(application.intake_id)
    BudgetAccount.objects.filter(pk=account.pk).update(
        committed_cents=F("committed_cents") - cents,
        earmarked_cents=F("earmarked_cents") + to_earmark,
    )
    legs = [
        (account, Bucket.COMMITTED, -cents),
        (account, Bucket.EARMARKED, to_earmark),
        (account, Bucket.AVAILABLE, cents - to_earmark),
    ]
    _post("release", actor, [leg for leg in legs if leg[2]], application, reference)
    account.refresh_from_db()


_TABLE = BudgetAccount._meta.db_table
#: The pool's accounts, each with its earmark for the application's intake when that earmark
#: has a budget (none when the application has no intake: NULL matches nothing).
_POOL_SQL = (
    f'SELECT a."funder", a."id", e."id" FROM "{_TABLE}" a'
    f' LEFT JOIN "{Earmark._meta.db_table}" e ON e."account_id" = a."id"'
    ' AND e."intake_id" = %s AND e."budget_cents" > 0'
    ' WHERE a."jurisdiction" = %s AND a."fiscal_year" = %s AND a."stream" = %s'
)
_ENTRY_SQL = (
    f'INSERT INTO "{LedgerTransaction._meta.db_table}" ("kind", "application_id", "actor",'
    ' "created_at", "reference") VALUES {} RETURNING "id"'
)
_LEG_SQL = (
    f'INSERT INTO "{Posting._meta.db_table}" ("transaction_id", "account_id", "bucket",'
    ' "amount_cents") VALUES {}'
)
# The room left is the postings' `available` bucket: the allocation less what is committed and
# less what was paid and then owed back, recovered or written off (BudgetAccount.available_cents).
_COMMIT_SQL = (
    f'UPDATE "{_TABLE}" SET "committed_cents" = "committed_cents" + %s'
    ' WHERE "id" = %s AND "committed_cents" + "receivable_cents" + "recovered_cents"'
    ' + "written_off_cents" + "earmarked_cents" <= "allocated_cents" - %s RETURNING "id"'
)
_EARMARK_TABLE = Earmark._meta.db_table
# A commitment of an intake's file: its earmark first (the intake's budget decides), then the
# account, whose earmarked money becomes committed (CHECK keeps both within their bounds).
_EARMARK_COMMIT_SQL = (
    f'UPDATE "{_EARMARK_TABLE}" SET "committed_cents" = "committed_cents" + %s'
    ' WHERE "id" = %s AND "committed_cents" + %s <= "budget_cents" RETURNING "id"'
)
_EARMARKED_COMMIT_SQL = (
    f'UPDATE "{_TABLE}" SET "committed_cents" = "committed_cents" + %s,'
    ' "earmarked_cents" = "earmarked_cents" - %s WHERE "id" = %s'
)


def _rows(sql: str, rows: int, columns: int) -> str:
    row = "(" + ", ".join(["%s"] * columns) + ")"
    return sql.format(", ".join([row] * rows))


def commit_shares(
    pool: Pool, shares: list[tuple[str, int]], *, actor: str, application: Application
) -> None:
    """Commit each funder's share against its budget in `pool` (see _commit_to). The accounts
    and the intake's earmarks on them are read by one statement (every approval runs it)."""
    intake_id = getattr(application, "intake_id", None)
    with connection.cursor() as cursor:
        cursor.execute(_POOL_SQL, [intake_id, pool.jurisdiction, pool.fiscal_year, pool.stream])
        found = cursor.fetchall()
    ids: dict[str, int] = {funder: account for funder, account, _ in found}
    earmarks: dict[int, Earmark] = {}
    if intake_id is not None:
        earmarks = {
            account: Earmark(pk=earmark, intake_id=intake_id, account_id=account)
            for _, account, earmark in found
            if earmark is not None
        }
    _commit_to(ids, shares, actor=actor, application=application, earmarks=earmarks)


def _commit_to(
    ids: dict[str, int],
    shares: list[tuple[str, int]],
    *,
    actor: str,
    application: Application | None,
    earmarks: dict[int, Earmark] | None = None,
) -> None:
    """Commit each funder's share against its account (`ids`: funder -> account id), with one
    ledger transaction per funder (two legs each): from the intake's earmark on the account
    when the application's intake has one with a budget (ADR 0048), else from what no earmark
    holds.

    Every approval waits for the same budget rows, so they are locked last: the ledger
    transactions and their legs are written first (two plain statements), then each row is
    updated by one conditional UPDATE, in the order given (the same for every approval, so that
    two approvals never hold each other's rows; an earmark's row before its account's, as
    `set_earmark` locks them). At the first share that does not fit, NoBudget,
    InsufficientBudget or InsufficientIntakeBudget is raised: the ledger rows are written and
    an earlier share may be committed, so the caller's transaction must roll back.
    """
    _require_transaction()
    for _, cents in shares:
        _require_positive(cents)
    application_id = application.pk if application is not None else None
    if earmarks is None:
        earmarks = _earmarks_of(application, ids)
    with connection.cursor() as cursor:
        if shares and all(funder in ids for funder, _ in shares):
            _write_commitments(cursor, ids, shares, earmarks, application_id, actor)
        for funder, cents in shares:
            if funder not in ids:
                raise NoBudget(funder)
            earmark = earmarks.get(ids[funder])
            if earmark is not None:
                _commit_from_earmark(cursor, earmark, ids[funder], cents)
                continue
            cursor.execute(_COMMIT_SQL, [cents, ids[funder], cents])
            if cursor.fetchone() is None:
                found = BudgetAccount.objects.filter(pk=ids[funder]).first()
                if found is None:
                    raise NoBudget(funder)
                raise InsufficientBudget(found, cents)


def _earmarks_of(application: Application | None, ids: dict[str, int]) -> dict[int, Earmark]:
    """The application's intake's earmarks with a budget, by account id (none without one)."""
    intake_id = getattr(application, "intake_id", None)
    if intake_id is None or not ids:
        return {}
    found = Earmark.objects.filter(
        intake_id=intake_id, account_id__in=list(ids.values()), budget_cents__gt=0
    )
    return {earmark.account_id: earmark for earmark in found}


def _write_commitments(
    cursor: CursorWrapper,
    ids: dict[str, int],
    shares: list[tuple[str, int]],
    earmarks: dict[int, Earmark],
    application_id: int | None,
    actor: str,
) -> None:
    """The commitments' ledger transactions and legs, in two statements."""
    at = timezone.now()
    sources = [_commit_source(earmarks.get(ids[funder])) for funder, _ in shares]
    cursor.execute(
        _rows(_ENTRY_SQL, len(shares), 5),
        [
            value
            for _, reference in sources
            for value in ("commit", application_id, actor, at, reference)
        ],
    )
    entries = [entry for (entry,) in cursor.fetchall()]
    legs = [
        (entry, ids[funder], str(bucket), amount)
        for entry, (funder, cents), (source, _) in zip(entries, shares, sources, strict=True)
        for bucket, amount in ((source, -cents), (Bucket.COMMITTED, cents))
    ]
    cursor.execute(_rows(_LEG_SQL, len(legs), 4), [v for leg in legs for v in leg])


def _commit_source(earmark: Earmark | None) -> tuple[str, str]:
    """The bucket a commitment leaves, and its transaction's reference."""
    if earmark is None:
        return str(Bucket.AVAILABLE), ""
    return str(Bucket.EARMARKED), intake_reference(earmark.intake_id)


def intake_reference(intake_id: int) -> str:
    """The reference of every ledger transaction that moves an intake's earmarked money."""
    return f"intake:{intake_id}"


def _commit_from_earmark(
    cursor: CursorWrapper, earmark: Earmark, account_id: int, cents: int
) -> None:
    cursor.execute(_EARMARK_COMMIT_SQL, [cents, earmark.pk, cents])
    if cursor.fetchone() is None:
        earmark.refresh_from_db()
        account = BudgetAccount.objects.get(pk=account_id)
        raise InsufficientIntakeBudget(account, cents, earmark)
    cursor.execute(_EARMARKED_COMMIT_SQL, [cents, cents, account_id])


# --- An intake's budget: an earmark on its account (ADR 0048) ----------------------------


def set_earmark(intake_id: int, account: BudgetAccount, cents: int, *, actor: str) -> Earmark:
    """Set the intake's budget from `account` to `cents`. The ledger decides: more is taken
    from the account's available money by a conditional UPDATE (InsufficientBudget when it
    does not hold it, and two intakes asking at once cannot both have it); less is given back,
    never below what the intake's files committed (EarmarkBelowCommitted). Locks the earmark's
    row, then the account's, as a commitment does. In the caller's transaction, which must roll
    back on a refusal."""
    _require_transaction()
    if isinstance(cents, bool) or not isinstance(cents, int) or cents < 0:
        raise ValueError(f"an intake's budget is zero or more cents, not {cents!r}")
    Earmark.objects.bulk_create(
        [Earmark(intake_id=intake_id, account=account)], ignore_conflicts=True
    )
    earmark = Earmark.objects.select_for_update().get(intake_id=intake_id, account=account)
    change = cents - earmark.budget_cents
    if change == 0:
        return earmark
    if not Earmark.objects.filter(pk=earmark.pk, committed_cents__lte=cents).update(
        budget_cents=cents
    ):
        raise EarmarkBelowCommitted(earmark, cents)
    _move_earmarked(account, change)
    legs = [(account, str(Bucket.AVAILABLE), -change), (account, str(Bucket.EARMARKED), change)]
    _post("earmark" if change > 0 else "unearmark", actor, legs, None, intake_reference(intake_id))
    earmark.refresh_from_db()
    return earmark


def _move_earmarked(account: BudgetAccount, change: int) -> None:
    """Move `change` cents from the account's available money into its earmarked money (or
    back, when negative): taking is conditional on the available money holding it."""
    rows = BudgetAccount.objects.filter(pk=account.pk)
    if change > 0:
        rows = rows.filter(_holds(Bucket.AVAILABLE, change))
    if rows.update(earmarked_cents=F("earmarked_cents") + change) != 1:
        found = BudgetAccount.objects.get(pk=account.pk)
        raise InsufficientBudget(found, change)


def earmarked_commitment(application: Application, account: BudgetAccount) -> int:
    """What the application committed on `account` from its intake's earmark, and has not
    given back: the money a release returns to the earmark rather than to the account."""
    total = Posting.objects.filter(
        transaction__application=application, account=account, bucket=Bucket.EARMARKED
    ).aggregate(total=Sum("amount_cents"))["total"]
    return -int(total or 0)


# --- The money's way out ---------------------------------------------------------------
#
# Each movement below transfers cents between the postings' disjoint buckets. The budget row's
# nested balances follow from the transfer (NESTED_BUCKETS), in one conditional UPDATE that only
# succeeds while every source bucket holds what leaves it; the CHECK constraints back it.


@dataclass
class BucketShort(Exception):  # noqa: N818 - the business name of the refusal
    """A movement asked a bucket for more than it holds (nothing was written)."""

    account: BudgetAccount
    bucket: str
    requested_cents: int

    @property
    def held_cents(self) -> int:
        """What the bucket held when the movement was refused (never below zero)."""
        return max(_balance_of(self.account, self.bucket), 0)


# A disjoint bucket's balance in terms of the row's nested balances: (column, minus columns).
_BUCKET_BALANCE: dict[str, tuple[str, tuple[str, ...]]] = {
    Bucket.AVAILABLE: (
        "allocated_cents",
        (
            "committed_cents",
            "receivable_cents",
            "recovered_cents",
            "written_off_cents",
            "earmarked_cents",
        ),
    ),
    Bucket.EARMARKED: ("earmarked_cents", ()),
    Bucket.COMMITTED: ("committed_cents", ("claimed_cents",)),
    Bucket.CLAIMED: ("claimed_cents", ("payable_cents",)),
    Bucket.PAYABLE: ("payable_cents", ("disbursed_cents",)),
    Bucket.DISBURSED: ("disbursed_cents", ()),
    Bucket.RECEIVABLE: ("receivable_cents", ()),
    Bucket.RECOVERED: ("recovered_cents", ()),
    Bucket.WRITTEN_OFF: ("written_off_cents", ()),
}


def _holds(bucket: str, cents: int) -> Q:
    """The condition, on the budget row itself, that `bucket` holds at least `cents`: plain
    columns, so that PostgreSQL re-checks it on the newest row version under concurrency."""
    column, minus = _BUCKET_BALANCE[bucket]
    if not minus:
        return Q(**{f"{column}__gte": cents})
    others: F | CombinedExpression = F(minus[0])
    for name in minus[1:]:
        others = others + F(name)
    return Q(**{f"{column}__gte": others + cents})


def _balance_of(account: BudgetAccount, bucket: str) -> int:
    column, minus = _BUCKET_BALANCE[bucket]
    return int(getattr(account, column)) - sum(int(getattr(account, name)) for name in minus)


def _nested_deltas(legs: dict[str, int]) -> dict[str, int]:
    """How each nested balance on the row moves when the buckets move by `legs`."""
    deltas = {
        balance: sum(legs.get(bucket, 0) for bucket in buckets)
        for balance, buckets in NESTED_BUCKETS.items()
    }
    deltas["allocated"] = -legs.get(Bucket.APPROPRIATION, 0)
    return {balance: delta for balance, delta in deltas.items() if delta}


def _transfer(
    kind: str,
    account: BudgetAccount,
    moves: Sequence[tuple[str, str, int]],
    *,
    actor: str,
    application: Application | None,
    reference: str,
) -> None:
    """Move cents between buckets of one account: `moves` are (from, to, cents), zero-cent
    moves skipped. In a savepoint, so that a refusal (BucketShort) leaves nothing behind."""
    _require_transaction()
    legs: dict[str, int] = {}
    for source, target, cents in moves:
        if isinstance(cents, bool) or not isinstance(cents, int) or cents < 0:
            raise ValueError(f"a ledger movement moves zero or more cents, not {cents!r}")
        legs[source] = legs.get(source, 0) - cents
        legs[target] = legs.get(target, 0) + cents
    legs = {bucket: amount for bucket, amount in legs.items() if amount}
    if not legs:
        return
    outflows = {
        bucket: -amount
        for bucket, amount in legs.items()
        if amount < 0 and bucket != Bucket.APPROPRIATION
    }
    condition = Q(pk=account.pk)
    for bucket, cents in outflows.items():
        condition &= _holds(bucket, cents)
    updates = {
        f"{balance}_cents": F(f"{balance}_cents") + delta
        for balance, delta in _nested_deltas(legs).items()
    }
    with transaction.atomic():
        if BudgetAccount.objects.filter(condition).update(**updates) != 1:
            raise _short_bucket(account, outflows)
        entry = LedgerTransaction.objects.create(
            kind=kind, actor=actor, application=application, reference=reference
        )
        Posting.objects.bulk_create(
            Posting(transaction=entry, account=account, bucket=bucket, amount_cents=amount)
            for bucket, amount in legs.items()
        )


def _short_bucket(account: BudgetAccount, outflows: dict[str, int]) -> BucketShort:
    """Name the first bucket that could not give what was asked of it."""
    found = BudgetAccount.objects.filter(pk=account.pk).first()
    if found is None:
        raise BudgetAccount.DoesNotExist(f"budget account {account.pk} is gone")
    for bucket, cents in outflows.items():
        if _balance_of(found, bucket) < cents:
            return BucketShort(found, str(bucket), cents)
    return BucketShort(found, next(iter(outflows)), sum(outflows.values()))  # moved meanwhile


def _move(
    kind: str,
    source: str,
    target: str,
    account: BudgetAccount,
    cents: int,
    actor: str,
    application: Application,
    reference: str,
) -> None:
    """One movement of `cents` from one bucket to another (each of the named movements below)."""
    _transfer(
        kind,
        account,
        [(source, target, cents)],
        actor=actor,
        application=application,
        reference=reference,
    )


def claim(
    account: BudgetAccount, cents: int, *, actor: str, application: Application, reference: str
) -> None:
    """A claim submitted: its government money moves from the commitment to claimed."""
    _move("claim", Bucket.COMMITTED, Bucket.CLAIMED, account, cents, actor, application, reference)


def unclaim(
    account: BudgetAccount, cents: int, *, actor: str, application: Application, reference: str
) -> None:
    """A claim returned to the employer or denied: its money goes back to the commitment."""
    _move(
        "unclaim", Bucket.CLAIMED, Bucket.COMMITTED, account, cents, actor, application, reference
    )


def approve_claim(
    account: BudgetAccount,
    claimed_cents: int,
    approved_cents: int,
    *,
    actor: str,
    application: Application,
    reference: str,
) -> None:
    """A claim certified (s.34): what was approved becomes payable, the rest of what was
    claimed goes back to the commitment."""
    if not 0 <= approved_cents <= claimed_cents:
        raise ValueError(f"approved {approved_cents} is not within 0..claimed {claimed_cents}")
    moves = [
        (Bucket.CLAIMED, Bucket.PAYABLE, approved_cents),
        (Bucket.CLAIMED, Bucket.COMMITTED, claimed_cents - approved_cents),
    ]
    _transfer(
        "approve_claim", account, moves, actor=actor, application=application, reference=reference
    )


def lower_approval(
    account: BudgetAccount, cents: int, *, actor: str, application: Application, reference: str
) -> None:
    """An amendment lowers a certified, unpaid amount: it goes back to the commitment."""
    _move(
        "lower_approval",
        Bucket.PAYABLE,
        Bucket.COMMITTED,
        account,
        cents,
        actor,
        application,
        reference,
    )


def disburse(
    account: BudgetAccount, cents: int, *, actor: str, application: Application, reference: str
) -> None:
    """A payment confirmed by the paying system (s.33 authorized before it)."""
    _move(
        "disburse", Bucket.PAYABLE, Bucket.DISBURSED, account, cents, actor, application, reference
    )


def raise_receivable(
    account: BudgetAccount, cents: int, *, actor: str, application: Application, reference: str
) -> None:
    """Paid more than is now approved: the excess is owed back. It leaves the commitment,
    claimed, payable and disbursed balances (NESTED_BUCKETS) for the receivable."""
    _move(
        "receivable",
        Bucket.DISBURSED,
        Bucket.RECEIVABLE,
        account,
        cents,
        actor,
        application,
        reference,
    )


def recover(
    account: BudgetAccount, cents: int, *, actor: str, application: Application, reference: str
) -> None:
    """Money owed back came back: a confirmed repayment, or set off against a payment."""
    _move(
        "recover",
        Bucket.RECEIVABLE,
        Bucket.RECOVERED,
        account,
        cents,
        actor,
        application,
        reference,
    )


def write_off(
    account: BudgetAccount, cents: int, *, actor: str, application: Application, reference: str
) -> None:
    """Money owed back that will not come back (finance, with a second approver)."""
    _move(
        "write_off",
        Bucket.RECEIVABLE,
        Bucket.WRITTEN_OFF,
        account,
        cents,
        actor,
        application,
        reference,
    )


def pool_accounts(pool: Pool) -> dict[str, BudgetAccount]:
    """The pool's budget account of each funder (funder -> account)."""
    accounts = BudgetAccount.objects.filter(
        jurisdiction=pool.jurisdiction, fiscal_year=pool.fiscal_year, stream=pool.stream
    )
    return {str(account.funder): account for account in accounts}


@dataclass(frozen=True)
class Balances:
    """One funder's money in one application (or account), nested as on the budget row."""

    committed: int = 0
    claimed: int = 0
    payable: int = 0
    disbursed: int = 0
    receivable: int = 0
    recovered: int = 0
    written_off: int = 0

    @property
    def awaiting_decision(self) -> int:
        """Claimed and not yet decided (the `claimed` bucket alone)."""
        return self.claimed - self.payable

    @property
    def to_pay(self) -> int:
        """Certified and not yet paid (the `payable` bucket alone)."""
        return self.payable - self.disbursed

    @classmethod
    def from_buckets(cls, buckets: dict[str, int]) -> Balances:
        return cls(
            **{
                balance: sum(buckets.get(bucket, 0) for bucket in members)
                for balance, members in NESTED_BUCKETS.items()
            }
        )


def application_balances(application: Application) -> dict[str, Balances]:
    """Each funder's balances for one application, summed from its postings."""
    sums = (
        Posting.objects.filter(transaction__application=application)
        .values_list("account__funder", "bucket")
        .annotate(total=Sum("amount_cents"))
    )
    per_funder: dict[str, dict[str, int]] = {}
    for funder, bucket, total in sums:
        per_funder.setdefault(funder, {})[bucket] = total
    return {funder: Balances.from_buckets(buckets) for funder, buckets in per_funder.items()}


def verify() -> list[str]:
    """Recompute every budget balance from the postings; name each difference, and each
    ledger transaction whose legs do not sum to zero. Empty when the ledger is sound."""
    differences: list[str] = []
    sums: dict[int, dict[str, int]] = {}
    for account_id, bucket, total in Posting.objects.values_list("account", "bucket").annotate(
        total=Sum("amount_cents")
    ):
        sums.setdefault(account_id, {})[bucket] = total
    # The rows' figures alone, compared in order: a model and a dataclass made per account were
    # most of this walk's CPU; an account is read whole only to name a difference.
    columns = [f"{balance}_cents" for balance in _VERIFIED]
    for pk, *recorded in BudgetAccount.objects.order_by("pk").values_list("pk", *columns):
        expected = _balances_by_postings(sums.get(pk, {}))
        wrong = [row for row in zip(_VERIFIED, recorded, expected, strict=True) if row[1] != row[2]]
        if wrong:
            account = BudgetAccount.objects.get(pk=pk)
            differences += [
                f"{account}: {balance} is {on_row} cents on the budget row, {cents} by its postings"
                for balance, on_row, cents in wrong
            ]
    differences += _verify_earmarks()
    unbalanced = (
        Posting.objects.values("transaction")
        .annotate(total=Sum("amount_cents"))
        .exclude(total=0)
        .values_list("transaction", "total")
    )
    for entry, total in unbalanced:
        differences.append(f"ledger transaction {entry}: its legs sum to {total} cents, not 0")
    return differences


#: The balances a budget row records, in the order `verify` names their differences.
_VERIFIED = (*(field.name for field in fields(Balances)), "allocated", "earmarked")


def _balances_by_postings(buckets: dict[str, int]) -> list[int]:
    """An account's `_VERIFIED` balances, from its buckets' sums."""
    nested = [
        sum(buckets.get(bucket, 0) for bucket in NESTED_BUCKETS[name]) for name in _VERIFIED[:-2]
    ]
    return [*nested, -buckets.get(Bucket.APPROPRIATION, 0), buckets.get(Bucket.EARMARKED, 0)]


#: The kinds of ledger transaction that set an intake's budget (the others spend it).
_EARMARK_KINDS = ("earmark", "unearmark")


def _verify_earmarks() -> list[str]:
    """Each intake's earmark recomputed from the postings of the transactions that name its
    intake (their reference): its budget from those that set it, what its files committed
    from those that spent it or gave it back; and the intake's own budget per funder, which
    must be the earmark's."""
    differences: list[str] = []
    sums: dict[tuple[str, int, bool], int] = {}
    for reference, account_id, kind, total in (
        Posting.objects.filter(
            bucket=Bucket.EARMARKED, transaction__reference__startswith="intake:"
        )
        .values_list("transaction__reference", "account", "transaction__kind")
        .annotate(total=Sum("amount_cents"))
    ):
        key = (reference, account_id, kind in _EARMARK_KINDS)
        sums[key] = sums.get(key, 0) + total
    for earmark in Earmark.objects.select_related("account", "intake").order_by("pk"):
        reference = intake_reference(earmark.intake_id)
        budget = sums.pop((reference, earmark.account_id, True), 0)
        committed = -sums.pop((reference, earmark.account_id, False), 0)
        name = f"intake {earmark.intake_id}, {earmark.account}"
        if (earmark.budget_cents, earmark.committed_cents) != (budget, committed):
            differences.append(
                f"{name}: budget {earmark.budget_cents} and committed {earmark.committed_cents}"
                f" cents on the earmark, {budget} and {committed} by its postings"
            )
        recorded = getattr(earmark.intake, f"{earmark.account.funder}_budget_cents", None)
        if recorded is not None and recorded != earmark.budget_cents:
            differences.append(
                f"{name}: the intake's budget is {recorded} cents, its earmark's"
                f" {earmark.budget_cents}"
            )
    for (reference, account_id, _), total in sorted(sums.items()):
        if total:
            differences.append(
                f"{reference}: {total} cents earmarked on account {account_id} with no earmark"
            )
    return differences
