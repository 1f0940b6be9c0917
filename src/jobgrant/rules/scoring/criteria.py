"""Scoring criteria sets: which criteria rank a stream's intake, and the points each is worth.

The points and thresholds are parameters of the usual schema (dated, per jurisdiction or economic
region, with sources), kept under `scoring/parameters/` apart from the quote's parameters: a
ranking runs once per intake, and the quote's frozen parameter sets, start date and breakpoints
stay what they are. A criteria set (`scoring/sets/NAME.yaml`) names its criteria and may
override a parameter, as a policy does:

    title: {en: ..., fr: ...}
    description: ...
    criteria: [small_business, new_hires, ...]
    parameters: {ranking.small_business.points: {values: {2017-04-01: 30}, reference: [...]}}
    reference: [{title, href}]
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from jobgrant.rules.parameters import (
    ParameterDefinition,
    ParameterEntry,
    ParameterError,
    Reference,
    Unit,
    load_parameters,
    parse_overrides,
)
from jobgrant.rules.policies import ResolvedValue
from jobgrant.rules.yamlio import load_yaml

SCORING_DIR = Path(__file__).parent
PARAMETERS_DIR = SCORING_DIR / "parameters"
SETS_DIR = SCORING_DIR / "sets"

#: Each criterion and the parameters it reads, in the order a score lists them.
CRITERIA: dict[str, tuple[str, ...]] = {
    "small_business": ("ranking.small_business.max_employees", "ranking.small_business.points"),
    "new_hires": ("ranking.new_hires.points",),
    "under_represented": ("ranking.under_represented.points",),
    "regional_priority": ("ranking.regional_priority.points",),
    "first_time": ("ranking.first_time.points",),
    "cost_per_trainee": (
        "ranking.cost_per_trainee.points",
        "ranking.cost_per_trainee.full_points_up_to",
        "ranking.cost_per_trainee.half_points_up_to",
    ),
}
_SET_KEYS = {"title", "description", "criteria", "parameters", "reference"}


class UnknownCriteriaSetError(LookupError):
    pass


@dataclass(frozen=True)
class CriteriaSet:
    name: str
    title_en: str
    title_fr: str
    description: str
    criteria: tuple[str, ...]
    overrides: Mapping[str, ParameterEntry]
    reference: tuple[Reference, ...]

    def resolve(
        self, jurisdiction: str, region: str | None, on: dt.date
    ) -> dict[str, ResolvedValue]:
        """The value of each parameter the set's criteria read, for one place and date: the
        set's override first, then the parameter file (a region's value before the
        jurisdiction's, before the national one)."""
        definitions = scoring_parameters()
        names = [name for criterion in self.criteria for name in CRITERIA[criterion]]
        return {
            name: self._resolve_one(definitions[name], jurisdiction, region, on) for name in names
        }

    def _resolve_one(
        self, definition: ParameterDefinition, jurisdiction: str, region: str | None, on: dt.date
    ) -> ResolvedValue:
        layers = [(self.name, self.overrides.get(definition.name)), ("parameters", definition.base)]
        for layer, entry in layers:
            found = entry.schedule.at(on, jurisdiction, region) if entry else None
            if entry is not None and found is not None:
                return ResolvedValue(
                    definition.name, found.value, found.effective, entry.reference, layer
                )
        raise LookupError(f"{definition.name} has no value on {on.isoformat()}")


@cache
def scoring_parameters() -> dict[str, ParameterDefinition]:
    return load_parameters(PARAMETERS_DIR)


def unit_of(name: str) -> Unit:
    return scoring_parameters()[name].unit


@cache
def criteria_sets() -> dict[str, CriteriaSet]:
    """Every shipped criteria set, by name (its file's stem); ParameterError lists every problem."""
    return {path.stem: load_criteria_set(path) for path in sorted(SETS_DIR.glob("*.yaml"))}


def criteria_set(name: str) -> CriteriaSet:
    try:
        return criteria_sets()[name]
    except KeyError:
        raise UnknownCriteriaSetError(name) from None


def load_criteria_set(path: Path) -> CriteriaSet:
    raw = load_yaml(path)
    source = str(path)
    problems = _shape_problems(raw, source)
    if problems:
        raise ParameterError(problems)
    overrides, override_problems = parse_overrides(
        raw.get("parameters") or {},
        scoring_parameters(),
        source,
        lambda name: f"unknown scoring parameter {name!r}",
    )
    if override_problems:
        raise ParameterError(override_problems)
    return CriteriaSet(
        name=path.stem,
        title_en=str(raw["title"]["en"]),
        title_fr=str(raw["title"]["fr"]),
        description=str(raw.get("description", "")),
        criteria=tuple(raw["criteria"]),
        overrides=overrides,
        reference=tuple(Reference(r["title"], r["href"]) for r in raw["reference"]),
    )


def _shape_problems(raw: object, source: str) -> list[str]:
    if not isinstance(raw, dict):
        return [f"{source}: a criteria set must be a mapping"]
    problems = [f"{source}: unknown key {key!r}" for key in raw if key not in _SET_KEYS]
    title = raw.get("title")
    if not (isinstance(title, dict) and title.get("en") and title.get("fr")):
        problems.append(f"{source}: title must give both en and fr")
    criteria = raw.get("criteria")
    if not (isinstance(criteria, list) and criteria):
        problems.append(f"{source}: criteria must list at least one criterion")
    else:
        problems += [f"{source}: unknown criterion {c!r}" for c in criteria if c not in CRITERIA]
    reference = raw.get("reference")
    if not (isinstance(reference, list) and reference):
        problems.append(f"{source}: reference must list at least one source {{title, href}}")
    if not isinstance(raw.get("parameters") or {}, dict):
        problems.append(f"{source}: parameters must be a mapping of parameter names")
    return problems
