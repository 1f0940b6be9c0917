"""Training dates are bounded by the rules: an end in year 1 is before the start, whatever the
reader uses for "not a date"; an end in 9999 is longer than the longest training; a start before
the policy took effect is refused, naming the field."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from jobgrant.rules.quote import quote
from jobgrant.rules.requests import InvalidRequestError

DEMO = Path(__file__).parents[2] / "src" / "jobgrant" / "data" / "demo-quote.json"


def request_with(**training: str) -> dict[str, Any]:
    request: dict[str, Any] = copy.deepcopy(json.loads(DEMO.read_text()))
    request["training"].update(training)
    return request


def problems_of(request: dict[str, Any], policy: str | None = None) -> list[tuple[str, str]]:
    with pytest.raises(InvalidRequestError) as refused:
        quote(request, policy=policy)
    return [(p.path, p.code) for p in refused.value.problems]


def test_an_end_in_year_1_is_before_the_start() -> None:
    assert problems_of(request_with(end_date="0001-01-01")) == [
        ("training.end_date", "end_before_start")
    ]


def test_a_start_in_year_1_is_before_the_policy_and_named() -> None:
    problems = problems_of(request_with(start_date="0001-01-01"))
    assert ("training.start_date", "before_policy") in problems


def test_a_date_that_is_not_one_still_says_only_that() -> None:
    assert problems_of(request_with(end_date="2015-02-30")) == [("training.end_date", "not_a_date")]


@pytest.mark.parametrize("policy", ["cjg-2013", "cjg-2014"])
def test_an_end_in_9999_is_too_long_under_every_policy(policy: str) -> None:
    result = quote(request_with(end_date="9999-12-31"), policy=policy)
    assert result["eligible"] is False
    assert [r["code"] for r in result["reasons"]] == ["TRAINING_TOO_LONG"]


@pytest.mark.parametrize(("end", "eligible"), [("2015-11-02", True), ("2015-11-03", False)])
def test_a_national_training_may_last_one_year(end: str, eligible: bool) -> None:
    # 2014-11-03 .. 2015-11-02 inclusive is 365 days; one day more is too long.
    result = quote(request_with(end_date=end), policy="cjg-2013")
    assert result["eligible"] is eligible


def test_the_national_limit_is_read_with_its_source() -> None:
    explained = quote(request_with(end_date="2015-11-03"), policy="cjg-2013", explain=True)
    text = json.dumps(explained["explanation"])
    assert "cjg.training.max_duration_days" in text
    assert "digitalschool.ca" in text
