"""A population evaluated chunk by chunk (jobgrant.rules.population) gives exactly the figures
of one evaluation of the whole, with either engine; and the narrow, shared columns of a
one-trainee population (int32 costs, int16 day counts, one broadcast date) give exactly the
figures of the same applications written out in int64 as a general batch."""

from __future__ import annotations

import numpy as np
import pytest
from tests.rules.test_kernel_chunks import FIELDS, column, mixed_batch

from jobgrant.rules.batch import (
    Applications,
    Employers,
    QuoteBatch,
    Trainees,
    one_trainee_structure,
    rows_from_offsets,
)
from jobgrant.rules.chunks import chunks
from jobgrant.rules.evaluate import Engine, evaluate
from jobgrant.rules.evaluation import Evaluation
from jobgrant.rules.population import (
    MONEY,
    OneTraineeColumns,
    PopulationTotals,
    evaluate_in_chunks,
    one_trainee_applications,
)

ENGINES: tuple[Engine, ...] = ("numpy", "compiled")
LEVELS = ("trainees", "employers", "applications")


def concatenated(evaluations: list[Evaluation], level: str, name: str) -> np.ndarray:
    return np.concatenate([column(getattr(e, level), name) for e in evaluations])


def assert_same_figures(whole: Evaluation, parts: list[Evaluation]) -> None:
    for level in LEVELS:
        for name in FIELDS:
            assert np.array_equal(
                column(getattr(whole, level), name), concatenated(parts, level, name)
            ), f"{level}.{name}"
    assert np.array_equal(whole.eligible, np.concatenate([p.eligible for p in parts]))
    for code, mask in whole.failures.items():
        assert np.array_equal(mask, np.concatenate([p.failures[code] for p in parts])), code
    unemployed = [p.unemployed_rule for p in parts]
    if whole.unemployed_rule is None:
        assert all(u is None for u in unemployed)
    else:
        sizes = [len(p.batch.trainees) for p in parts]
        rows = [
            np.zeros(n, np.bool_) if u is None else u
            for u, n in zip(unemployed, sizes, strict=True)
        ]
        assert np.array_equal(whole.unemployed_rule, np.concatenate(rows))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("policy", ["cjg-2013", "cjg-2014"])
@pytest.mark.parametrize("applications", [1, 7, 25, 1000])
def test_a_batch_evaluated_in_chunks_gives_the_figures_of_the_whole(
    engine: Engine, policy: str, applications: int
) -> None:
    batch = mixed_batch(seed=applications, n_applications=60)
    whole = evaluate(batch, policy, engine=engine)
    parts = list(evaluate_in_chunks(chunks(batch, applications), policy, engine=engine))
    assert len(parts) == -(-60 // applications)
    assert_same_figures(whole, parts)


def test_a_chunk_has_at_least_one_application() -> None:
    with pytest.raises(ValueError, match="at least one application"):
        list(chunks(mixed_batch(seed=1), 0))


@pytest.mark.parametrize("policy", ["cjg-2013", "cjg-2014"])
def test_population_totals_are_the_sums_of_the_whole_evaluation(policy: str) -> None:
    batch = mixed_batch(seed=11, n_applications=80)
    whole = evaluate(batch, policy)
    totals = PopulationTotals()
    for part in evaluate_in_chunks(chunks(batch, 9), policy):
        totals.add(part)
    assert totals.applications == 80
    assert totals.trainees == len(batch.trainees)
    assert totals.eligible_applications == int(whole.eligible.sum())
    for name in MONEY:
        values = column(whole.applications, name)
        assert totals.all_trainees[name] == int(values.sum()), name
        assert totals.eligible[name] == int(values[whole.eligible].sum()), name
        assert totals.all_trainees[name] == int(column(whole.trainees, name).sum()), name


def narrow_population(seed: int, n: int) -> OneTraineeColumns:
    """One trainee per application, in the narrowest types that hold the values, with every
    check failing somewhere (leads before the application, long and short training, no cost,
    employers over the cap, unemployed hires of small employers in 2017)."""
    rng = np.random.default_rng(seed)
    costs = [
        (rng.integers(0, high, n) * (rng.random(n) < 0.8)).astype(np.int32)
        for high in (1_800_000, 20_000, 50_000, 30_000)
    ]
    return OneTraineeColumns(
        jurisdiction=rng.integers(0, 13, n).astype(np.int8),
        employees=rng.integers(1, 120, n).astype(np.int16),
        approved_this_fiscal_year=rng.integers(0, 30_000_000, n).astype(np.int32),
        lead_days=rng.integers(-10, 300, n).astype(np.int16),
        duration_days=rng.integers(1, 500, n).astype(np.int16),
        hours=rng.integers(100, 10_000, n).astype(np.int32),
        third_party=rng.random(n) < 0.9,
        setting=rng.integers(0, 3, n).astype(np.int8),
        status=rng.integers(0, 3, n).astype(np.int8),
        tuition=costs[0],
        student_fees=costs[1],
        materials=costs[2],
        exam_fees=costs[3],
        wages_in_kind=(rng.integers(0, 500_000, n) * (rng.random(n) < 0.4)).astype(np.int32),
    )


def written_out(columns: OneTraineeColumns, date: np.datetime64) -> QuoteBatch:
    """The same applications as a general batch: int64 columns, a date per row, offsets and
    row numbers of their own."""
    n = len(columns)
    offsets = np.arange(n + 1, dtype=np.int64)
    start = np.full(n, date) + columns.lead_days.astype(np.int64).astype("timedelta64[D]")
    duration = (columns.duration_days.astype(np.int64) - 1).astype("timedelta64[D]")
    wide = {  # every integer column made int64, in a new array
        name: np.array(getattr(columns, name), dtype=np.int64)
        for name in ("employees", "approved_this_fiscal_year", "hours", *COSTS, "wages_in_kind")
    }
    return QuoteBatch(
        Applications(
            jurisdiction=columns.jurisdiction.copy(),
            region=np.full(n, -1, np.int16),
            delivery=np.full(n, -1, np.int8),
            application_date=np.full(n, date),
            start_date=start,
            end_date=start + duration,
            hours=wide["hours"],
            third_party=columns.third_party.copy(),
            setting=columns.setting.copy(),
            employer_offsets=offsets,
        ),
        Employers(
            employees=wide["employees"],
            approved_this_fiscal_year=wide["approved_this_fiscal_year"],
            trainee_offsets=offsets.copy(),
            application=rows_from_offsets(offsets),
        ),
        Trainees(
            **{name: wide[name] for name in (*COSTS, "wages_in_kind")},
            status=columns.status.copy(),
            employer=rows_from_offsets(offsets),
            application=rows_from_offsets(offsets),
        ),
    )


COSTS = ("tuition", "student_fees", "materials", "exam_fees")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("date", ["2014-01-15", "2015-01-15", "2017-06-01"])
def test_narrow_shared_columns_give_the_figures_of_int64_columns(engine: Engine, date: str) -> None:
    columns = narrow_population(seed=2013, n=3_000)
    day = np.datetime64(date)
    narrow = one_trainee_applications(columns, day)
    assert narrow.one_trainee_each
    assert narrow.applications.application_date.strides == (0,)  # one date for every row
    wide = written_out(columns, day)
    assert wide.one_trainee_each  # found by comparing the offsets
    ours, general = evaluate(narrow, "cjg-2014", engine=engine), evaluate(wide, "cjg-2014")
    assert_same_figures(general, [ours])
    # the batch exercises the checks (the provinces' own from their first intakes, 2014-10)
    failing = ["TRAINING_STARTED_BEFORE_APPLICATION", "TRAINEE_WITHOUT_ELIGIBLE_COSTS"]
    if date == "2017-06-01":
        failing += ["APPLICATION_TOO_CLOSE_TO_START", "TRAINING_TOO_LONG", "EMPLOYER_CAP_EXCEEDED"]
        assert ours.unemployed_rule is not None and ours.unemployed_rule.any()
    for code in failing:
        assert ours.failures[code].any(), code
    assert 0 < ours.eligible.sum() < len(columns)
    if date != "2014-01-15":  # wages in kind came with the 2014 agreements
        assert ours.trainees.in_kind.any()


def test_a_one_trainee_population_in_chunks_gives_the_figures_of_the_whole() -> None:
    columns = narrow_population(seed=7, n=2_500)
    day = np.datetime64("2015-01-15")
    whole = evaluate(one_trainee_applications(columns, day), "cjg-2014")
    batches = (
        one_trainee_applications(columns.rows(start, min(start + 999, 2_500)), day)
        for start in range(0, 2_500, 999)
    )
    # keep_freed=False: as a web worker would call it (glibc's settings left as they are)
    assert_same_figures(whole, list(evaluate_in_chunks(batches, "cjg-2014", keep_freed=False)))


def test_the_sums_of_one_trainee_applications_are_the_trainees_figures() -> None:
    columns = narrow_population(seed=5, n=500)
    ev = evaluate(one_trainee_applications(columns, np.datetime64("2015-01-15")), "cjg-2014")
    for level in ("employers", "applications"):
        for name in FIELDS:
            assert np.array_equal(column(getattr(ev, level), name), column(ev.trainees, name))


def test_a_batch_with_two_trainees_somewhere_is_not_one_trainee_each() -> None:
    assert not mixed_batch(seed=3).one_trainee_each
    columns = narrow_population(seed=5, n=4)
    batch = one_trainee_applications(columns, np.datetime64("2015-01-15"))
    offsets, _ = one_trainee_structure(4)
    assert batch.applications.employer_offsets is offsets
    assert not offsets.flags.writeable  # shared by every batch of that size
