"""The compiled passes give exactly the figures and failures of the numpy formulas.

The numpy formulas are the definition (formulas/); the compiled passes (compiled.py) are a
faster way to run them over a population. Every figure, total, failure and flag of an
evaluation must be the same whichever ran, on batches that cover the cases the passes treat
without branches: unemployed hires under the rule and outside it, wages in kind for small and
large employers, caps that bind and that don't, trainees without costs, employers without
trainees, every application check failing and passing, both delivery modes, regional rules and
an analyst's scenario.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobgrant.rules import compiled
from jobgrant.rules import evaluate as kernel
from jobgrant.rules.batch import QuoteBatch
from jobgrant.rules.evaluate import evaluate
from jobgrant.rules.evaluation import Evaluation
from jobgrant.rules.formulas import eligibility
from jobgrant.rules.formulas.key_rules import RuleColumns
from jobgrant.rules.trace import explain

from .test_kernel_chunks import FIELDS, column, mixed_batch
from .test_share_properties import POLICIES, batches

ROOT = Path(__file__).resolve().parents[2]
NORTHERN_ONTARIO = str(ROOT / "scenarios" / "northern-ontario-allowance.yaml")
DEMO_QUOTE = ROOT / "src" / "jobgrant" / "data" / "demo-quote.json"


def assert_same_evaluation(numpy_ev: Evaluation, compiled_ev: Evaluation) -> None:
    for level in ("trainees", "employers", "applications"):
        for name in FIELDS:
            expected = column(getattr(numpy_ev, level), name)
            actual = column(getattr(compiled_ev, level), name)
            assert np.array_equal(expected, actual), f"{level}.{name}"
    assert np.array_equal(numpy_ev.eligible, compiled_ev.eligible)
    assert list(numpy_ev.failures) == list(compiled_ev.failures)  # reasons come in this order
    for code, mask in numpy_ev.failures.items():
        assert np.array_equal(mask, compiled_ev.failures[code]), code
    if numpy_ev.unemployed_rule is None:
        assert compiled_ev.unemployed_rule is None
    else:
        assert compiled_ev.unemployed_rule is not None
        assert np.array_equal(numpy_ev.unemployed_rule, compiled_ev.unemployed_rule)


def both_engines(batch: QuoteBatch, policy: str) -> tuple[Evaluation, Evaluation]:
    return evaluate(batch, policy, engine="numpy"), evaluate(batch, policy, engine="compiled")


@pytest.mark.parametrize("policy", ["cjg-2013", "cjg-2014", NORTHERN_ONTARIO])
@pytest.mark.parametrize("seed", range(6))
def test_mixed_batches_give_the_same_figures(policy: str, seed: int) -> None:
    batch = mixed_batch(seed=seed, n_applications=400)
    numpy_ev, compiled_ev = both_engines(batch, policy)
    assert_same_evaluation(numpy_ev, compiled_ev)


def with_varied_applications(batch: QuoteBatch, seed: int) -> QuoteBatch:
    """The batch with dates, hours, providers, settings and approved amounts varied, so that
    every application check and the employer cap fail somewhere and pass elsewhere."""
    rng = np.random.default_rng(seed)
    apps, n = batch.applications, len(batch.applications)
    start = apps.application_date + rng.integers(-20, 400, n).astype("timedelta64[D]")
    varied = dataclasses.replace(
        apps,
        start_date=start,
        end_date=start + rng.integers(0, 800, n).astype("timedelta64[D]"),
        hours=rng.integers(0, 8_000, n),
        third_party=rng.random(n) < 0.8,
        setting=rng.integers(0, 3, n).astype(np.int8),
    )
    approved = rng.integers(0, 50_000_000, len(batch.employers))
    employers = dataclasses.replace(batch.employers, approved_this_fiscal_year=approved)
    return QuoteBatch(varied, employers, batch.trainees)


NO_ONLINE_IN_ONTARIO = """
title: {en: No online training in Ontario (test), fr: Pas de formation en ligne en Ontario}
description: A test scenario that makes the setting check fail somewhere.
base: cjg-2014
reference: [{title: "Test scenario", href: "https://example.org/test"}]
parameters:
  cjg.training.setting.online:
    description: Not eligible in Ontario (test assumption).
    jurisdictions: {"ON": {2014-04-01: false}}
    reference: [{title: "Test scenario", href: "https://example.org/test"}]
"""


@pytest.mark.parametrize("policy", ["cjg-2013", "cjg-2014", NORTHERN_ONTARIO, "no-online"])
def test_varied_applications_fail_the_same_checks(policy: str, tmp_path: Path) -> None:
    if policy == "no-online":
        policy = str(tmp_path / "no-online.yaml")
        Path(policy).write_text(NO_ONLINE_IN_ONTARIO)
    batch = with_varied_applications(mixed_batch(seed=11, n_applications=2_000), seed=11)
    numpy_ev, compiled_ev = both_engines(batch, policy)
    assert_same_evaluation(numpy_ev, compiled_ev)
    if policy.endswith("no-online.yaml"):  # every check fails somewhere, not everywhere
        for code in (*compiled.APPLICATION_CODES, "EMPLOYER_CAP_EXCEEDED"):
            failing = compiled_ev.failures[code]
            assert failing.any() and not failing.all(), code


def test_checks_agree_at_their_thresholds() -> None:
    """Leads, durations, hours and employer totals set one below, at and one above each
    application's own limits, where `<` and `<=` part ways."""
    batch = mixed_batch(seed=12, n_applications=3_000)
    first = evaluate(batch, "cjg-2014", engine="numpy")
    rng = np.random.default_rng(12)
    apps, n = batch.applications, len(batch.applications)

    def around(limit: str) -> np.ndarray:
        values = first.rules[limit][first.key]
        return np.where(values < 10**6, values, 100) + rng.integers(-1, 2, n)

    lead = np.where(rng.random(n) < 0.5, around("min_lead_days"), around("max_lead_days"))
    start = apps.application_date + lead.astype("timedelta64[D]")
    duration = around("max_duration_days") - 1  # end - start + 1 days
    varied = dataclasses.replace(
        apps,
        start_date=start,
        end_date=start + duration.astype("timedelta64[D]"),
        hours=np.maximum(around("min_hours"), 0),
    )
    cap = first.rules["employer_cap"][first.key][batch.employers.application]
    approved = np.maximum(cap - first.employers.government + rng.integers(-1, 2, len(cap)), 0)
    employers = dataclasses.replace(batch.employers, approved_this_fiscal_year=approved)
    numpy_ev, compiled_ev = both_engines(QuoteBatch(varied, employers, batch.trainees), "cjg-2014")
    assert_same_evaluation(numpy_ev, compiled_ev)
    for code in ("APPLICATION_TOO_CLOSE_TO_START", "TRAINING_TOO_SHORT", "EMPLOYER_CAP_EXCEEDED"):
        assert numpy_ev.failures[code].any() and not numpy_ev.failures[code].all(), code


@pytest.mark.parametrize("policy", ["cjg-2013", "cjg-2014"])
def test_reasons_and_explanations_are_the_same(policy: str) -> None:
    batch = mixed_batch(seed=9, n_applications=80)
    numpy_ev, compiled_ev = both_engines(batch, policy)
    assert not numpy_ev.eligible.all() and numpy_ev.eligible.any()
    for a in range(len(batch.applications)):
        expected = [(r.code, r.message("en"), r.message("fr")) for r in numpy_ev.reasons(a)]
        actual = [(r.code, r.message("en"), r.message("fr")) for r in compiled_ev.reasons(a)]
        assert expected == actual, a
        assert explain(numpy_ev, a) == explain(compiled_ev, a), a


def test_a_quote_or_the_service_never_loads_numba() -> None:
    """Loading the compiled passes takes a second or more: only a population's evaluation
    may pay for it, never a quote of one application (the command or the service)."""
    program = (
        "import json, sys, django\n"
        "django.setup()\n"
        "import jobgrant.service.urls, jobgrant.service.grants.core.quoting\n"
        "from jobgrant.rules.quote import quote\n"
        f"quote(json.load(open({str(DEMO_QUOTE)!r})))\n"
        "print('numba' in sys.modules)\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "jobgrant.service.test_settings"}
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == "False"


def test_an_application_without_employers_gives_the_same_figures() -> None:
    batch = with_an_empty_application(mixed_batch(seed=3), at=5)
    numpy_ev, compiled_ev = both_engines(batch, "cjg-2014")
    assert_same_evaluation(numpy_ev, compiled_ev)
    assert compiled_ev.applications.at(5)["eligible_cost"] == 0


def with_an_empty_application(batch: QuoteBatch, at: int) -> QuoteBatch:
    """The batch with one more application, of no employer, inserted at row `at`."""
    apps, employers, trainees = batch.applications, batch.employers, batch.trainees
    columns = {
        name: np.insert(values, at, values[at])
        for name, values in vars(apps).items()
        if name != "employer_offsets"
    }
    offsets = np.insert(apps.employer_offsets, at, apps.employer_offsets[at])
    shifted = {"application": lambda rows: rows + (rows >= at)}
    return QuoteBatch(
        dataclasses.replace(apps, **columns, employer_offsets=offsets),
        dataclasses.replace(employers, application=shifted["application"](employers.application)),
        dataclasses.replace(trainees, application=shifted["application"](trainees.application)),
    )


def test_the_mixed_batches_cover_what_the_pass_does_without_branches() -> None:
    """Guards the test above: the batches hold every case it means to compare."""
    batch = mixed_batch(seed=0, n_applications=400)
    ev = evaluate(batch, "cjg-2014", engine="compiled")
    t = ev.trainees
    assert ev.unemployed_rule is not None and ev.unemployed_rule.any()
    assert (t.in_kind > 0).any() and ((batch.trainees.wages_in_kind > 0) & (t.in_kind == 0)).any()
    assert (t.federal == 1_000_000).any() and (t.federal < 1_000_000).any()  # the cap binds
    assert ev.failures["TRAINEE_WITHOUT_ELIGIBLE_COSTS"].any()
    assert (np.diff(batch.employers.trainee_offsets) == 0).any()  # employers without trainees
    assert evaluate(batch, "cjg-2013", engine="compiled").trainees.provincial.any()


@settings(max_examples=150, deadline=None)
@given(batch=batches, policy=st.sampled_from(POLICIES))
def test_generated_batches_give_the_same_figures(batch: QuoteBatch, policy: str) -> None:
    numpy_ev, compiled_ev = both_engines(batch, policy)
    assert_same_evaluation(numpy_ev, compiled_ev)


def test_the_compiled_checks_are_eligibility_checks_in_their_order() -> None:
    assert tuple(eligibility.APPLICATION_CHECKS) == compiled.APPLICATION_CODES
    assert tuple(eligibility.EMPLOYER_CHECKS) == ("EMPLOYER_CAP_EXCEEDED",)


def test_each_rule_index_names_its_column() -> None:
    for index, name in enumerate(compiled.RULES[:-2]):  # the three settings share one name
        assert getattr(compiled, name.upper().removesuffix("_0")) == index, name


def test_auto_runs_the_compiled_pass_from_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real_pass = compiled.evaluate_batch

    def counting_pass(batch: QuoteBatch, *args: object, **kwargs: object) -> object:
        calls.append(len(batch.trainees))
        return real_pass(batch, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(compiled, "evaluate_batch", counting_pass)
    batch = mixed_batch(seed=1)
    monkeypatch.setattr(kernel, "COMPILED_FROM", len(batch.trainees) + 1)
    evaluate(batch, "cjg-2014")
    assert calls == []
    monkeypatch.setattr(kernel, "COMPILED_FROM", len(batch.trainees))
    evaluate(batch, "cjg-2014")
    assert calls == [len(batch.trainees)]


def test_an_unknown_engine_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown engine 'fortran'"):
        evaluate(mixed_batch(seed=1), "cjg-2014", engine="fortran")  # type: ignore[arg-type]


def test_in_kind_fractions_over_a_large_common_denominator_stay_with_numpy() -> None:
    ev = evaluate(mixed_batch(seed=2), "cjg-2014", engine="numpy")
    rules = ev.rules
    assert compiled.compiled_rules(rules) is not None
    columns = dict(rules.columns)
    denominators = np.where(columns["in_kind_uncapped_denominator"] > 0, 1, 0)
    denominators[rules.present] = 1009  # a prime above MAX_IN_KIND_DENOMINATOR
    columns["in_kind_uncapped_denominator"] = denominators
    awkward = RuleColumns(rules.denominator, columns, rules.present, {})
    assert compiled.compiled_rules(awkward) is None
