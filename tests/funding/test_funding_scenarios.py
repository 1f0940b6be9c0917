"""Funding scenario files: the shipped ones load; a bad one is refused with its problem named."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from jobgrant.funding.errors import FundingError
from jobgrant.funding.model import FundingModel
from jobgrant.funding.parameters import funding_definitions
from jobgrant.funding.scenario import KIND, load_scenario
from jobgrant.rules.yamlio import load_yaml

SHIPPED = ("budget-2013", "premiers-refuse", "final-deal-2014", "funding-small-business-allowance")


@pytest.mark.parametrize("name", SHIPPED)
def test_each_shipped_funding_scenario_loads_and_names_its_kind_and_sources(
    scenarios_dir: Path, name: str
) -> None:
    path = scenarios_dir / f"{name}.yaml"
    assert load_yaml(path)["kind"] == KIND
    scenario = load_scenario(path)
    assert scenario.reference
    assert scenario.title_en and scenario.title_fr


def test_every_funding_parameter_file_has_a_description_and_a_source() -> None:
    for definition in funding_definitions().values():
        assert definition.description.strip()
        assert definition.base.reference


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("policy: cjg-2099\n", "unknown policy 'cjg-2099'"),
        ("delivery:\n  jurisdictions: {XX: provincial}\n", "unknown jurisdiction 'XX'"),
        ("delivery:\n  jurisdictions: {ON: provincial}\n", "unknown jurisdiction True"),
        ("delivery:\n  default: by-carrier-pigeon\n", "unknown delivery mode 'by-carrier-pigeon'"),
        ("delivery:\n  default: {2013-14: provincial}\n", "2013-14 is outside the model"),
        (
            "parameters:\n  funding.magic_money: {values: {2014-04-01: 1}, reference: []}\n",
            "unknown funding parameter 'funding.magic_money'",
        ),
        (
            "parameters:\n  cjg.federal.rate: {values: {2014-04-01: 1/2}}\n",
            "rules parameters go in a rules overlay",
        ),
        (
            "parameters:\n  funding.take_up:\n    jurisdictions: {QQ: {2014-04-01: 0.5}}\n"
            '    reference: [{title: t, href: "https://example.org"}]\n',
            "unknown jurisdiction 'QQ'",
        ),
        (
            "parameters:\n  funding.take_up:\n    values: {2014-04-01: 1.5}\n"
            '    reference: [{title: t, href: "https://example.org"}]\n',
            "between 0 and 1",
        ),
        ("colour: blue\n", "unknown key 'colour'"),
    ],
    ids=[
        "unknown-policy",
        "unknown-jurisdiction",
        "unquoted-ON",
        "unknown-delivery-mode",
        "delivery-year-outside-model",
        "unknown-parameter",
        "rules-parameter",
        "parameter-unknown-jurisdiction",
        "ratio-above-one",
        "unknown-key",
    ],
)
def test_a_bad_scenario_is_refused_with_its_problem_named(
    write_scenario: Callable[..., Path], body: str, problem: str
) -> None:
    with pytest.raises(FundingError) as error:
        FundingModel(scenario=write_scenario(body))
    assert any(problem in p for p in error.value.problems), error.value.problems


def test_a_scenario_that_does_not_parse_is_refused(write_scenario: Callable[..., Path]) -> None:
    path = write_scenario("delivery: [unclosed\n")
    with pytest.raises(FundingError, match="does not parse as YAML"):
        load_scenario(path)


def test_a_rules_overlay_given_as_a_funding_scenario_is_refused_with_a_hint(
    write_scenario: Callable[..., Path],
) -> None:
    path = write_scenario("base: cjg-2014\n", header="title: {en: x, fr: y}\n")
    with pytest.raises(FundingError, match="goes to --policy"):
        load_scenario(path)


def test_a_missing_scenario_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FundingError, match="no such scenario file"):
        load_scenario(tmp_path / "nowhere.yaml")


def test_a_scenario_can_name_a_rules_overlay_file_next_to_it(
    write_scenario: Callable[..., Path],
) -> None:
    overlay = write_scenario("").parent / "no-matching.yaml"
    overlay.write_text(
        "title: {en: No matching, fr: Sans contrepartie}\n"
        "base: cjg-2013\n"
        'reference: [{title: t, href: "https://example.org"}]\n'
        "parameters:\n"
        "  cjg.provincial.rate:\n"
        "    values: {2014-04-01: 0}\n"
        '    reference: [{title: t, href: "https://example.org"}]\n',
        encoding="utf-8",
    )
    impact = FundingModel(scenario=write_scenario("policy: no-matching.yaml\n")).year("2017-18")
    assert impact.policy == "no-matching"
    assert impact.totals()["matching"] == 0
