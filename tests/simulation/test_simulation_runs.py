"""Reproducibility, the kernel's input checks, budgets, and the monotonicity properties."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from tests.simulation.conftest import BUDGET_2013, FINAL_DEAL

from jobgrant.rules.batch import COST_CATEGORIES, DELIVERIES, SETTINGS, STATUSES, region_codes
from jobgrant.rules.evaluate import evaluate
from jobgrant.rules.money import format_amount
from jobgrant.rules.requests import parse_quote_request
from jobgrant.simulation.applications import draw_applications
from jobgrant.simulation.montecarlo import RunSpec, run
from jobgrant.simulation.scenario import load_scenario
from jobgrant.simulation.takeup import take_up_probability
from jobgrant.simulation.year import PLACES, _shares, first_day, measures, opening_days

NAMES = measures()


def figure(results: object, name: str, place: str = "CA") -> np.ndarray:
    figures: np.ndarray = results.figures  # type: ignore[attr-defined]
    values: np.ndarray = figures[:, :, PLACES.index(place), NAMES.index(name)]
    return values


def test_the_same_seed_gives_the_same_figures_and_another_seed_others() -> None:
    spec = RunSpec(str(FINAL_DEAL), ("2015-16",), 2, seed=11)
    first, again = run(spec), run(spec)
    assert np.array_equal(first.figures, again.figures, equal_nan=True)
    other = run(RunSpec(str(FINAL_DEAL), ("2015-16",), 2, seed=12))
    assert not np.array_equal(first.figures, other.figures, equal_nan=True)
    assert not np.array_equal(first.figures[0], first.figures[1], equal_nan=True)


def test_processes_give_exactly_the_figures_of_one_process() -> None:
    spec = RunSpec(str(FINAL_DEAL), ("2014-15", "2015-16"), 3, seed=5)
    assert np.array_equal(run(spec).figures, run(spec, workers=2).figures, equal_nan=True)


def test_every_synthetic_application_passes_the_kernels_input_checks() -> None:
    scenario = load_scenario(FINAL_DEAL)
    year = "2016-17"
    values = scenario.parameters.draw(None)
    share, offered = _shares(scenario, year)
    probability = take_up_probability(share, offered, values, 2)
    delivery = np.array(scenario.delivery(year), np.int8)
    rng = np.random.Generator(np.random.PCG64(3))
    opening = opening_days(year, values)
    drawn = draw_applications(rng, probability, first_day(year), opening, delivery, values)
    batch = drawn.batch
    apps = batch.applications
    assert len(apps) > 10_000
    assert (np.diff(apps.employer_offsets) == 2).any()  # consortia are drawn too
    for a in range(len(apps)):
        parse_quote_request(_request(batch, a))  # raises InvalidRequestError on any problem
    result = evaluate(batch, scenario.policy, library=scenario.library)
    assert result.eligible.mean() > 0.95


def _request(batch: object, a: int) -> dict[str, object]:
    apps, employers, trainees = batch.applications, batch.employers, batch.trainees  # type: ignore[attr-defined]
    e0, e1 = int(apps.employer_offsets[a]), int(apps.employer_offsets[a + 1])
    region = int(apps.region[a])
    request: dict[str, object] = {
        "jurisdiction": batch.jurisdiction_code(a),  # type: ignore[attr-defined]
        "delivery": DELIVERIES[int(apps.delivery[a])],
        "application_date": str(apps.application_date[a]),
        "employers": [
            {"id": f"e{e}", "employees": int(employers.employees[e])} for e in range(e0, e1)
        ],
        "training": {
            "setting": SETTINGS[int(apps.setting[a])],
            "start_date": str(apps.start_date[a]),
            "end_date": str(apps.end_date[a]),
            "hours": format_amount(int(apps.hours[a])),
            "provider": {"name": "Provider", "third_party": bool(apps.third_party[a])},
        },
        "trainees": [
            {
                "employer_id": f"e{e}",
                "status": STATUSES[int(trainees.status[t])],
                "costs": {c: format_amount(int(getattr(trainees, c)[t])) for c in COST_CATEGORIES},
                "wages_in_kind": format_amount(int(trainees.wages_in_kind[t])),
            }
            for e in range(e0, e1)
            for t in range(int(employers.trainee_offsets[e]), int(employers.trainee_offsets[e + 1]))
        ],
    }
    if region >= 0:
        request["region"] = region_codes()[region]
    return request


def test_budgets_are_never_overspent() -> None:
    for path in (FINAL_DEAL, BUDGET_2013):
        results = run(RunSpec(str(path), ("2014-15", "2016-17"), 2, seed=1))
        for place in PLACES:
            assert (
                figure(results, "federal", place) <= figure(results, "budget_federal", place)
            ).all()
            provincial = figure(results, "provincial", place)
            assert (provincial <= figure(results, "budget_provincial", place)).all()
            assert (figure(results, "left_federal", place) >= 0).all()
        assert figure(results, "applications_turned_away").sum() > 0  # some intakes do close


def test_a_zero_employer_share_raises_take_up(zero_employer_share: Path) -> None:
    spec = RunSpec(str(FINAL_DEAL), ("2017-18",), 1, seed=2)
    base = run(spec)
    free = run(RunSpec(str(zero_employer_share), ("2017-18",), 1, seed=2))
    assert figure(free, "applications").sum() > 1.3 * figure(base, "applications").sum()
    for size in ("1-4", "50-99", "500+"):
        name = f"take_up.size.{size}"
        assert figure(free, name).sum() > figure(base, name).sum()


def test_a_tighter_cap_lowers_the_government_money(tight_cap: Path) -> None:
    base = run(RunSpec(str(FINAL_DEAL), ("2017-18",), 1, seed=2))
    capped = run(RunSpec(str(tight_cap), ("2017-18",), 1, seed=2))
    assert figure(capped, "government").sum() < figure(base, "government").sum()
    assert figure(capped, "federal", "AB").sum() < figure(base, "federal", "AB").sum()


def test_who_was_turned_away_adds_up_by_size_and_by_sector() -> None:
    from jobgrant.simulation.derive import SIZE_CLASSES, sectors

    results = run(RunSpec(str(FINAL_DEAL), ("2015-16",), 1, seed=3))
    for place in PLACES:
        for kind in ("employers_approved", "employers_turned_away"):
            total = figure(results, kind, place)
            by_size = sum(figure(results, f"{kind}.size.{s}", place) for s in SIZE_CLASSES)
            by_sector = sum(figure(results, f"{kind}.sector.{s}", place) for s in sectors())
            assert np.array_equal(by_size, total) and np.array_equal(by_sector, total)
    turned = figure(results, "applications_turned_away", "SK")
    assert turned.sum() > 0 and not np.isnan(figure(results, "exhaustion_day", "SK")).any()
