"""Every distribution is a named, dated parameter with a source or marked as an assumption."""

from __future__ import annotations

import datetime as dt

import pytest

from jobgrant.simulation.parameters import (
    SimulationParameterError,
    SimulationParameters,
    parse_parameters,
    shipped_parameters,
)


def test_every_shipped_parameter_is_dated_and_sourced_or_an_assumption() -> None:
    for parameter in shipped_parameters().values():
        assert isinstance(parameter.as_of, dt.date)
        assert parameter.sources or parameter.assumption, parameter.name


def test_a_parameter_without_source_or_assumption_is_refused() -> None:
    raw = {"x": {"description": "d", "as_of": dt.date(2013, 1, 1), "value": 1}}
    with pytest.raises(SimulationParameterError, match="give a source or mark it"):
        parse_parameters(raw, "test.yaml")


def test_an_override_must_keep_the_shape_and_name_a_known_parameter() -> None:
    parameters = SimulationParameters()
    with pytest.raises(SimulationParameterError, match="shape"):
        parameters.with_values({"take_up.size_logit": 1.0}, "s.yaml")
    with pytest.raises(SimulationParameterError, match="unknown simulation parameter"):
        parameters.with_values({"take_up.nothing": 1.0}, "s.yaml")
    changed = parameters.with_values({"take_up.share_slope": -6.0}, "s.yaml")
    assert changed.value("take_up.share_slope") == -6.0


def test_a_simulation_scenario_names_its_funding_scenario_and_changes_parameters() -> None:
    from pathlib import Path

    from jobgrant.simulation.scenario import load_scenario

    path = Path(__file__).parents[2] / "scenarios" / "simulation-share-insensitive.yaml"
    scenario = load_scenario(path)
    assert scenario.funding_file.name == "final-deal-2014.yaml"
    assert scenario.parameters.value("take_up.share_slope") == -2.0
    assert scenario.policy.name == "cjg-2014"
