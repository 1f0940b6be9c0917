"""The kernel's chunked evaluation gives the same figures whatever the chunk size, and its
per-employer and per-application totals are the plain sums of the trainees' figures.

Batches in the other tests are far smaller than a chunk; here the chunk is made tiny so that
employers and applications straddle chunk boundaries, and some employers have no trainee.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from jobgrant.rules import evaluate as kernel
from jobgrant.rules.batch import Applications, Employers, QuoteBatch, Trainees, rows_from_offsets
from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.evaluate import evaluate
from jobgrant.rules.evaluation import Evaluation, Totals
from jobgrant.rules.memory import keep_freed_memory

FIELDS = ("direct_cost", "in_kind", "eligible_cost", "federal", "provincial", "employer")


def mixed_batch(seed: int, n_applications: int = 60) -> QuoteBatch:
    """Applications of 1-3 employers with 0-5 trainees each, all over the country, in 2017."""
    rng = np.random.default_rng(seed)
    employer_offsets = np.concatenate(([0], np.cumsum(rng.integers(1, 4, n_applications))))
    n_employers = int(employer_offsets[-1])
    trainee_offsets = np.concatenate(([0], np.cumsum(rng.integers(0, 6, n_employers))))
    n = int(trainee_offsets[-1])
    employer = rows_from_offsets(trainee_offsets)
    application_of_employer = rows_from_offsets(employer_offsets)
    date = np.full(n_applications, np.datetime64("2017-06-01"))
    return QuoteBatch(
        Applications(
            jurisdiction=rng.integers(0, len(JURISDICTION_CODES), n_applications).astype(np.int8),
            region=np.full(n_applications, -1, np.int16),
            delivery=rng.choice(np.array([-1, 0, 1], np.int8), n_applications),
            application_date=date,
            start_date=date + 45,
            end_date=date + 90,
            hours=np.full(n_applications, 10_000, np.int64),
            third_party=np.ones(n_applications, np.bool_),
            setting=np.ones(n_applications, np.int8),
            employer_offsets=employer_offsets.astype(np.int64),
        ),
        Employers(
            employees=rng.integers(1, 120, n_employers),
            approved_this_fiscal_year=rng.integers(0, 1_000_000, n_employers),
            trainee_offsets=trainee_offsets.astype(np.int64),
            application=application_of_employer,
        ),
        Trainees(
            tuition=rng.integers(0, 2_000_000, n) * (rng.random(n) < 0.7),
            student_fees=rng.integers(0, 20_000, n) * (rng.random(n) < 0.5),
            materials=rng.integers(0, 50_000, n) * (rng.random(n) < 0.5),
            exam_fees=rng.integers(0, 30_000, n) * (rng.random(n) < 0.5),
            wages_in_kind=rng.integers(0, 500_000, n) * (rng.random(n) < 0.4),
            status=rng.integers(0, 3, n).astype(np.int8),
            employer=employer,
            application=application_of_employer[employer],
        ),
    )


def evaluate_in_chunks_of(
    size: int, batch: QuoteBatch, policy: str, monkeypatch: pytest.MonkeyPatch
) -> Evaluation:
    with monkeypatch.context() as patch:
        patch.setattr(kernel, "CHUNK", size)
        return evaluate(batch, policy)


def column(totals: Totals, name: str) -> np.ndarray:
    return np.asarray(getattr(totals, name))


@pytest.mark.parametrize("policy", ["cjg-2013", "cjg-2014"])
@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_every_figure_is_the_same_whatever_the_chunk_size(
    policy: str, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = mixed_batch(seed=chunk)
    whole = evaluate(batch, policy)
    chunked = evaluate_in_chunks_of(chunk, batch, policy, monkeypatch)
    for level in ("trainees", "employers", "applications"):
        for name in FIELDS:
            assert np.array_equal(
                column(getattr(whole, level), name), column(getattr(chunked, level), name)
            ), f"{level}.{name}"
    assert np.array_equal(whole.eligible, chunked.eligible)
    for code, mask in whole.failures.items():
        assert np.array_equal(mask, chunked.failures[code]), code


@pytest.mark.parametrize("policy", ["cjg-2013", "cjg-2014"])
def test_employer_and_application_totals_are_the_sums_of_their_trainees(
    policy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = mixed_batch(seed=2014)
    ev = evaluate_in_chunks_of(5, batch, policy, monkeypatch)
    assert_sums_of_parts(ev.employers, ev.trainees, batch.employers.trainee_offsets)
    assert_sums_of_parts(ev.applications, ev.employers, batch.applications.employer_offsets)


def assert_sums_of_parts(wholes: Totals, parts: Totals, offsets: np.ndarray) -> None:
    """Each whole's every figure is the plain sum of its parts' (parts of whole i:
    offsets[i]:offsets[i+1])."""
    for i in range(len(offsets) - 1):
        rows = slice(int(offsets[i]), int(offsets[i + 1]))
        for name in FIELDS:
            expected = sum(int(v) for v in column(parts, name)[rows])
            assert int(column(wholes, name)[i]) == expected, (i, name)


def test_trainees_without_any_cost_are_found_in_every_chunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    batch = mixed_batch(seed=7)
    ev = evaluate_in_chunks_of(3, batch, "cjg-2014", monkeypatch)
    t = batch.trainees
    no_cost = (t.tuition + t.student_fees + t.materials + t.exam_fees) == 0
    assert no_cost.any(), "the batch should hold some trainees without costs"
    assert np.array_equal(ev.failures["TRAINEE_WITHOUT_ELIGIBLE_COSTS"], no_cost)


def test_a_share_the_policy_never_pays_is_a_read_only_zero_column() -> None:
    batch = mixed_batch(seed=1)
    no_provincial = evaluate(batch, "cjg-2014")  # 2/3 from government, no provincial matching
    assert not no_provincial.trainees.provincial.any()
    assert not no_provincial.trainees.provincial.flags.writeable
    no_in_kind = evaluate(batch, "cjg-2013")  # wages in kind came with cjg-2014
    assert not no_in_kind.trainees.in_kind.any()
    assert not no_in_kind.trainees.in_kind.flags.writeable
    assert no_in_kind.trainees.provincial.any()


def test_one_row_figures_match_the_columns() -> None:
    ev = evaluate(mixed_batch(seed=3), "cjg-2014")
    for totals in (ev.trainees, ev.employers, ev.applications):
        for row in range(0, len(totals.federal), 17):
            figures = totals.at(row)
            for name in (*FIELDS, "government"):
                assert figures[name] == int(column(totals, name)[row]), name


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_keeping_freed_memory_changes_no_figure() -> None:
    batch = mixed_batch(seed=4)
    before = evaluate(batch, "cjg-2014")
    assert keep_freed_memory()
    after = evaluate(batch, "cjg-2014")
    for name in FIELDS:
        assert np.array_equal(column(before.trainees, name), column(after.trainees, name))
