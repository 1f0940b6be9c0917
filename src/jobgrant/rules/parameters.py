"""Parameters: dated, sourced values, optionally broken down by jurisdiction and economic region.

One YAML file per parameter under `parameters/`; its path is its dotted name
(`parameters/cjg/federal/rate.yaml` is `cjg.federal.rate`). A file holds:

    description: what the value means, and what is uncertain about it
    unit: CAD | ratio | count | hours | days | business_days | boolean
    values: {2013-03-21: 1/3}                 # national values keyed by effective date
    jurisdictions: {"ON": {2014-04-01: ...}}  # optional, per province or territory
    regions: {"1310": {2015-01-16: ...}}      # optional, per economic region (SGC 2016)
    reference: [{title: ..., href: ...}]      # at least one source

Policies override parameters with entries of the same shape (without `unit`). Values are held
in canonical integer form: CAD in cents, hours in hundredths, booleans as 0/1, ratios as
Fraction. `null` means "no limit" (or "no special rule").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from pathlib import Path

from jobgrant.rules.codes import JURISDICTION_CODES, economic_regions
from jobgrant.rules.yamlio import load_yaml

PARAMETERS_DIR = Path(__file__).parent / "parameters"

Value = int | Fraction | None


class Unit(StrEnum):
    CAD = "CAD"
    RATIO = "ratio"
    COUNT = "count"
    HOURS = "hours"
    DAYS = "days"
    BUSINESS_DAYS = "business_days"  # a province's working days (rules.business_days)
    BOOLEAN = "boolean"


class ParameterError(ValueError):
    """A parameter or policy file that does not follow the schema; lists every problem."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Reference:
    title: str
    href: str

    def as_dict(self) -> dict[str, str]:
        return {"title": self.title, "href": self.href}


@dataclass(frozen=True)
class DatedValue:
    effective: dt.date
    value: Value


@dataclass(frozen=True)
class Schedule:
    """Values by effective date, nationally and per jurisdiction or region."""

    national: tuple[DatedValue, ...] = ()
    jurisdictions: Mapping[str, tuple[DatedValue, ...]] = field(default_factory=dict)
    regions: Mapping[str, tuple[DatedValue, ...]] = field(default_factory=dict)

    def at(self, on: dt.date, jurisdiction: str, region: str | None) -> DatedValue | None:
        """The value in force on `on`: the region's, else the jurisdiction's, else national."""
        candidates = (
            self.regions.get(region or "", ()),
            self.jurisdictions.get(jurisdiction, ()),
            self.national,
        )
        for series in candidates:
            found = _value_on(series, on)
            if found is not None:
                return found
        return None

    def dates(self) -> set[dt.date]:
        series = [self.national, *self.jurisdictions.values(), *self.regions.values()]
        return {v.effective for values in series for v in values}


def _value_on(series: tuple[DatedValue, ...], on: dt.date) -> DatedValue | None:
    found = None
    for dated in series:  # a handful of dates per parameter, sorted
        if dated.effective > on:
            break
        found = dated
    return found


@dataclass(frozen=True)
class ParameterEntry:
    """One layer's values for one parameter, with the sources that justify them."""

    name: str
    unit: Unit
    schedule: Schedule
    reference: tuple[Reference, ...]
    description: str
    origin: str  # the file or policy layer the values come from


@dataclass(frozen=True)
class ParameterDefinition:
    name: str
    unit: Unit
    description: str
    base: ParameterEntry


def load_parameters(root: Path = PARAMETERS_DIR) -> dict[str, ParameterDefinition]:
    """Load and validate every parameter file; raise ParameterError listing all problems."""
    definitions: dict[str, ParameterDefinition] = {}
    problems: list[str] = []
    for path in sorted(root.rglob("*.yaml")):
        name = ".".join(path.relative_to(root).with_suffix("").parts)
        try:
            definitions[name] = parse_parameter_file(name, load_yaml(path), origin=str(path))
        except ParameterError as error:
            problems.extend(error.problems)
    if problems:
        raise ParameterError(problems)
    return definitions


def parse_parameter_file(name: str, raw: object, *, origin: str) -> ParameterDefinition:
    problems = schema_problems(name, raw, require_unit=True)
    if problems:
        raise ParameterError(problems)
    assert isinstance(raw, dict)
    unit = Unit(raw["unit"])
    entry = parse_entry(name, raw, unit, origin=origin)
    return ParameterDefinition(name, unit, str(raw["description"]), entry)


_FILE_KEYS = {"description", "unit", "values", "jurisdictions", "regions", "reference"}


def schema_problems(name: str, raw: object, *, require_unit: bool) -> list[str]:
    """Every way `raw` breaks the parameter schema (empty when it is valid)."""
    if not isinstance(raw, dict):
        return [f"{name}: must be a mapping"]
    problems = [f"{name}: unknown key {key!r}" for key in raw if key not in _FILE_KEYS]
    if require_unit:
        if not str(raw.get("description") or "").strip():
            problems.append(f"{name}: description is required")
        if raw.get("unit") not in {u.value for u in Unit}:
            problems.append(f"{name}: unit must be one of {', '.join(u.value for u in Unit)}")
    elif "unit" in raw:
        problems.append(f"{name}: an override cannot change the unit")
    if not any(raw.get(key) for key in ("values", "jurisdictions", "regions")):
        problems.append(f"{name}: values (or a jurisdiction or region breakdown) are required")
    problems.extend(_reference_problems(name, raw.get("reference")))
    problems.extend(_breakdown_key_problems(name, raw))
    return problems


def _reference_problems(name: str, reference: object) -> list[str]:
    if not isinstance(reference, list) or not reference:
        return [f"{name}: reference must list at least one source {{title, href}}"]
    problems = []
    for i, item in enumerate(reference):
        ok = isinstance(item, dict) and all(isinstance(item.get(k), str) for k in ("title", "href"))
        if not ok or set(item) != {"title", "href"}:
            problems.append(f"{name}: reference[{i}] must be {{title, href}} strings")
    return problems


def _breakdown_key_problems(name: str, raw: dict[object, object]) -> list[str]:
    problems = []
    for key in _mapping(raw.get("jurisdictions")):
        if isinstance(key, bool):
            problems.append(
                f"{name}: jurisdiction key {key!r} is a YAML boolean: an unquoted ON, YES or NO "
                "is read as true/false; quote the code, e.g. 'ON':"
            )
        elif key not in JURISDICTION_CODES:
            problems.append(f"{name}: unknown jurisdiction {key!r}")
    for key in _mapping(raw.get("regions")):
        if str(key) not in economic_regions():
            problems.append(f"{name}: unknown economic region {key!r}")
    return problems


def _mapping(raw: object) -> dict[object, object]:
    return raw if isinstance(raw, dict) else {}


def parse_entry(name: str, raw: dict[str, object], unit: Unit, *, origin: str) -> ParameterEntry:
    """Turn a validated mapping into a ParameterEntry with canonical values."""
    problems: list[str] = []

    def series(values: object, where: str) -> tuple[DatedValue, ...]:
        return _parse_series(values, unit, f"{name}{where}", problems)

    schedule = Schedule(
        national=series(raw.get("values") or {}, ".values"),
        jurisdictions={
            str(j): series(v, f".jurisdictions.{j}")
            for j, v in _mapping(raw.get("jurisdictions")).items()
        },
        regions={
            str(r): series(v, f".regions.{r}") for r, v in _mapping(raw.get("regions")).items()
        },
    )
    if problems:
        raise ParameterError(problems)
    reference = tuple(Reference(r["title"], r["href"]) for r in raw["reference"])  # type: ignore[attr-defined]
    description = str(raw.get("description") or "")
    return ParameterEntry(name, unit, schedule, reference, description, origin)


def parse_overrides(
    raw: Mapping[str, object],
    definitions: Mapping[str, ParameterDefinition],
    source: str,
    unknown: Callable[[str], str],
) -> tuple[dict[str, ParameterEntry], list[str]]:
    """A layer's overrides (name -> entry) and every problem with them, named after `source`.

    `unknown(name)` says what is wrong with a name that is not in `definitions`.
    """
    entries: dict[str, ParameterEntry] = {}
    problems: list[str] = []
    for name, override in raw.items():
        definition = definitions.get(name)
        if definition is None:
            problems.append(f"{source}: {unknown(name)}")
            continue
        override_problems = schema_problems(f"{source}: {name}", override, require_unit=False)
        if override_problems or not isinstance(override, dict):
            problems.extend(override_problems)
            continue
        try:
            entries[name] = parse_entry(name, override, definition.unit, origin=source)
        except ParameterError as error:
            problems.extend(f"{source}: {p}" for p in error.problems)
    return entries, problems


def _parse_series(
    raw: object, unit: Unit, where: str, problems: list[str]
) -> tuple[DatedValue, ...]:
    if not isinstance(raw, dict):
        problems.append(f"{where}: must map effective dates to values")
        return ()
    parsed = []
    for key, value in raw.items():
        effective = _parse_date(key)
        if effective is None:
            problems.append(f"{where}: {key!r} is not an ISO date (YYYY-MM-DD)")
            continue
        try:
            parsed.append(DatedValue(effective, canonical_value(value, unit)))
        except ValueError as error:
            problems.append(f"{where}.{effective}: {error}")
    return tuple(sorted(parsed, key=lambda v: v.effective))


def _parse_date(key: object) -> dt.date | None:
    if isinstance(key, dt.date) and not isinstance(key, dt.datetime):
        return key
    try:
        return dt.date.fromisoformat(str(key))
    except ValueError:
        return None


def canonical_value(raw: object, unit: Unit) -> Value:
    """Canonical integer form of a YAML value for `unit` (ValueError names what is wrong)."""
    if raw is None:
        return None
    if unit is Unit.BOOLEAN:
        if not isinstance(raw, bool):
            raise ValueError("must be true or false")
        return int(raw)
    if isinstance(raw, bool):
        raise ValueError(f"a boolean is not a {unit.value} value")
    if unit is Unit.RATIO:
        return _ratio(raw)
    scale = {Unit.CAD: 100, Unit.HOURS: 100}.get(unit, 1)
    return _scaled_integer(raw, scale, unit)


def _ratio(raw: object) -> Fraction:
    try:
        ratio = Fraction(str(raw))
    except (ValueError, ZeroDivisionError):
        raise ValueError("must be a ratio such as 2/3 or 0.5") from None
    if not 0 <= ratio <= 1:
        raise ValueError("a ratio must be between 0 and 1")
    if ratio.denominator > 1_000_000:
        raise ValueError("a ratio's denominator must not exceed 1,000,000")
    return ratio


def _scaled_integer(raw: object, scale: int, unit: Unit) -> int:
    if not isinstance(raw, int | Decimal | str):
        raise ValueError(f"must be a number of {unit.value}")
    try:
        scaled = Decimal(str(raw)) * scale
    except ArithmeticError:
        raise ValueError(f"must be a number of {unit.value}") from None
    if scaled != scaled.to_integral_value() or scaled < 0:
        raise ValueError(f"must be a non-negative number of {unit.value} (at most 1/{scale})")
    return int(scaled)
