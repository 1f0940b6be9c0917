"""T12: the ledger as a state machine (Hypothesis), on the real database.

Random sequences of allocations, de-allocations, commitments, releases and refused attempts
(over-commitments, over-releases, a raw UPDATE past the allocation) run against a few budget
pools, each step in its own savepoint as an action would. After every step: the budget rows
match a model kept by the test, committed stays within 0..allocated, every transaction's legs
sum to zero, the buckets computed from the postings equal the budget row's figures, and refused
steps wrote nothing. JOBGRANT_LEDGER_EXAMPLES x JOBGRANT_LEDGER_STEPS sequences (default 15 x 20;
T12 asks for 1,000 x 50).
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
    precondition,
    rule,
    run_state_machine_as_test,
)

from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import Bucket, BudgetAccount, LedgerTransaction, Posting

EXAMPLES = int(os.environ.get("JOBGRANT_LEDGER_EXAMPLES", "15"))
STEPS = int(os.environ.get("JOBGRANT_LEDGER_STEPS", "20"))
POOL_KEYS = [("federal", "ON"), ("provincial", "ON"), ("federal", "QC")]
POOLS = len(POOL_KEYS)
MAX_CENTS = 10**11  # a billion dollars
machines = itertools.count()


@dataclass
class Pool:
    account: BudgetAccount
    allocated: int = 0
    committed: int = 0

    @property
    def available(self) -> int:
        return self.allocated - self.committed


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
        self.outstanding: list[tuple[Pool, int]] = []  # commitments not yet released
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
        target.committed += cents
        self.outstanding.append((target, cents))
        self.transactions += 1

    @precondition(lambda self: self.outstanding)
    @rule(data=st.data())
    def release(self, data: st.DataObject) -> None:
        index = data.draw(st.integers(0, len(self.outstanding) - 1))
        target, cents = self.outstanding.pop(index)
        with transaction.atomic():
            operations.release(target.account, cents, actor="t12", application=None)
        target.committed -= cents
        self.transactions += 1

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
        assert self.rows() == [(p.allocated, p.committed, 0) for p in self.pools]

    @invariant()
    def committed_stays_within_zero_and_the_allocation(self) -> None:
        for allocated, committed, disbursed in self.rows():
            assert 0 <= disbursed <= committed <= allocated

    @invariant()
    def every_transaction_balances(self) -> None:
        unbalanced = (
            self.written()
            .annotate(total=Sum("legs__amount_cents"), legs_count=Count("legs"))
            .exclude(total=0, legs_count=2)
        )
        assert list(unbalanced.values("id", "kind", "total", "legs_count")) == []

    @invariant()
    def the_postings_add_up_to_the_budget_rows(self) -> None:
        sums = self.legs().values_list("account", "bucket").annotate(total=Sum("amount_cents"))
        found = {(account, bucket): total for account, bucket, total in sums}
        for pool in self.pools:
            key = pool.account.pk
            assert found.get((key, Bucket.APPROPRIATION), 0) == -pool.allocated
            assert found.get((key, Bucket.AVAILABLE), 0) == pool.available
            assert found.get((key, Bucket.COMMITTED), 0) == pool.committed
            assert found.get((key, Bucket.DISBURSED), 0) == 0

    @invariant()
    def only_successful_moves_were_written(self) -> None:
        assert self.written().count() == self.transactions

    def written(self) -> QuerySet[LedgerTransaction]:
        """The ledger transactions written since this machine started."""
        return LedgerTransaction.objects.filter(pk__gt=self.since or 0)

    def legs(self) -> QuerySet[Posting]:
        """The postings written since this machine started."""
        return Posting.objects.filter(transaction__pk__gt=self.since or 0)

    def rows(self) -> list[tuple[int, int, int]]:
        """(allocated, committed, disbursed) of each pool, in the pools' order."""
        found = BudgetAccount.objects.filter(pk__in=[p.account.pk for p in self.pools])
        figures = {
            pk: (allocated, committed, disbursed)
            for pk, allocated, committed, disbursed in found.values_list(
                "pk", "allocated_cents", "committed_cents", "disbursed_cents"
            )
        }
        return [figures[p.account.pk] for p in self.pools]


def snapshot(account: BudgetAccount) -> tuple[int, int, int]:
    row = BudgetAccount.objects.values_list(
        "allocated_cents", "committed_cents", "disbursed_cents"
    ).get(pk=account.pk)
    return row[0], row[1], row[2]


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
