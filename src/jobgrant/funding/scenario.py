"""Funding scenarios: an analyst's arrangement as a YAML file (`kind: funding-scenario`).

    kind: funding-scenario                  # tells it apart from a rules overlay (which has base:)
    title: {en: ..., fr: ...}
    description: ...
    policy: cjg-2013                        # a policy name, or a rules overlay file (relative path)
    delivery:                               # optional; else the policy's delivery modes
      default: provincial                   # a mode, or {fiscal year: mode} from that year on
      jurisdictions:
        "QC": separate-agreement
        "ON": {2014-15: federal-direct, 2016-17: provincial}
    reference: [{title, href}]
    parameters:                             # funding parameter overrides (a policy's shape)
      funding.diversion.share: {values: {2014-04-01: 0.6}, reference: [...]}

Rules parameters (cjg.*) are not overridden here: put them in a rules overlay and name it in
`policy:`, so that the grant an employer is quoted and the funding model read the same rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from jobgrant.funding.errors import FundingError
from jobgrant.funding.parameters import funding_definitions
from jobgrant.funding.years import FiscalYearError, start_year
from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.parameters import ParameterEntry, parse_overrides
from jobgrant.rules.policies import DEFAULT_POLICY, DELIVERY_MODES
from jobgrant.rules.yamlio import load_yaml

KIND = "funding-scenario"
_KEYS = {"kind", "title", "description", "policy", "delivery", "reference", "parameters"}

#: A delivery mode that changes over time: (first fiscal year it applies, mode), sorted.
DeliveryPath = tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class FundingScenario:
    name: str
    title_en: str
    title_fr: str
    description: str
    policy: str
    source: str
    default_delivery: DeliveryPath | None = None
    delivery_by_jurisdiction: Mapping[str, DeliveryPath] = field(default_factory=dict)
    overrides: Mapping[str, ParameterEntry] = field(default_factory=dict)
    reference: tuple[dict[str, str], ...] = ()

    def delivery_in(self, jurisdiction: str, year: int) -> str | None:
        """The scenario's mode for a jurisdiction in a fiscal year (None: the policy decides)."""
        for path in (self.delivery_by_jurisdiction.get(jurisdiction), self.default_delivery):
            mode = _mode_in(path, year)
            if mode is not None:
                return mode
        return None


def _mode_in(path: DeliveryPath | None, year: int) -> str | None:
    mode = None
    for first_year, candidate in path or ():
        if first_year <= year:
            mode = candidate
    return mode


def load_scenario(path: Path) -> FundingScenario:
    """Read and check a funding scenario; FundingError lists every problem with the file."""
    raw = _read(path)
    _check_kind(raw, path)
    assert isinstance(raw, dict)
    problems = _shape_problems(raw, path)
    default, by_jurisdiction = _delivery(raw.get("delivery"), path, problems)
    parameters = raw.get("parameters")
    overrides = _overrides(parameters if isinstance(parameters, dict) else {}, path, problems)
    if problems:
        raise FundingError(problems)
    title = raw["title"]
    return FundingScenario(
        name=path.stem,
        title_en=str(title["en"]),
        title_fr=str(title["fr"]),
        description=str(raw.get("description", "")),
        policy=_policy(raw.get("policy"), path),
        source=str(path),
        default_delivery=default,
        delivery_by_jurisdiction=by_jurisdiction,
        overrides=overrides,
        reference=tuple(dict(r) for r in raw["reference"]),
    )


def _read(path: Path) -> object:
    if not path.is_file():
        raise FundingError([f"{path}: no such scenario file"])
    try:
        return load_yaml(path)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        detail = " ".join(str(error).split())
        raise FundingError([f"{path}: does not parse as YAML ({detail})"]) from None


def _check_kind(raw: object, path: Path) -> None:
    """Stop at once if the file is not a funding scenario at all: nothing else would make sense."""
    if not isinstance(raw, dict):
        raise FundingError([f"{path}: a funding scenario must be a YAML mapping"])
    if raw.get("kind") != KIND:
        hint = " (a rules overlay with base: goes to --policy)" if "base" in raw else ""
        raise FundingError([f"{path}: not a funding scenario: it needs `kind: {KIND}`{hint}"])


def _shape_problems(raw: dict[str, object], path: Path) -> list[str]:
    problems = [f"{path}: unknown key {key!r}" for key in raw if key not in _KEYS]
    title = raw.get("title")
    if not (isinstance(title, dict) and title.get("en") and title.get("fr")):
        problems.append(f"{path}: title must give both en and fr")
    reference = raw.get("reference")
    if not (isinstance(reference, list) and reference and all(map(_is_reference, reference))):
        problems.append(f"{path}: reference must list at least one source {{title, href}}")
    if not isinstance(raw.get("parameters") or {}, dict):
        problems.append(f"{path}: parameters must map funding parameter names to overrides")
    if "policy" in raw and not (isinstance(raw["policy"], str) and raw["policy"].strip()):
        problems.append(f"{path}: policy must be a policy name or a rules overlay file")
    return problems


def _is_reference(item: object) -> bool:
    return isinstance(item, dict) and set(item) == {"title", "href"}


def _policy(raw: object, path: Path) -> str:
    """A policy name as given; a rules overlay file relative to the scenario's directory."""
    name = str(raw or DEFAULT_POLICY).strip()
    if name.endswith((".yaml", ".yml")) and not Path(name).is_absolute():
        return str(path.parent / name)
    return name


def _delivery(
    raw: object, path: Path, problems: list[str]
) -> tuple[DeliveryPath | None, dict[str, DeliveryPath]]:
    if raw is None:
        return None, {}
    if not isinstance(raw, dict) or set(raw) - {"default", "jurisdictions"}:
        problems.append(f"{path}: delivery must be a mapping with default and/or jurisdictions")
        return None, {}
    default = _delivery_path(raw.get("default"), f"{path}: delivery.default", problems)
    by_jurisdiction: dict[str, DeliveryPath] = {}
    jurisdictions = raw.get("jurisdictions") or {}
    if not isinstance(jurisdictions, dict):
        problems.append(f"{path}: delivery.jurisdictions must map jurisdiction codes to modes")
        jurisdictions = {}
    for code, value in jurisdictions.items():
        where = f"{path}: delivery.jurisdictions.{code}"
        if code not in JURISDICTION_CODES:
            problems.append(f"{where}: unknown jurisdiction {code!r} (quote codes like 'ON')")
            continue
        delivery_path = _delivery_path(value, where, problems)
        if delivery_path is not None:
            by_jurisdiction[code] = delivery_path
    return default, by_jurisdiction


def _delivery_path(raw: object, where: str, problems: list[str]) -> DeliveryPath | None:
    if raw is None:
        return None
    steps = raw.items() if isinstance(raw, dict) else [("2014-15", raw)]
    path: list[tuple[int, str]] = []
    for label, mode in steps:
        if mode not in DELIVERY_MODES:
            problems.append(f"{where}: unknown delivery mode {mode!r}; one of {DELIVERY_MODES}")
            continue
        try:
            path.append((start_year(str(label)), str(mode)))
        except FiscalYearError as error:
            problems.append(f"{where}: {error}")
    return tuple(sorted(path))


def _overrides(
    raw: dict[str, object], path: Path, problems: list[str]
) -> dict[str, ParameterEntry]:
    def unknown(name: str) -> str:
        hint = " (rules parameters go in a rules overlay named in policy:)"
        return f"unknown funding parameter {name!r}{hint if name.startswith('cjg.') else ''}"

    overrides, override_problems = parse_overrides(raw, funding_definitions(), str(path), unknown)
    problems.extend(override_problems)
    return overrides
