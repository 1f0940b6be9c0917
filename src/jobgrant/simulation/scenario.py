"""What a simulation runs under: a funding scenario (policy, delivery, budgets) and parameters.

A simulation scenario is either a funding scenario file (`kind: funding-scenario`, as
`jobgrant funding --scenario` reads) or a small file of its own:

    kind: simulation-scenario
    title: {en: ..., fr: ...}
    funding: budget-2013.yaml         # a funding scenario, relative to this file
    parameters:                       # optional: values of parameters/simulation.yaml
      take_up.share_slope: -6.0

The grant budget of each jurisdiction and fiscal year is the funding model's: the federal grant
money (`grant`) and the provincial matching (`matching`) of `jobgrant funding`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from jobgrant.funding.errors import FundingError
from jobgrant.funding.model import FundingModel
from jobgrant.funding.years import MODEL_YEARS, start_year
from jobgrant.rules.batch import DELIVERIES
from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.policies import Policy, PolicyLibrary
from jobgrant.rules.yamlio import load_yaml
from jobgrant.simulation.parameters import SimulationParameterError, SimulationParameters

KIND = "simulation-scenario"


class ScenarioError(ValueError):
    """A scenario that cannot be simulated; each problem names the file and the field."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Budget:
    federal: int  # cents
    provincial: int


@dataclass(frozen=True)
class Scenario:
    name: str
    funding_file: Path
    parameter_values: dict[str, Any] = field(default_factory=dict)
    #: the file's title, {"en": ..., "fr": ...}
    title: dict[str, str] = field(default_factory=dict, compare=False)

    @cached_property
    def model(self) -> FundingModel:
        try:
            return FundingModel(scenario=self.funding_file)
        except FundingError as error:
            raise ScenarioError(error.problems) from None

    @cached_property
    def parameters(self) -> SimulationParameters:
        try:
            return SimulationParameters().with_values(self.parameter_values, self.name)
        except SimulationParameterError as error:
            raise ScenarioError(error.problems) from None

    @property
    def policy(self) -> Policy:
        return self.model.rules.policy

    @property
    def library(self) -> PolicyLibrary:
        return self.model.rules.library

    @cached_property
    def _impacts(self) -> dict[str, Any]:
        try:
            return {label: self.model.year(label) for label in MODEL_YEARS}
        except FundingError as error:
            raise ScenarioError(error.problems) from None

    @cached_property
    def uses_regions(self) -> bool:
        """Whether any rule of the policy has a value for an economic region. Where none has,
        the simulator quotes without regions: the same figures, with 13 places instead of 89."""
        library = self.library
        entries = [d.base for d in library.definitions.values()]
        for member in library.chain(self.policy):
            for layer in (member.layer, *member.overlays.values()):
                entries.extend(layer.entries.values())
        return any(entry.schedule.regions for entry in entries if entry is not None)

    def budgets(self, year: str) -> list[Budget]:
        """Each jurisdiction's grant budget (JURISDICTION_CODES order)."""
        impact = self._impacts[year]
        return [Budget(j.grant, j.matching) for j in impact.jurisdictions]

    def delivery(self, year: str) -> list[int]:
        """Each jurisdiction's delivery mode (index into DELIVERIES) in the fiscal year."""
        first = start_year(year)
        return [DELIVERIES.index(self.model.delivery(j, first)[0]) for j in JURISDICTION_CODES]


def load_scenario(path: Path) -> Scenario:
    if not path.is_file():
        raise ScenarioError([f"--scenario: no such file {str(path)!r}"])
    try:
        raw = load_yaml(path)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        detail = " ".join(str(error).split())
        raise ScenarioError([f"{path}: does not parse as YAML ({detail})"]) from None
    if not isinstance(raw, dict) or raw.get("kind") not in (KIND, "funding-scenario"):
        raise ScenarioError(
            [f"{path}: kind must be {KIND} or funding-scenario (a rules overlay is not a scenario)"]
        )
    if raw["kind"] == "funding-scenario":
        scenario = Scenario(path.stem, path, title=_title(raw.get("title")))
    else:
        scenario = _simulation_scenario(raw, path)
    scenario.model  # noqa: B018 - read now, so that a bad file fails before anything runs
    scenario.parameters  # noqa: B018
    return scenario


def _simulation_scenario(raw: dict[str, Any], path: Path) -> Scenario:
    problems = [
        f"{path}: unknown key {key!r}"
        for key in raw
        if key not in {"kind", "title", "description", "funding", "parameters"}
    ]
    title = raw.get("title")
    if not (isinstance(title, dict) and title.get("en") and title.get("fr")):
        problems.append(f"{path}: title must give both en and fr")
    funding = raw.get("funding")
    if not isinstance(funding, str) or not (path.parent / funding).is_file():
        problems.append(f"{path}: funding must name a funding scenario file beside it")
    values = raw.get("parameters") or {}
    if not isinstance(values, dict):
        problems.append(f"{path}: parameters must map simulation parameter names to values")
    if problems:
        raise ScenarioError(problems)
    assert isinstance(funding, str)
    return Scenario(path.stem, path.parent / funding, dict(values), _title(title))


def _title(raw: object) -> dict[str, str]:
    return {k: str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}


def first_day(year: str) -> dt.date:
    return dt.date(start_year(year), 4, 1)
