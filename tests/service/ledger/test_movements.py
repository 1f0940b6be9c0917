"""The post-award movements: a grant's money from commitment to payment and back, per funder.

Each movement keeps the nested balances (disbursed <= payable <= claimed <= committed <=
allocated), writes one balanced ledger transaction, and refuses (BucketShort, nothing written)
when its source bucket is short. `verify` recomputes every balance from the postings.
"""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.db.models import Sum

from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount, LedgerTransaction, Posting

pytestmark = pytest.mark.django_db


@pytest.fixture
def account() -> BudgetAccount:
    created = BudgetAccount.objects.create(
        funder="federal", jurisdiction="ON", fiscal_year="2099-00", stream="MOVES"
    )
    with transaction.atomic():
        operations.allocate(created, 1_000_000, actor="test")
        operations.commit(created, 600_000, actor="test", application=None)
    return created


def balances(account: BudgetAccount) -> tuple[int, ...]:
    account.refresh_from_db()
    return (
        account.allocated_cents,
        account.committed_cents,
        account.claimed_cents,
        account.payable_cents,
        account.disbursed_cents,
        account.receivable_cents,
        account.recovered_cents,
        account.written_off_cents,
    )


def move(name: str, account: BudgetAccount, *cents: int) -> None:
    with transaction.atomic():
        getattr(operations, name)(
            account, *cents, actor="test", application=None, reference="test:1"
        )


def test_the_money_down_the_path_and_back(account: BudgetAccount) -> None:
    move("claim", account, 500_000)
    assert balances(account) == (1_000_000, 600_000, 500_000, 0, 0, 0, 0, 0)
    move("approve_claim", account, 500_000, 450_000)  # $500 of it not approved: back
    assert balances(account) == (1_000_000, 600_000, 450_000, 450_000, 0, 0, 0, 0)
    move("disburse", account, 450_000)
    assert balances(account) == (1_000_000, 600_000, 450_000, 450_000, 450_000, 0, 0, 0)
    move("raise_receivable", account, 30_000)  # an amendment found $300 paid in error
    assert balances(account) == (1_000_000, 570_000, 420_000, 420_000, 420_000, 30_000, 0, 0)
    move("recover", account, 20_000)
    move("write_off", account, 10_000)
    assert balances(account) == (1_000_000, 570_000, 420_000, 420_000, 420_000, 0, 20_000, 10_000)
    assert operations.verify() == []


def test_returned_claims_and_lowered_approvals_go_back_to_the_commitment(
    account: BudgetAccount,
) -> None:
    move("claim", account, 200_000)
    move("unclaim", account, 200_000)
    assert balances(account)[1:4] == (600_000, 0, 0)
    move("claim", account, 200_000)
    move("approve_claim", account, 200_000, 200_000)
    move("lower_approval", account, 50_000)
    assert balances(account)[1:4] == (600_000, 150_000, 150_000)
    assert operations.verify() == []


@pytest.mark.parametrize(
    ("name", "cents", "bucket"),
    [
        ("claim", (600_001,), "committed"),
        ("unclaim", (1,), "claimed"),
        ("approve_claim", (1, 1), "claimed"),
        ("disburse", (1,), "payable"),
        ("raise_receivable", (1,), "disbursed"),
        ("recover", (1,), "receivable"),
        ("write_off", (1,), "receivable"),
    ],
)
def test_a_short_bucket_refuses_and_writes_nothing(
    account: BudgetAccount, name: str, cents: tuple[int, ...], bucket: str
) -> None:
    before = (balances(account), LedgerTransaction.objects.count(), Posting.objects.count())
    with transaction.atomic():
        with pytest.raises(operations.BucketShort) as refusal:
            getattr(operations, name)(
                account, *cents, actor="test", application=None, reference="test:1"
            )
        assert refusal.value.bucket == bucket
        assert (
            balances(account),
            LedgerTransaction.objects.count(),
            Posting.objects.count(),
        ) == before


def test_an_approval_above_the_claim_is_refused(account: BudgetAccount) -> None:
    move("claim", account, 100)
    with pytest.raises(ValueError, match="approved"):
        move("approve_claim", account, 100, 101)


def test_verify_names_a_balance_that_differs_from_its_postings(account: BudgetAccount) -> None:
    move("claim", account, 100_000)
    with connection.cursor() as cursor:  # what a hand edit of the row would do
        cursor.execute(
            f'UPDATE "{BudgetAccount._meta.db_table}" SET "claimed_cents" = 90000 WHERE "id" = %s',
            [account.pk],
        )
    differences = operations.verify()
    assert differences == [
        f"{account}: claimed is 90000 cents on the budget row, 100000 by its postings"
    ]


def test_money_owed_back_is_not_available_to_commit_again(account: BudgetAccount) -> None:
    """A receivable leaves the commitment, but the money is with the employer: the room to
    commit stays what it was until the allocation grows (found by T2: the postings' available
    bucket went negative when a new commitment took it)."""
    move("claim", account, 300_000)
    move("approve_claim", account, 300_000, 300_000)
    move("disburse", account, 300_000)
    move("raise_receivable", account, 100_000)
    move("recover", account, 60_000)
    move("write_off", account, 40_000)
    account.refresh_from_db()
    assert account.committed_cents == 500_000
    assert account.available_cents == 400_000  # 1,000,000 allocated - 600,000 as before
    with pytest.raises(operations.InsufficientBudget), transaction.atomic():
        operations.commit(account, 400_001, actor="test", application=None)
    with transaction.atomic():
        operations.commit(account, 400_000, actor="test", application=None)
    account.refresh_from_db()
    assert account.available_cents == 0
    buckets = dict(
        Posting.objects.filter(account=account, bucket="available")
        .values_list("bucket")
        .annotate(total=Sum("amount_cents"))
    )
    assert buckets == {"available": 0}
    assert operations.verify() == []
