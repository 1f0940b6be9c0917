"""One movement for many causes on one account: a confirmation file's payments, say.

`move_many` posts exactly what calling the movement once per cause would (one ledger transaction
per cause, with its application and reference, two legs each), but moves the account's balances
in one conditional UPDATE for their sum and writes the transactions and legs in two bulk
statements: 10,000 payments confirmed cost four statements per account, not 50,000. Like the
movements of `operations`, it runs in the caller's transaction and raises BucketShort, writing
nothing, when the source bucket cannot give the sum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F, Q

from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import Bucket, BudgetAccount, LedgerTransaction, Posting

#: The movements that can be made in bulk: kind -> (source bucket, target bucket).
MOVEMENTS = {
    "disburse": (Bucket.PAYABLE, Bucket.DISBURSED),
    "recover": (Bucket.RECEIVABLE, Bucket.RECOVERED),
}
BATCH = 2000


@dataclass(frozen=True)
class Cause:
    application_id: int
    cents: int
    reference: str


def move_many(kind: str, account: BudgetAccount, causes: Sequence[Cause], *, actor: str) -> None:
    operations._require_transaction()
    source, target = MOVEMENTS[kind]
    for cause in causes:
        if isinstance(cause.cents, bool) or not isinstance(cause.cents, int) or cause.cents <= 0:
            raise ValueError(f"a ledger movement moves positive cents, not {cause.cents!r}")
    total = sum(cause.cents for cause in causes)
    if not total:
        return
    legs: dict[str, int] = {str(source): -total, str(target): total}
    updates = {
        f"{balance}_cents": F(f"{balance}_cents") + delta
        for balance, delta in operations._nested_deltas(legs).items()
    }
    condition = Q(pk=account.pk) & operations._holds(str(source), total)
    with transaction.atomic():
        if BudgetAccount.objects.filter(condition).update(**updates) != 1:
            raise operations._short_bucket(account, {str(source): total})
        entries = LedgerTransaction.objects.bulk_create(
            [
                LedgerTransaction(
                    kind=kind,
                    actor=actor,
                    application_id=cause.application_id,
                    reference=cause.reference,
                )
                for cause in causes
            ],
            batch_size=BATCH,
        )
        Posting.objects.bulk_create(
            [
                Posting(transaction=entry, account=account, bucket=bucket, amount_cents=amount)
                for entry, cause in zip(entries, causes, strict=True)
                for bucket, amount in ((source, -cause.cents), (target, cause.cents))
            ],
            batch_size=BATCH,
        )
