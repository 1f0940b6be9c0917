"""Moving money between a budget's buckets: allocate, commit, release, disburse.

Every operation runs inside the caller's transaction: the balance update and the postings
commit (or roll back) together with the state change that caused them. The commitment rule is
structural: one conditional UPDATE that only succeeds while the allocation covers it, backed by
a CHECK constraint, so concurrent approvals can never over-commit a budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from jobgrant.service.ledger.models import Bucket, BudgetAccount, LedgerTransaction, Posting

if TYPE_CHECKING:
    from jobgrant.service.grants.models import Application


@dataclass
class InsufficientBudget(Exception):  # noqa: N818 - the business name of the refusal
    account: BudgetAccount
    requested_cents: int

    @property
    def available_cents(self) -> int:
        return self.account.available_cents


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
) -> LedgerTransaction:
    if sum(amount for _, _, amount in legs) != 0:
        raise ValueError("a ledger transaction's legs must sum to zero")
    entry = LedgerTransaction.objects.create(kind=kind, actor=actor, application=application)
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
    by the database (CHECK), and the caller's transaction must then roll back."""
    _require_transaction()
    _require_positive(cents)
    BudgetAccount.objects.filter(pk=account.pk).update(committed_cents=F("committed_cents") - cents)
    _post(
        "release",
        actor,
        [(account, Bucket.COMMITTED, -cents), (account, Bucket.AVAILABLE, cents)],
        application,
    )
    account.refresh_from_db()


_TABLE = BudgetAccount._meta.db_table
_POOL_SQL = (
    f'SELECT "funder", "id" FROM "{_TABLE}"'
    ' WHERE "jurisdiction" = %s AND "fiscal_year" = %s AND "stream" = %s'
)
_ENTRY_SQL = (
    f'INSERT INTO "{LedgerTransaction._meta.db_table}" ("kind", "application_id", "actor",'
    ' "created_at") VALUES {} RETURNING "id"'
)
_LEG_SQL = (
    f'INSERT INTO "{Posting._meta.db_table}" ("transaction_id", "account_id", "bucket",'
    ' "amount_cents") VALUES {}'
)
_COMMIT_SQL = (
    f'UPDATE "{_TABLE}" SET "committed_cents" = "committed_cents" + %s'
    ' WHERE "id" = %s AND "committed_cents" <= "allocated_cents" - %s RETURNING "id"'
)


def _rows(sql: str, rows: int, columns: int) -> str:
    row = "(" + ", ".join(["%s"] * columns) + ")"
    return sql.format(", ".join([row] * rows))


def commit_shares(
    pool: Pool, shares: list[tuple[str, int]], *, actor: str, application: Application
) -> None:
    """Commit each funder's share against its budget in `pool` (see _commit_to)."""
    with connection.cursor() as cursor:
        cursor.execute(_POOL_SQL, [pool.jurisdiction, pool.fiscal_year, pool.stream])
        ids: dict[str, int] = dict(cursor.fetchall())
    _commit_to(ids, shares, actor=actor, application=application)


def _commit_to(
    ids: dict[str, int],
    shares: list[tuple[str, int]],
    *,
    actor: str,
    application: Application | None,
) -> None:
    """Commit each funder's share against its account (`ids`: funder -> account id), with one
    ledger transaction per funder (two legs each).

    Every approval waits for the same budget rows, so they are locked last: the ledger
    transactions and their legs are written first (two plain statements), then each row is
    updated by one conditional UPDATE, in the order given (the same for every approval, so that
    two approvals never hold each other's rows). At the first share that does not fit, NoBudget
    or InsufficientBudget is raised: the ledger rows are written and an earlier share may be
    committed, so the caller's transaction must roll back.
    """
    _require_transaction()
    for _, cents in shares:
        _require_positive(cents)
    application_id = application.pk if application is not None else None
    with connection.cursor() as cursor:
        if shares and all(funder in ids for funder, _ in shares):
            at = timezone.now()
            cursor.execute(
                _rows(_ENTRY_SQL, len(shares), 4),
                [value for _ in shares for value in ("commit", application_id, actor, at)],
            )
            entries = [entry for (entry,) in cursor.fetchall()]
            legs = [
                (entry, ids[funder], str(bucket), amount)
                for entry, (funder, cents) in zip(entries, shares, strict=True)
                for bucket, amount in ((Bucket.AVAILABLE, -cents), (Bucket.COMMITTED, cents))
            ]
            cursor.execute(_rows(_LEG_SQL, len(legs), 4), [v for leg in legs for v in leg])
        for funder, cents in shares:
            if funder not in ids:
                raise NoBudget(funder)
            cursor.execute(_COMMIT_SQL, [cents, ids[funder], cents])
            if cursor.fetchone() is None:
                found = BudgetAccount.objects.filter(pk=ids[funder]).first()
                if found is None:
                    raise NoBudget(funder)
                raise InsufficientBudget(found, cents)
