"""One movement for many causes on one account: a confirmation file's payments, say.

`move_many` posts exactly what calling the movement once per cause would (one ledger transaction
per cause, with its application and reference, two legs each), but moves the account's balances
in one conditional UPDATE for their sum and writes the transactions and legs in multi-row
INSERTs of a thousand causes (two statements per thousand, no model instances): 10,000 payments
confirmed cost about twenty statements per account, not 50,000. Like the
movements of `operations`, it runs in the caller's transaction and raises BucketShort, writing
nothing, when the source bucket cannot give the sum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import Bucket, BudgetAccount, LedgerTransaction, Posting

#: The movements that can be made in bulk: kind -> (source bucket, target bucket).
MOVEMENTS = {
    "disburse": (Bucket.PAYABLE, Bucket.DISBURSED),
    "recover": (Bucket.RECEIVABLE, Bucket.RECOVERED),
}
BATCH = 1000  # causes per INSERT: 5,000 parameters, well inside SQLite's limit


@dataclass(frozen=True)
class Cause:
    application_id: int
    cents: int
    reference: str


def move_many(kind: str, account: BudgetAccount, causes: Sequence[Cause], *, actor: str) -> None:
    operations._require_transaction()
    source, target = (str(bucket) for bucket in MOVEMENTS[kind])
    for cause in causes:
        if isinstance(cause.cents, bool) or not isinstance(cause.cents, int) or cause.cents <= 0:
            raise ValueError(f"a ledger movement moves positive cents, not {cause.cents!r}")
    total = sum(cause.cents for cause in causes)
    if not total:
        return
    legs: dict[str, int] = {source: -total, target: total}
    updates = {
        f"{balance}_cents": F(f"{balance}_cents") + delta
        for balance, delta in operations._nested_deltas(legs).items()
    }
    condition = Q(pk=account.pk) & operations._holds(source, total)
    with transaction.atomic():
        if BudgetAccount.objects.filter(condition).update(**updates) != 1:
            raise operations._short_bucket(account, {source: total})
        for start in range(0, len(causes), BATCH):
            _write(kind, account, source, target, causes[start : start + BATCH], actor)


_ENTRY_SQL = (
    f'INSERT INTO "{LedgerTransaction._meta.db_table}" ("kind", "application_id", "reference",'
    ' "actor", "created_at") VALUES {} RETURNING "id"'
)
_LEG_SQL = (
    f'INSERT INTO "{Posting._meta.db_table}" ("transaction_id", "account_id", "bucket",'
    ' "amount_cents") VALUES {}'
)


def _write(
    kind: str,
    account: BudgetAccount,
    source: str,
    target: str,
    causes: Sequence[Cause],
    actor: str,
) -> None:
    """One chunk's ledger transactions and legs, in two multi-row INSERTs (no model objects:
    the ORM's bulk_create spent most of a 20,000-payment confirmation building them)."""
    at = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            operations._rows(_ENTRY_SQL, len(causes), 5),
            [
                value
                for cause in causes
                for value in (kind, cause.application_id, cause.reference, actor, at)
            ],
        )
        entries = [entry for (entry,) in cursor.fetchall()]
        if len(entries) != len(causes):
            raise RuntimeError("the database returned fewer ledger transactions than written")
        legs = [
            value
            for entry, cause in zip(entries, causes, strict=True)
            for bucket, amount in ((source, -cause.cents), (target, cause.cents))
            for value in (entry, account.pk, bucket, amount)
        ]
        cursor.execute(operations._rows(_LEG_SQL, 2 * len(causes), 4), legs)
