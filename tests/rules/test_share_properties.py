"""Properties of the money: exact to the cent, capped, never negative, monotone in cost.

Each Hypothesis example is a whole batch of trainees (arrays), so every example checks the
properties on many rows at once, across policies, jurisdictions, delivery modes and dates.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from jobgrant.rules.batch import Applications, Employers, QuoteBatch, Trainees
from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.evaluate import default_library, evaluate
from jobgrant.rules.formulas.key_rules import rules_for_key
from jobgrant.rules.table import table_for

POLICIES = ("cjg-2013", "cjg-2014")
MAX_CENTS = 100_000_000_00  # $100M per cost category


def one_trainee_per_application(
    seed: int, n: int, policy_date: dt.date, delivery: int, costs_scale: int
) -> QuoteBatch:
    rng = np.random.default_rng(seed)
    counts = np.arange(n + 1, dtype=np.int64)
    date = np.full(n, np.datetime64(policy_date))
    costs = rng.integers(0, costs_scale + 1, size=(4, n))
    return QuoteBatch(
        Applications(
            jurisdiction=rng.integers(0, len(JURISDICTION_CODES), n).astype(np.int8),
            region=np.full(n, -1, np.int16),
            delivery=np.full(n, delivery, np.int8),
            application_date=date,
            start_date=date + 30,
            end_date=date + 60,
            hours=np.full(n, 10_000, np.int64),
            third_party=np.ones(n, np.bool_),
            setting=np.ones(n, np.int8),
            employer_offsets=counts,
        ),
        Employers(
            employees=rng.integers(1, 120, n),
            approved_this_fiscal_year=np.zeros(n, np.int64),
            trainee_offsets=counts,
            application=np.arange(n, dtype=np.int32),
        ),
        Trainees(
            tuition=costs[0].copy(),
            student_fees=costs[1].copy(),
            materials=costs[2].copy(),
            exam_fees=costs[3].copy(),
            wages_in_kind=rng.integers(0, costs_scale + 1, n) * (rng.random(n) < 0.5),
            status=rng.integers(0, 3, n).astype(np.int8),
            employer=np.arange(n, dtype=np.int32),
            application=np.arange(n, dtype=np.int32),
        ),
    )


batches = st.builds(
    one_trainee_per_application,
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 300),
    policy_date=st.dates(dt.date(2013, 3, 21), dt.date(2020, 3, 31)),
    delivery=st.sampled_from([-1, 0, 1]),
    costs_scale=st.sampled_from([100, 10_000, 1_500_000, MAX_CENTS]),
)


@settings(max_examples=300, deadline=None)
@given(batch=batches, policy=st.sampled_from(POLICIES))
def test_federal_provincial_and_employer_add_up_to_the_eligible_cost_exactly(
    batch: QuoteBatch, policy: str
) -> None:
    s = evaluate(batch, policy).trainees
    assert np.array_equal(s.federal + s.provincial + s.employer, s.eligible_cost)
    assert np.array_equal(s.direct_cost + s.in_kind, s.eligible_cost)


@settings(max_examples=300, deadline=None)
@given(batch=batches, policy=st.sampled_from(POLICIES))
def test_no_share_is_negative_and_government_never_pays_more_than_the_training_costs(
    batch: QuoteBatch, policy: str
) -> None:
    s = evaluate(batch, policy).trainees
    for column in (s.federal, s.provincial, s.employer, s.in_kind):
        assert (column >= 0).all()
    assert (s.federal + s.provincial <= s.direct_cost).all()
    assert (s.employer >= s.in_kind).all(), "the employer's cash part is never negative"


@settings(max_examples=300, deadline=None)
@given(batch=batches, policy=st.sampled_from(POLICIES))
def test_shares_never_exceed_the_caps_in_force(batch: QuoteBatch, policy: str) -> None:
    ev = evaluate(batch, policy)
    rules = [
        rules_for_key(ev.table.resolved(int(k)), ev.table.decode(int(k)).delivery == "provincial")
        for k in ev.key
    ]
    federal_caps = np.array(
        [
            max(
                int(r["federal_cap"]),
                int(r["unemployed_cap"]) if r["unemployed_rate"] is not None else 0,
            )
            for r in rules
        ]
    )
    provincial_caps = np.array([int(r["provincial_cap"]) for r in rules])
    assert (ev.trainees.federal <= federal_caps).all()
    assert (ev.trainees.provincial <= provincial_caps).all()


@settings(max_examples=200, deadline=None)
@given(
    batch=batches,
    policy=st.sampled_from(POLICIES),
    category=st.sampled_from(["tuition", "student_fees", "materials", "exam_fees"]),
    extra=st.integers(1, 2_000_000),
)
def test_more_cost_never_means_a_smaller_government_share(
    batch: QuoteBatch, policy: str, category: str, extra: int
) -> None:
    before = evaluate(batch, policy).trainees
    raised = getattr(batch.trainees, category) + extra
    costlier = QuoteBatch(
        batch.applications,
        batch.employers,
        Trainees(**{**batch.trainees.__dict__, category: raised}),
    )
    after = evaluate(costlier, policy).trainees
    assert (after.federal >= before.federal).all()
    assert (after.provincial >= before.provincial).all()
    assert (after.eligible_cost >= before.eligible_cost).all()


@settings(max_examples=50, deadline=None)
@given(batch=batches, policy=st.sampled_from(POLICIES))
def test_a_batch_gives_each_application_what_it_gets_alone(batch: QuoteBatch, policy: str) -> None:
    together = evaluate(batch, policy)
    for row in range(min(len(batch.applications), 5)):
        alone = evaluate(_single(batch, row), policy)
        assert int(alone.trainees.federal[0]) == int(together.trainees.federal[row])
        assert int(alone.trainees.provincial[0]) == int(together.trainees.provincial[row])
        assert bool(alone.eligible[0]) == bool(together.eligible[row])


def _single(batch: QuoteBatch, row: int) -> QuoteBatch:
    def pick(columns: object, offsets: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {
            name: offsets.get(name, value[row : row + 1])
            for name, value in columns.__dict__.items()
        }

    one = np.array([0, 1], dtype=np.int64)
    zero = np.zeros(1, dtype=np.int32)
    return QuoteBatch(
        Applications(**pick(batch.applications, {"employer_offsets": one})),
        Employers(**pick(batch.employers, {"trainee_offsets": one, "application": zero})),
        Trainees(**pick(batch.trainees, {"employer": zero, "application": zero})),
    )


def test_the_shipped_policies_resolve_for_every_jurisdiction_on_every_breakpoint() -> None:
    library = default_library()
    for name in POLICIES:
        policy = library.get(name)
        table = table_for(library, policy)
        for day in library.breakpoints(policy):
            for code in JURISDICTION_CODES:
                values = library.resolve(policy, code, None, day)
                assert values["cjg.federal.rate"].reference, (name, code, day)
        assert table.n_keys > 0
