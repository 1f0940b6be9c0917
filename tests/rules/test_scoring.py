"""Scoring criteria and the ranking of an intake, in the pure kernel: points worked by hand."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pytest

from jobgrant.rules.parameters import ParameterError, schema_problems
from jobgrant.rules.scoring.criteria import (
    CRITERIA,
    PARAMETERS_DIR,
    criteria_set,
    criteria_sets,
    load_criteria_set,
    scoring_parameters,
)
from jobgrant.rules.scoring.ranking import rank_order, within_budget
from jobgrant.rules.scoring.score import ScoringInputs, score
from jobgrant.rules.yamlio import load_yaml

BC = criteria_set("bc-2016")
ON_DAY = dt.date(2016, 10, 1)


def _inputs(**columns: object) -> ScoringInputs:
    defaults: dict[str, object] = {
        "employees": [10],
        "trainees": [2],
        "new_hires": [0],
        "under_represented": [0],
        "first_time": [False],
        "government_cents": [2_000_000],
        "regions": [None],
    }
    merged = {**defaults, **columns}
    arrays = {
        k: np.array(v, dtype=bool if k == "first_time" else np.int64)
        for k, v in merged.items()
        if k != "regions"
    }
    return ScoringInputs(regions=list(merged["regions"]), **arrays)  # type: ignore[arg-type]


@pytest.mark.parametrize("path", sorted(PARAMETERS_DIR.rglob("*.yaml")), ids=lambda p: p.stem)
def test_every_scoring_parameter_follows_the_schema_and_cites_a_source(path: Path) -> None:
    assert schema_problems(path.stem, load_yaml(path), require_unit=True) == []


def test_every_criterion_reads_parameters_that_exist_and_every_set_loads() -> None:
    names = {name for reads in CRITERIA.values() for name in reads}
    assert names == set(scoring_parameters())
    assert {"bc-2016", "on-2017"} <= set(criteria_sets())


def test_a_criteria_set_with_an_unknown_criterion_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "title: {en: A, fr: B}\ncriteria: [charm]\n"
        "reference: [{title: T, href: 'https://example.org'}]\n",
        encoding="utf-8",
    )
    with pytest.raises(ParameterError, match="unknown criterion 'charm'"):
        load_criteria_set(bad)


def test_a_hand_worked_application_scores_each_criterion() -> None:
    # 12 employees (small: 20); 3 of 4 trainees new hires or unemployed: floor(25 x 3/4) = 18;
    # 1 of 4 under-represented in BC: floor(15 x 1/4) = 3; Thompson-Okanagan (5930): 10;
    # first time: 10; $12,000 of government money for 4 trainees: $3,000 each, at most
    # $3,333 so all 20 cost points. Total 81.
    inputs = _inputs(
        employees=[12],
        trainees=[4],
        new_hires=[3],
        under_represented=[1],
        first_time=[True],
        government_cents=[1_200_000],
        regions=["5930"],
    )
    scores = score(inputs, BC, "BC", ON_DAY, explain=True)
    got = {criterion: int(points[0]) for criterion, points in scores.points.items()}
    assert got == {
        "small_business": 20,
        "new_hires": 18,
        "under_represented": 3,
        "regional_priority": 10,
        "first_time": 10,
        "cost_per_trainee": 20,
    }
    assert int(scores.total[0]) == 81


def test_a_large_employer_in_the_lower_mainland_with_costly_training_scores_little() -> None:
    # 200 employees: 0; no new hires: 0; Lower Mainland (5920) is not listed: 0; not first: 0;
    # $10,000 for 2 trainees = $5,000 each: above $3,333, at most $6,666: floor(20 / 2) = 10.
    scores = score(
        _inputs(employees=[200], government_cents=[1_000_000], regions=["5920"]), BC, "BC", ON_DAY
    )
    assert int(scores.total[0]) == 10


def test_points_follow_their_dates_and_jurisdiction() -> None:
    # Under-represented groups count in BC from 2016-04-01 only, and not in Alberta.
    inputs = _inputs(trainees=[1], under_represented=[1], government_cents=[900_000])
    before = score(inputs, BC, "BC", dt.date(2016, 3, 31))
    in_alberta = score(inputs, BC, "AB", ON_DAY)
    after = score(inputs, BC, "BC", ON_DAY)
    assert int(before.points["under_represented"][0]) == 0
    assert int(in_alberta.points["under_represented"][0]) == 0
    assert int(after.points["under_represented"][0]) == 15


def test_a_criteria_set_overrides_a_parameter_with_its_own_source() -> None:
    ontario = criteria_set("on-2017")
    scores = score(_inputs(), ontario, "ON", dt.date(2017, 6, 1), explain=True)
    small = scores.explanations[0][0]
    assert small["criterion"] == "small_business" and small["points"] == 30
    read = {p["name"]: p for p in small["parameters"]}  # type: ignore[attr-defined]
    assert read["ranking.small_business.points"]["layer"] == "on-2017"
    assert read["ranking.small_business.points"]["effective_date"] == "2017-04-01"
    assert "under_represented" not in scores.points  # not in Ontario's set


def test_each_point_explains_itself_with_the_parameters_it_read() -> None:
    scores = score(_inputs(regions=["5930"]), BC, "BC", ON_DAY, explain=True)
    regional = next(s for s in scores.explanations[0] if s["criterion"] == "regional_priority")
    assert regional["points"] == 10 and regional["inputs"] == {"region": "5930"}
    (parameter,) = regional["parameters"]  # type: ignore[misc]
    assert parameter["value"] == "10" and parameter["effective_date"] == "2016-04-01"
    assert parameter["reference"][0]["href"].startswith("https://")
    total = scores.explanations[0][-1]
    assert total["criterion"] == "total" and total["points"] == int(scores.total[0])


def test_a_batch_gives_each_application_what_it_would_get_alone() -> None:
    rows = {
        "employees": [5, 80, 30],
        "trainees": [1, 3, 2],
        "new_hires": [1, 0, 1],
        "under_represented": [0, 3, 1],
        "first_time": [True, False, True],
        "government_cents": [300_000, 3_000_000, 900_000],
        "regions": ["5960", None, "5920"],
    }
    together = score(_inputs(**rows), BC, "BC", ON_DAY)
    for i in range(3):
        alone = score(_inputs(**{k: [v[i]] for k, v in rows.items()}), BC, "BC", ON_DAY)
        assert int(alone.total[0]) == int(together.total[i])


def test_the_order_puts_the_higher_score_first_then_the_earlier_submission() -> None:
    scores = np.array([50, 70, 50, 70], dtype=np.int64)
    submitted = np.array([3, 9, 1, 9], dtype=np.int64)
    numbers = np.array([10, 12, 11, 4], dtype=np.int64)
    # 70s first; of the two 70s submitted at the same instant, the lower number (4) first.
    assert rank_order(scores, submitted, numbers).tolist() == [3, 1, 2, 0]


def test_the_cut_off_is_where_either_funders_running_total_no_longer_fits() -> None:
    federal = np.array([400, 300, 200, 100], dtype=np.int64)
    provincial = np.array([100, 100, 500, 0], dtype=np.int64)
    # Federal 400, 700, 900 fit 1000; provincial 100, 200, 700 > 600 at the third: cut there,
    # and the fourth (which would fit alone) stays below the cut-off.
    assert within_budget(federal, provincial, 1000, 600).tolist() == [True, True, False, False]
