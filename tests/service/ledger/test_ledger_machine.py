"""T12: the ledger as a state machine (Hypothesis), on the real database.

Random sequences of allocations, de-allocations, commitments, releases, and every post-award
movement (claim, unclaim, approve a claim, lower an approval, disburse, raise a receivable,
recover, write off; disburse and recover also in bulk, as a confirmation file does) and refused
attempts (over-commitments, over-releases, a raw UPDATE past the allocation, each movement asking
its source bucket for more than it holds) run against a few budget pools, each step in its own
savepoint as an action would. After every step: the budget rows match a model kept by the test
(its disjoint buckets), the balances nest (0 <= disbursed <= payable <= claimed <= committed <=
allocated), every transaction's legs sum to zero, the buckets computed from the postings equal
the budget row's figures, `verify()` finds no difference, and refused steps wrote nothing.
JOBGRANT_LEDGER_EXAMPLES x JOBGRANT_LEDGER_STEPS sequences (default 15 x 20; T12 asks for
1,000 x 50).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from django.db import IntegrityError, transaction
from django.db.models import Count, F, QuerySet, Sum
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    rule,
    run_state_machine_as_test,
)

from jobgrant.service.ledger import bulk, operations
from jobgrant.service.ledger.models import Bucket, BudgetAccount, LedgerTransaction, Posting

EXAMPLES = int(os.environ.get("JOBGRANT_LEDGER_EXAMPLES", "15"))
STEPS = int(os.environ.get("JOBGRANT_LEDGER_STEPS", "20"))
POOL_KEYS = [("federal", "ON"), ("provincial", "ON"), ("federal", "QC")]
POOLS = len(POOL_KEYS)
MAX_CENTS = 10**11  # a billion dollars
machines = itertools.count()


@dataclass
class Pool:
    """A budget as the test models it: the allocation and the disjoint buckets of the ledger's
    section 6 (only_committed is the commitment not yet claimed, and so on)."""

    account: BudgetAccount
    allocated: int = 0
    only_committed: int = 0
    claimed: int = 0  # claimed, not yet decided
    payable: int = 0  # certified, not yet paid
    disbursed: int = 0
    receivable: int = 0
    recovered: int = 0
    written_off: int = 0

    @property
    def committed(self) -> int:
        return self.only_committed + self.claimed + self.payable + self.disbursed

    @property
    def available(self) -> int:
        return self.allocated - self.committed

    def nested(self) -> tuple[int, ...]:
        """The budget row's balances, in ROW_COLUMNS' order."""
        return (
            self.allocated,
            self.committed,
            self.claimed + self.payable + self.disbursed,
            self.payable + self.disbursed,
            self.disbursed,
            self.receivable,
            self.recovered,
            self.written_off,
        )


ROW_COLUMNS = (
    "allocated_cents",
    "committed_cents",
    "claimed_cents",
    "payable_cents",
    "disbursed_cents",
    "receivable_cents",
    "recovered_cents",
    "written_off_cents",
)
#: movement -> (the model's source bucket, its target bucket)
MOVEMENTS = {
    "claim": ("only_committed", "claimed"),
    "unclaim": ("claimed", "only_committed"),
    "lower_approval": ("payable", "only_committed"),
    "disburse": ("payable", "disbursed"),
    "raise_receivable": ("disbursed", "receivable"),
    "recover": ("receivable", "recovered"),
    "write_off": ("receivable", "written_off"),
}


class LedgerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        stream = f"T12-{next(machines)}"
        self.pools = [
            Pool(
                BudgetAccount.objects.create(
                    funder=funder, jurisdiction=jurisdiction, fiscal_year="2099-00", stream=stream
                )
            )
            for funder, jurisdiction in POOL_KEYS
        ]
        self.since = LedgerTransaction.objects.order_by("-pk").values_list("pk", flat=True).first()
        self.transactions = 0

    # --- moves that succeed -------------------------------------------------------------

    @rule(pool=st.integers(0, POOLS - 1), cents=st.integers(1, MAX_CENTS))
    def allocate(self, pool: int, cents: int) -> None:
        target = self.pools[pool]
        with transaction.atomic():
            operations.allocate(target.account, cents, actor="t12")
        target.allocated += cents
        self.transactions += 1

    @rule(pool=st.integers(0, POOLS - 1), data=st.data())
    def commit(self, pool: int, data: st.DataObject) -> None:
        target = self.pools[pool]
        if target.available <= 0:
            return
        cents = data.draw(st.one_of(st.integers(1, target.available), st.just(target.available)))
        with transaction.atomic():
            operations.commit(target.account, cents, actor="t12", application=None)
        target.only_committed += cents
        self.transactions += 1

    @rule(pool=st.integers(0, POOLS - 1), data=st.data())
    def release(self, pool: int, data: st.DataObject) -> None:
        """Give back part of the commitment not yet claimed (a withdrawal, the unused
        commitment at the final claim)."""
        target = self.pools[pool]
        if target.only_committed <= 0:
            return
        cents = data.draw(st.integers(1, target.only_committed))
        with transaction.atomic():
            operations.release(target.account, cents, actor="t12", application=None)
        target.only_committed -= cents
        self.transactions += 1

    # --- the money's way out ---------------------------------------------------------------

    @rule(
        pool=st.integers(0, POOLS - 1),
        movement=st.sampled_from(sorted(MOVEMENTS)),
        data=st.data(),
    )
    def move(self, pool: int, movement: str, data: st.DataObject) -> None:
        """One post-award movement of part (or all) of what its source bucket holds."""
        target = self.pools[pool]
        source, destination = MOVEMENTS[movement]
        held = getattr(target, source)
        if held <= 0:
            return
        cents = data.draw(st.one_of(st.integers(1, held), st.just(held)))
        with transaction.atomic():
            getattr(operations, movement)(
                target.account, cents, actor="t12", application=None, reference="t12"
            )
        setattr(target, source, held - cents)
        setattr(target, destination, getattr(target, destination) + cents)
        self.transactions += 1

    @rule(pool=st.integers(0, POOLS - 1), data=st.data())
    def approve_claim(self, pool: int, data: st.DataObject) -> None:
        """Part of what is claimed certified: the approved part payable, the rest back to the
        commitment (three legs)."""
        target = self.pools[pool]
        if target.claimed <= 0:
            return
        claimed = data.draw(st.integers(1, target.claimed))
        approved = data.draw(st.one_of(st.integers(0, claimed), st.just(claimed)))
        with transaction.atomic():
            operations.approve_claim(
                target.account, claimed, approved, actor="t12", application=None, reference="t12"
            )
        target.claimed -= claimed
        target.payable += approved
        target.only_committed += claimed - approved
        self.transactions += 1

    @rule(
        pool=st.integers(0, POOLS - 1),
        kind=st.sampled_from(sorted(bulk.MOVEMENTS)),
        data=st.data(),
    )
    def move_many(self, pool: int, kind: str, data: st.DataObject) -> None:
        """Many causes at once (a confirmation file's payments): one transaction each."""
        target = self.pools[pool]
        source, destination = MOVEMENTS[kind]
        held = getattr(target, source)
        if held <= 0:
            return
        count = data.draw(st.integers(1, min(held, 5)))
        parts = data.draw(
            st.lists(st.integers(1, max(1, held // count)), min_size=count, max_size=count)
        )
        causes = [bulk.Cause(None, cents, f"t12:{i}") for i, cents in enumerate(parts)]  # type: ignore[arg-type]
        with transaction.atomic():
            bulk.move_many(kind, target.account, causes, actor="t12")
        setattr(target, source, held - sum(parts))
        setattr(target, destination, getattr(target, destination) + sum(parts))
        self.transactions += len(causes)

    @rule(
        pool=st.integers(0, POOLS - 1),
        movement=st.sampled_from(sorted(MOVEMENTS)),
        excess=st.one_of(st.just(1), st.integers(1, MAX_CENTS)),
    )
    def move_more_than_the_source_holds(self, pool: int, movement: str, excess: int) -> None:
        target = self.pools[pool]
        source, _ = MOVEMENTS[movement]
        asked = getattr(target, source) + excess
        with (
            self.refused(target),
            pytest.raises(operations.BucketShort) as short,
            transaction.atomic(),
        ):
            getattr(operations, movement)(
                target.account, asked, actor="t12", application=None, reference="t12"
            )
        assert short.value.requested_cents == asked

    @rule(pool=st.integers(0, POOLS - 1), excess=st.integers(1, MAX_CENTS))
    def approve_more_than_is_claimed(self, pool: int, excess: int) -> None:
        target = self.pools[pool]
        asked = target.claimed + excess
        with (
            self.refused(target),
            pytest.raises(operations.BucketShort),
            transaction.atomic(),
        ):
            operations.approve_claim(
                target.account, asked, asked, actor="t12", application=None, reference="t12"
            )

    @rule(
        pool=st.integers(0, POOLS - 1),
        kind=st.sampled_from(sorted(bulk.MOVEMENTS)),
        excess=st.integers(1, MAX_CENTS),
    )
    def move_many_more_than_the_source_holds(self, pool: int, kind: str, excess: int) -> None:
        target = self.pools[pool]
        source, _ = MOVEMENTS[kind]
        asked = getattr(target, source) + excess
        causes = [bulk.Cause(None, 1, "t12:a"), bulk.Cause(None, asked - 1, "t12:b")]  # type: ignore[arg-type]
        causes = [cause for cause in causes if cause.cents > 0]
        with self.refused(target), pytest.raises(operations.BucketShort), transaction.atomic():
            bulk.move_many(kind, target.account, causes, actor="t12")

    @rule(pool=st.integers(0, POOLS - 1), data=st.data())
    def deallocate_what_is_uncommitted(self, pool: int, data: st.DataObject) -> None:
        target = self.pools[pool]
        if target.available <= 0:
            return
        cents = data.draw(st.integers(1, target.available))
        with transaction.atomic():
            operations.allocate(target.account, -cents, actor="t12")
        target.allocated -= cents
        self.transactions += 1

    # --- moves that must be refused and write nothing -----------------------------------

    @rule(pool=st.integers(0, POOLS - 1), data=st.data())
    def over_commit(self, pool: int, data: st.DataObject) -> None:
        target = self.pools[pool]
        excess = data.draw(st.one_of(st.just(1), st.integers(1, MAX_CENTS)))
        requested = target.available + excess
        with (
            self.refused(target),
            pytest.raises(operations.InsufficientBudget) as short,
            transaction.atomic(),
        ):
            operations.commit(target.account, requested, actor="t12", application=None)
        assert short.value.available_cents == target.available

    @rule(pool=st.integers(0, POOLS - 1), excess=st.integers(1, MAX_CENTS))
    def over_release(self, pool: int, excess: int) -> None:
        target = self.pools[pool]
        with self.refused(target), pytest.raises(IntegrityError), transaction.atomic():
            operations.release(
                target.account, target.committed + excess, actor="t12", application=None
            )

    @rule(pool=st.integers(0, POOLS - 1), excess=st.integers(1, MAX_CENTS))
    def deallocate_below_commitments(self, pool: int, excess: int) -> None:
        target = self.pools[pool]
        with self.refused(target), pytest.raises(IntegrityError), transaction.atomic():
            operations.allocate(target.account, -(target.available + excess), actor="t12")

    @rule(pool=st.integers(0, POOLS - 1), excess=st.integers(1, MAX_CENTS))
    def raw_update_past_the_allocation(self, pool: int, excess: int) -> None:
        """Even code that skips the conditional update meets the CHECK constraint."""
        target = self.pools[pool]
        with self.refused(target), pytest.raises(IntegrityError), transaction.atomic():
            BudgetAccount.objects.filter(pk=target.account.pk).update(
                committed_cents=F("allocated_cents") + excess
            )

    @rule(pool=st.integers(0, POOLS - 1), cents=st.integers(-MAX_CENTS, 0))
    def commit_nothing_or_less(self, pool: int, cents: int) -> None:
        target = self.pools[pool]
        with self.refused(target), pytest.raises(ValueError, match="positive"):
            operations.commit(target.account, cents, actor="t12", application=None)

    @contextmanager
    def refused(self, pool: Pool) -> Iterator[None]:
        """The block was refused and wrote nothing: same budget row, no new transaction."""
        before = (snapshot(pool.account), self.written().count(), self.legs().count())
        yield
        assert (snapshot(pool.account), self.written().count(), self.legs().count()) == before

    # --- after every step ---------------------------------------------------------------

    @invariant()
    def the_budget_rows_match_the_model(self) -> None:
        assert self.rows() == [p.nested() for p in self.pools]

    @invariant()
    def the_balances_nest_and_none_is_negative(self) -> None:
        for allocated, committed, claimed, payable, disbursed, *recovery in self.rows():
            assert 0 <= disbursed <= payable <= claimed <= committed <= allocated
            assert all(cents >= 0 for cents in recovery)

    @invariant()
    def every_transaction_balances(self) -> None:
        unbalanced = (
            self.written()
            .annotate(total=Sum("legs__amount_cents"), legs_count=Count("legs"))
            .exclude(total=0, legs_count__gte=2)
        )
        assert list(unbalanced.values("id", "kind", "total", "legs_count")) == []

    @invariant()
    def verify_finds_no_difference(self) -> None:
        assert operations.verify() == []

    @invariant()
    def the_postings_add_up_to_the_budget_rows(self) -> None:
        sums = self.legs().values_list("account", "bucket").annotate(total=Sum("amount_cents"))
        found = {(account, bucket): total for account, bucket, total in sums}
        for pool in self.pools:
            key = pool.account.pk
            assert found.get((key, Bucket.APPROPRIATION), 0) == -pool.allocated
            assert found.get((key, Bucket.AVAILABLE), 0) == pool.available
            assert found.get((key, Bucket.COMMITTED), 0) == pool.only_committed
            for bucket in ("claimed", "payable", "disbursed", "receivable", "recovered"):
                assert found.get((key, bucket), 0) == getattr(pool, bucket), bucket
            assert found.get((key, Bucket.WRITTEN_OFF), 0) == pool.written_off

    @invariant()
    def only_successful_moves_were_written(self) -> None:
        assert self.written().count() == self.transactions

    def written(self) -> QuerySet[LedgerTransaction]:
        """The ledger transactions written since this machine started."""
        return LedgerTransaction.objects.filter(pk__gt=self.since or 0)

    def legs(self) -> QuerySet[Posting]:
        """The postings written since this machine started."""
        return Posting.objects.filter(transaction__pk__gt=self.since or 0)

    def rows(self) -> list[tuple[int, ...]]:
        """The balances (ROW_COLUMNS) of each pool, in the pools' order."""
        found = BudgetAccount.objects.filter(pk__in=[p.account.pk for p in self.pools])
        figures = {row[0]: tuple(row[1:]) for row in found.values_list("pk", *ROW_COLUMNS)}
        return [figures[p.account.pk] for p in self.pools]


def snapshot(account: BudgetAccount) -> tuple[int, ...]:
    return tuple(BudgetAccount.objects.values_list(*ROW_COLUMNS).get(pk=account.pk))


@pytest.mark.django_db
def test_every_sequence_of_ledger_moves_keeps_the_ledger_invariants() -> None:
    run_state_machine_as_test(
        LedgerMachine,
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=STEPS,
            deadline=None,
            derandomize=True,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
