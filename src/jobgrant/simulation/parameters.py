"""The simulator's parameters: named, dated, sourced (or marked as assumptions), with the
uncertainty a Monte Carlo draw varies. Read from `parameters/simulation.yaml`; a simulation
scenario may override values (`SimulationParameters.with_values`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from jobgrant.rules.yamlio import load_yaml

PARAMETERS_FILE = Path(__file__).parent / "parameters" / "simulation.yaml"
UNCERTAINTY_KINDS = ("normal", "lognormal")


class SimulationParameterError(ValueError):
    """A parameter file or override that does not follow the schema; lists every problem."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Parameter:
    name: str
    description: str
    as_of: dt.date
    value: Any
    uncertainty: tuple[str, float] | None
    sources: tuple[dict[str, str], ...]
    assumption: bool


def _plain(value: Any) -> Any:
    """Decimals as floats, recursively: these are distribution parameters, not money."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def parse_parameters(raw: object, where: str) -> dict[str, Parameter]:
    if not isinstance(raw, dict):
        raise SimulationParameterError([f"{where}: must map parameter names to definitions"])
    problems: list[str] = []
    parameters = {}
    for name, entry in raw.items():
        parameter = _parameter(str(name), entry, f"{where}: {name}", problems)
        if parameter is not None:
            parameters[str(name)] = parameter
    if problems:
        raise SimulationParameterError(problems)
    return parameters


def _parameter(name: str, entry: object, where: str, problems: list[str]) -> Parameter | None:
    if not isinstance(entry, dict):
        problems.append(f"{where}: must be a mapping")
        return None
    allowed = {"description", "as_of", "value", "uncertainty", "source", "assumption"}
    problems += [f"{where}: unknown key {key!r}" for key in entry if key not in allowed]
    for key in ("description", "as_of", "value"):
        if key not in entry:
            problems.append(f"{where}: {key} is required")
    if not isinstance(entry.get("as_of"), dt.date):
        problems.append(f"{where}: as_of must be a date written YYYY-MM-DD")
    sources = entry.get("source") or []
    if not (entry.get("assumption") is True or sources):
        problems.append(f"{where}: give a source or mark it `assumption: true`")
    uncertainty = _uncertainty(entry.get("uncertainty"), where, problems)
    if any(p.startswith(where) for p in problems):
        return None
    return Parameter(
        name=name,
        description=str(entry["description"]),
        as_of=entry["as_of"],
        value=_plain(entry["value"]),
        uncertainty=uncertainty,
        sources=tuple(dict(s) for s in sources),
        assumption=entry.get("assumption") is True,
    )


def _uncertainty(raw: object, where: str, problems: list[str]) -> tuple[str, float] | None:
    if raw is None:
        return None
    if not (isinstance(raw, dict) and raw.get("kind") in UNCERTAINTY_KINDS and "sd" in raw):
        problems.append(f"{where}: uncertainty must be {{kind: normal|lognormal, sd: S}}")
        return None
    return str(raw["kind"]), float(raw["sd"])


@cache
def shipped_parameters() -> dict[str, Parameter]:
    return parse_parameters(load_yaml(PARAMETERS_FILE), str(PARAMETERS_FILE.name))


@dataclass(frozen=True)
class SimulationParameters:
    """The parameters one scenario runs with (shipped values, then the scenario's)."""

    definitions: Mapping[str, Parameter] = field(default_factory=shipped_parameters)

    def value(self, name: str) -> Any:
        return self.definitions[name].value

    def with_values(self, overrides: Mapping[str, Any], where: str) -> SimulationParameters:
        unknown = [f"{where}: unknown simulation parameter {n!r}" for n in overrides]
        unknown = [u for u, n in zip(unknown, overrides, strict=True) if n not in self.definitions]
        if unknown:
            raise SimulationParameterError(unknown)
        changed = dict(self.definitions)
        for name, value in overrides.items():
            old = changed[name]
            if _shape(value) != _shape(old.value):
                raise SimulationParameterError(
                    [f"{where}: {name}: must have the shape of the shipped value {old.value!r}"]
                )
            changed[name] = Parameter(
                name, old.description, old.as_of, _plain(value), old.uncertainty, (), True
            )
        return SimulationParameters(changed)

    def draw(self, rng: np.random.Generator | None) -> dict[str, Any]:
        """Every value, those with an uncertainty redrawn (None: the central values)."""
        values: dict[str, Any] = {}
        for name, parameter in sorted(self.definitions.items()):
            value = parameter.value
            if rng is not None and parameter.uncertainty is not None:
                kind, sd = parameter.uncertainty
                noise = float(rng.normal(0.0, sd))
                value = _perturb(value, kind, noise)
            values[name] = value
        return values


def _perturb(value: Any, kind: str, noise: float) -> Any:
    if isinstance(value, list):
        return [_perturb(v, kind, noise) for v in value]
    return value + noise if kind == "normal" else value * float(np.exp(noise))


def _shape(value: Any) -> object:
    value = _plain(value)
    if isinstance(value, list):
        return ("list", len(value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted(value)))
    return "scalar"
