"""Policies: named overlays of parameters, resolved for (jurisdiction, region, date).

A policy file (`policies/NAME.yaml`, or any scenario file an analyst writes):

    title: {en: ..., fr: ...}
    description: ...
    base: cjg-2013                 # optional: the policy this one overrides
    delivery: {default: provincial, jurisdictions: {"QC": {2014-03-04: separate-agreement}}}
    reference: [{title, href}]
    parameters:
      cjg.federal.rate: {values: {2014-04-01: 2/3}, reference: [...]}

A provincial overlay (`policies/cjg-2014/AB.yaml`) has the same shape without `base` and
`delivery`; it applies to its jurisdiction whenever its policy is resolved there.

Precedence, highest first: for each policy from the leaf down to the root, its jurisdiction
overlay, then the policy itself; last, the parameter file. Within one layer, a region's values
come before the jurisdiction's, which come before the national ones. A layer that has no value
on the date falls through to the next.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.parameters import (
    ParameterDefinition,
    ParameterEntry,
    ParameterError,
    Reference,
    Value,
    load_parameters,
    parse_overrides,
)
from jobgrant.rules.yamlio import load_yaml

POLICIES_DIR = Path(__file__).parent / "policies"
DEFAULT_POLICY = "cjg-2013"
DELIVERY_MODES = ("provincial", "federal-direct", "separate-agreement")


@dataclass(frozen=True)
class Layer:
    """A named set of parameter overrides (a policy, or a policy's provincial overlay)."""

    name: str
    title_en: str
    title_fr: str
    description: str
    reference: tuple[Reference, ...]
    entries: Mapping[str, ParameterEntry]
    source: str


@dataclass(frozen=True)
class Policy:
    layer: Layer
    base: str | None
    default_delivery: str
    # per jurisdiction, the delivery mode from each effective date (None: from the start)
    delivery_by_jurisdiction: Mapping[str, tuple[tuple[dt.date | None, str], ...]]
    overlays: Mapping[str, Layer] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.layer.name

    def delivery_for(self, jurisdiction: str, on: dt.date | None = None) -> str:
        """The default delivery mode in `jurisdiction` on `on` (by default, the latest one)."""
        mode = self.default_delivery
        for effective, dated_mode in self.delivery_by_jurisdiction.get(jurisdiction, ()):
            if on is None or effective is None or effective <= on:
                mode = dated_mode
        return mode

    def delivery_dates(self) -> set[dt.date]:
        return {d for dated in self.delivery_by_jurisdiction.values() for d, _ in dated if d}


@dataclass(frozen=True)
class ResolvedValue:
    """A parameter's value for one place and date, and where it came from."""

    name: str
    value: Value
    effective: dt.date
    reference: tuple[Reference, ...]
    layer: str


class UnknownPolicyError(LookupError):
    pass


class PolicyLibrary:
    """All parameter definitions and policies; resolves a policy's parameters anywhere, any day."""

    def __init__(self, parameters_dir: Path | None = None, policies_dir: Path | None = None):
        self.definitions: dict[str, ParameterDefinition] = load_parameters(
            parameters_dir or Path(__file__).parent / "parameters"
        )
        self.policies: dict[str, Policy] = {}
        for path in sorted((policies_dir or POLICIES_DIR).glob("*.yaml")):
            self.add(self._load_policy(path, path.stem))

    def add(self, policy: Policy) -> None:
        if policy.base is not None and policy.base not in self.policies:
            raise ParameterError([f"{policy.name}: unknown base policy {policy.base!r}"])
        self.policies[policy.name] = policy

    def get(self, name: str) -> Policy:
        if name in self.policies:
            return self.policies[name]
        if name.endswith((".yaml", ".yml")):
            return self.load_scenario(Path(name))
        raise UnknownPolicyError(name)

    def load_scenario(self, path: Path) -> Policy:
        """Load an analyst's overlay file; it must name its base policy."""
        if not path.is_file():
            raise UnknownPolicyError(str(path))
        policy = self._load_policy(path, path.stem)
        if policy.base is None:
            raise ParameterError([f"{path}: a scenario must name its base policy"])
        if policy.base not in self.policies:
            raise ParameterError([f"{path}: unknown base policy {policy.base!r}"])
        return policy

    def chain(self, policy: Policy) -> list[Policy]:
        """The policy and its bases, leaf first."""
        chain = [policy]
        while chain[-1].base is not None:
            chain.append(self.policies[chain[-1].base])
        return chain

    def layers(self, policy: Policy, jurisdiction: str) -> list[Layer]:
        """The layers that apply in `jurisdiction`, highest precedence first."""
        layers: list[Layer] = []
        for member in self.chain(policy):
            overlay = member.overlays.get(jurisdiction)
            layers.extend([overlay, member.layer] if overlay else [member.layer])
        return layers

    def resolve(
        self, policy: Policy, jurisdiction: str, region: str | None, on: dt.date
    ) -> dict[str, ResolvedValue]:
        """Every parameter's value for one place and date (one frozen parameter set)."""
        layers = self.layers(policy, jurisdiction)
        return {
            name: self._resolve_one(name, layers, jurisdiction, region, on)
            for name in self.definitions
        }

    def _resolve_one(
        self, name: str, layers: list[Layer], jurisdiction: str, region: str | None, on: dt.date
    ) -> ResolvedValue:
        entries = [(layer.name, layer.entries.get(name)) for layer in layers]
        entries.append(("parameters", self.definitions[name].base))
        for layer_name, entry in entries:
            found = entry.schedule.at(on, jurisdiction, region) if entry else None
            if entry is not None and found is not None:
                return ResolvedValue(
                    name, found.value, found.effective, entry.reference, layer_name
                )
        raise LookupError(f"{name} has no value on {on.isoformat()}")

    def start_date(self, policy: Policy) -> dt.date:
        """The first day on which every parameter has a value under `policy`."""
        return max(min(d.base.schedule.dates()) for d in self.definitions.values())

    def breakpoints(self, policy: Policy) -> list[dt.date]:
        """Every date on which some value changes under `policy`, anywhere."""
        dates = {self.start_date(policy)}
        for member in self.chain(policy):
            for layer in [member.layer, *member.overlays.values()]:
                for entry in layer.entries.values():
                    dates |= entry.schedule.dates()
        for definition in self.definitions.values():
            dates |= definition.base.schedule.dates()
        for member in self.chain(policy):
            dates |= member.delivery_dates()
        return sorted(d for d in dates if d >= self.start_date(policy))

    @cached_property
    def overlay_names(self) -> list[str]:
        return [o.name for p in self.policies.values() for o in p.overlays.values()]

    def _load_policy(self, path: Path, name: str) -> Policy:
        raw = load_yaml(path)
        layer = self._parse_layer(raw, name, str(path), allow={"base", "delivery"})
        assert isinstance(raw, dict)
        overlays_dir = path.parent / name
        overlays = {}
        if overlays_dir.is_dir():
            for overlay_path in sorted(overlays_dir.glob("*.yaml")):
                code = overlay_path.stem
                if code not in JURISDICTION_CODES:
                    raise ParameterError([f"{overlay_path}: {code!r} is not a jurisdiction code"])
                overlay_raw = load_yaml(overlay_path)
                overlays[code] = self._parse_layer(
                    overlay_raw, f"{name}/{code}", str(overlay_path), allow=set()
                )
        default, by_jurisdiction = _parse_delivery(raw.get("delivery"), name)
        base = raw.get("base")
        return Policy(layer, str(base) if base else None, default, by_jurisdiction, overlays)

    def _parse_layer(self, raw: object, name: str, source: str, allow: set[str]) -> Layer:
        if not isinstance(raw, dict):
            raise ParameterError([f"{source}: a policy file must be a mapping"])
        problems = _layer_shape_problems(raw, source, allow)
        entries, override_problems = parse_overrides(
            raw.get("parameters") or {},
            self.definitions,
            source,
            lambda name: f"unknown parameter {name!r}",
        )
        problems += override_problems
        if problems:
            raise ParameterError(problems)
        title = raw.get("title") or {}
        return Layer(
            name=name,
            title_en=str(title.get("en", name)),
            title_fr=str(title.get("fr", name)),
            description=str(raw.get("description", "")),
            reference=tuple(Reference(r["title"], r["href"]) for r in raw["reference"]),
            entries=entries,
            source=source,
        )


_LAYER_KEYS = {"title", "description", "reference", "parameters"}


def _layer_shape_problems(raw: dict[str, object], source: str, allow: set[str]) -> list[str]:
    problems = [f"{source}: unknown key {k!r}" for k in raw if k not in _LAYER_KEYS | allow]
    title = raw.get("title")
    if not (isinstance(title, dict) and title.get("en") and title.get("fr")):
        problems.append(f"{source}: title must give both en and fr")
    reference = raw.get("reference")
    if not (isinstance(reference, list) and reference):
        problems.append(f"{source}: reference must list at least one source {{title, href}}")
    if not isinstance(raw.get("parameters") or {}, dict):
        problems.append(f"{source}: parameters must be a mapping of parameter names")
    return problems


def _parse_delivery(
    raw: object, name: str
) -> tuple[str, dict[str, tuple[tuple[dt.date | None, str], ...]]]:
    """`{default: mode, jurisdictions: {"QC": mode or {date: mode}}}`, validated."""
    if raw is None:
        return "provincial", {}
    if not isinstance(raw, dict):
        raise ParameterError([f"{name}: delivery must be a mapping"])
    default = str(raw.get("default", "provincial"))
    by_jurisdiction = {
        str(code): _dated_modes(value) for code, value in (raw.get("jurisdictions") or {}).items()
    }
    modes = [default, *(m for dated in by_jurisdiction.values() for _, m in dated)]
    bad = [m for m in modes if m not in DELIVERY_MODES]
    bad += [j for j in by_jurisdiction if j not in JURISDICTION_CODES]
    if bad:
        raise ParameterError([f"{name}: unknown delivery mode or jurisdiction {bad}"])
    return default, by_jurisdiction


def _dated_modes(value: object) -> tuple[tuple[dt.date | None, str], ...]:
    if not isinstance(value, dict):
        return ((None, str(value)),)
    dated = [
        (d if isinstance(d, dt.date) else dt.date.fromisoformat(str(d)), str(m))
        for d, m in value.items()
    ]
    return tuple(sorted(dated, key=lambda pair: pair[0]))
