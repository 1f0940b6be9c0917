"""A whole population given to `evaluate` at once is evaluated a chunk of applications at a time
into output columns made once: the same figures as one pass over the whole batch, in a fraction
of the memory (it took 3.7 times OpenFisca's memory on OpenFisca's own workload).

The chunks are made tiny here, so that employers and applications straddle chunk boundaries and
a failure mask or a money column changes from one chunk to the next.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from tests.rules.test_kernel_chunks import FIELDS, column, mixed_batch

from jobgrant.rules import evaluate as kernel
from jobgrant.rules.evaluate import evaluate
from jobgrant.rules.evaluation import Evaluation
from jobgrant.rules.population import one_trainee_applications
from jobgrant.rules.precompile import population
from jobgrant.rules.table import is_shared

#: Applications of the population below: more than the compiled passes' threshold, so that
#: before the fix `evaluate` ran them over the whole batch (Numba loaded, about 140 bytes of
#: arrays a trainee at once).
N = 300_000
SPLITS = ("2014-01-15", "2015-01-15")  # the 2013 split (a provincial share), the 2014 split


def assert_same_evaluation(chunked: Evaluation, whole: Evaluation) -> None:
    for level in ("trainees", "employers", "applications"):
        for name in FIELDS:
            assert np.array_equal(
                column(getattr(chunked, level), name), column(getattr(whole, level), name)
            ), f"{level}.{name}"
    assert list(chunked.failures) == list(whole.failures)
    for code, mask in whole.failures.items():
        assert np.array_equal(chunked.failures[code], mask), code
    assert (chunked.unemployed_rule is None) == (whole.unemployed_rule is None)
    if whole.unemployed_rule is not None:
        assert np.array_equal(chunked.unemployed_rule, whole.unemployed_rule)
    assert np.array_equal(chunked.eligible, whole.eligible)
    assert np.array_equal(chunked.key, whole.key)
    assert np.array_equal(chunked.delivery, whole.delivery)
    assert np.array_equal(chunked.rules.present, whole.rules.present)
    for a in range(0, len(whole.eligible), 7):
        assert chunked.reasons(a) == whole.reasons(a)


@pytest.mark.parametrize("policy", ["cjg-2013", "cjg-2014"])
@pytest.mark.parametrize("chunk", [1, 4, 25])
def test_a_population_in_chunks_is_the_whole_batch_evaluated_at_once(
    policy: str, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = mixed_batch(seed=chunk, n_applications=80)
    whole = evaluate(batch, policy, engine="numpy")  # one pass over the whole batch
    monkeypatch.setattr(kernel, "CHUNKED_FROM", chunk)
    assert_same_evaluation(evaluate(batch, policy), whole)


@pytest.mark.parametrize("date", SPLITS)
def test_one_trainee_applications_in_chunks_are_the_whole_batch(
    date: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = one_trainee_applications(population(500), np.datetime64(date))
    whole = evaluate(batch, "cjg-2014", engine="numpy")
    monkeypatch.setattr(kernel, "CHUNKED_FROM", 64)
    chunked = evaluate(batch, "cjg-2014")
    assert_same_evaluation(chunked, whole)
    # one employer with one trainee each: the three levels share their figures
    assert chunked.employers is chunked.trainees is chunked.applications


def test_money_is_int32_where_it_fits_and_int64_from_the_first_chunk_where_it_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    batch = mixed_batch(seed=3, n_applications=80)
    fits = evaluate(batch, "cjg-2013", engine="numpy")
    monkeypatch.setattr(kernel, "CHUNKED_FROM", 10)
    narrow = evaluate(batch, "cjg-2013")
    assert narrow.trainees.eligible_cost.dtype == np.int32
    assert_same_evaluation(narrow, fits)
    late = int(batch.applications.employer_offsets[-2])  # an employer of the last application
    row = int(batch.employers.trainee_offsets[late])
    assert row < len(batch.trainees), "the last application should have a trainee"
    batch.trainees.tuition[row] = 9_000_000_000  # $90 million: over int32's cents
    wide = evaluate(batch, "cjg-2013")
    assert wide.trainees.eligible_cost.dtype == np.int64
    assert int(wide.trainees.eligible_cost[row]) >= 9_000_000_000
    assert_same_evaluation(wide, evaluate(batch, "cjg-2013", engine="numpy"))


def test_a_rule_no_row_fails_stays_a_view_of_one_flag() -> None:
    batch = one_trainee_applications(population(N // 10), np.datetime64(SPLITS[0]))
    evaluation = evaluate(batch, "cjg-2014")
    mask = evaluation.failures["TRAINING_TOO_LONG"]  # 60 days: no training is too long
    assert is_shared(mask) and not mask[0]
    assert is_shared(evaluation.trainees.in_kind)  # no wages in kind under the 2013 split


#: A program that evaluates N one-trainee applications under both splits in a process of its
#: own (as a program given a population would: Numba not loaded), and prints, per split, the
#: peak of the arrays allocated during `evaluate` and the bytes of money kept, then whether
#: Numba was loaded.
PROGRAM = f"""
import json, sys, tracemalloc
import numpy as np
from jobgrant.rules.evaluate import evaluate
from jobgrant.rules.evaluation import TOTAL_FIELDS
from jobgrant.rules.population import OneTraineeColumns, one_trainee_applications
from jobgrant.rules.table import is_shared
n = {N}
rows = np.arange(n)
small, money = (rows % 3).astype(np.int8), (rows % 7 * 100_000).astype(np.int32)
columns = OneTraineeColumns(
    (rows % 13).astype(np.int8), (rows % 120 + 1).astype(np.int16), money * 0,
    np.full(n, 45, np.int16), np.full(n, 60, np.int16), np.full(n, 4_000, np.int16),
    np.ones(n, bool), small, small, money, money // 10, money // 20, money // 50)
figures = {{}}
for date in {SPLITS!r}:
    batch = one_trainee_applications(columns, np.datetime64(date))
    tracemalloc.start()
    evaluation = evaluate(batch, "cjg-2014")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    money = [getattr(evaluation.trainees, name) for name in TOTAL_FIELDS]
    kept = sum(c.nbytes for c in money if not is_shared(c))
    figures[date] = [peak, kept]
    del evaluation
print(json.dumps({{"figures": figures, "numba": "numba" in sys.modules}}))
"""


@pytest.fixture(scope="module")
def own_process() -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("date", SPLITS)
def test_a_whole_population_takes_its_outputs_and_one_chunk_of_memory(
    date: str, own_process: dict[str, dict[str, list[int]]]
) -> None:
    peak, kept = own_process["figures"][date]
    assert kept <= 12 * N, f"money: {kept / N:.0f} bytes a trainee (int32 cents: at most 12)"
    # before: about 140 bytes a trainee; now the outputs (at most 12 bytes of money, 9 of
    # failure flags, 2 of key, 2 of eligibility and delivery) and one chunk's work
    assert peak <= 26 * N + 12 * 2**20, f"{peak / N:.0f} bytes a trainee"


def test_a_population_of_small_applications_does_not_load_numba(
    own_process: dict[str, object],
) -> None:
    """Numba's import alone takes about 73 MiB, more than the figures of a million trainees."""
    assert own_process["numba"] is False


def test_a_process_that_loaded_numba_runs_the_compiled_passes_over_a_population() -> None:
    """Twice as fast as chunks once loaded; the figures are the same."""
    import numba  # noqa: F401  (loaded, as by a program that forced the compiled passes)

    batch = one_trainee_applications(population(N), np.datetime64(SPLITS[1]))
    evaluation = evaluate(batch, "cjg-2014")
    assert evaluation.trainees.eligible_cost.dtype == np.int64  # the passes' own columns
    assert_same_evaluation(evaluation, evaluate(batch, "cjg-2014", engine="numpy"))
