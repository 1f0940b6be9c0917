"""Regional allowances: parameters that vary by economic region."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from jobgrant.rules.evaluate import evaluate
from jobgrant.rules.quote import quote
from jobgrant.rules.requests import build_batch, parse_quote_request

ROOT = Path(__file__).parents[2]
SCENARIO = str(ROOT / "scenarios" / "northern-ontario-allowance.yaml")
REQUEST: dict[str, Any] = json.loads((ROOT / "src/jobgrant/data/demo-quote.json").read_text())


def in_region(region: str | None, jurisdiction: str = "ON", **changes: Any) -> dict[str, Any]:
    request = copy.deepcopy(REQUEST)
    request.update(jurisdiction=jurisdiction, region=region, **changes)
    return request


def test_the_northern_ontario_scenario_pays_three_quarters_in_the_northeast() -> None:
    result = quote(in_region("3590"), policy=SCENARIO)
    # 15000 x 3/4 = 11250, under the scenario's 12000 cap
    assert result["totals"]["federal"] == "11250.00"
    assert result["totals"]["employer"] == "3750.00"


def test_the_northern_ontario_scenario_leaves_toronto_under_the_2014_rules() -> None:
    assert quote(in_region("3530"), policy=SCENARIO)["totals"]["federal"] == "10000.00"
    assert quote(in_region(None), policy=SCENARIO)["totals"]["federal"] == "10000.00"


def test_the_regional_value_is_explained_with_its_layer() -> None:
    result = quote(in_region("3595"), policy=SCENARIO, explain=True)
    federal = next(s for s in result["explanation"] if s["target"] == "trainees[0].federal")
    rate = next(p for p in federal["parameters"] if p["name"] == "cjg.federal.rate")
    assert rate["value"] == "3/4"
    assert rate["layer"] == "northern-ontario-allowance"


def test_new_brunswick_caps_each_employer_per_region_and_says_so() -> None:
    request = in_region("1310", jurisdiction="NB", application_date="2015-02-02")
    request["training"] = {
        **request["training"],
        "start_date": "2015-03-02",
        "end_date": "2015-04-30",
    }
    request["employers"][0]["approved_this_fiscal_year"] = "20000.00"
    result = quote(request, policy="cjg-2014")
    # 15000 x 2/3 = 10000; 20000 already approved + 10000 > 25000 per employer per region
    reasons = {r["code"]: r for r in result["reasons"]}
    assert "EMPLOYER_CAP_EXCEEDED" in reasons
    assert "per region" in reasons["EMPLOYER_CAP_EXCEEDED"]["message_en"]
    assert "par région" in reasons["EMPLOYER_CAP_EXCEEDED"]["message_fr"]
    assert "$5,000.00 remains available" in reasons["EMPLOYER_CAP_EXCEEDED"]["message_en"]


def test_evaluate_with_explain_records_a_trace_whose_figures_are_the_quote() -> None:
    batch, _ = build_batch([parse_quote_request(in_region("3590"))])
    evaluation = evaluate(batch, SCENARIO, explain=True)
    assert evaluation.traces is not None
    steps = {step["target"]: step["value"] for step in evaluation.traces[0]}
    assert steps["trainees[0].federal"] == "11250.00"
    assert steps["totals.employer"] == "3750.00"
    assert evaluate(batch, SCENARIO).traces is None
