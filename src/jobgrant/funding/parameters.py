"""The funding model's parameters: dated, sourced YAML files, overridden by a scenario.

The files live in `funding/parameters/` and follow the rules kernel's schema (one file per
parameter, its path its dotted name, a reference for every value); they are loaded and checked
with `jobgrant.rules.parameters.load_parameters`. A funding scenario overrides them with entries
of the same shape; resolution takes the scenario's value for the jurisdiction (else its national
value), and falls back to the parameter file the same way.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from pathlib import Path

from jobgrant.funding.errors import FundingError
from jobgrant.rules.parameters import (
    ParameterDefinition,
    ParameterEntry,
    ParameterError,
    load_parameters,
)
from jobgrant.rules.policies import ResolvedValue

FUNDING_PARAMETERS_DIR = Path(__file__).parent / "parameters"
PARAMETERS_LAYER = "funding parameters"


@cache
def funding_definitions() -> dict[str, ParameterDefinition]:
    """Every funding parameter file, validated once per process."""
    try:
        return load_parameters(FUNDING_PARAMETERS_DIR)
    except ParameterError as error:
        raise FundingError(error.problems) from None


class FundingParameters:
    """The funding parameters as one scenario sees them, for any jurisdiction and day."""

    def __init__(
        self,
        overrides: Mapping[str, ParameterEntry] | None = None,
        layer: str = PARAMETERS_LAYER,
        definitions: Mapping[str, ParameterDefinition] | None = None,
    ) -> None:
        self.definitions = definitions if definitions is not None else funding_definitions()
        self.overrides = overrides or {}
        self.layer = layer

    def resolve(self, name: str, jurisdiction: str, on: dt.date) -> ResolvedValue:
        """The value in force on `on` in `jurisdiction`, with the layer and sources it came from."""
        candidates = [(self.layer, self.overrides.get(name))]
        candidates.append((PARAMETERS_LAYER, self.definitions[name].base))
        for layer, entry in candidates:
            found = entry.schedule.at(on, jurisdiction, None) if entry else None
            if entry is not None and found is not None:
                return ResolvedValue(name, found.value, found.effective, entry.reference, layer)
        raise FundingError([f"{name} has no value on {on.isoformat()} in {jurisdiction}"])

    def amount(self, name: str, jurisdiction: str, on: dt.date) -> int:
        """A CAD or count parameter as an integer (cents for CAD)."""
        return int(self.resolve(name, jurisdiction, on).value or 0)

    def ratio(self, name: str, jurisdiction: str, on: dt.date) -> Fraction:
        return Fraction(self.resolve(name, jurisdiction, on).value or 0)
