"""Fixtures for the funding model tests: shipped scenarios, scenario files written on the fly."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from jobgrant.funding.model import FundingModel, YearImpact

SCENARIOS = Path(__file__).parents[2] / "scenarios"
SCENARIO_HEADER = """\
kind: funding-scenario
title: {en: Test scenario, fr: Scénario d'essai}
reference: [{title: a test, href: "https://example.org"}]
"""


@pytest.fixture
def scenarios_dir() -> Path:
    return SCENARIOS


@pytest.fixture
def shipped() -> Callable[..., YearImpact]:
    """One fiscal year (2017-18 unless told) of a scenario shipped in scenarios/."""

    def year(name: str, fiscal_year: str = "2017-18") -> YearImpact:
        return FundingModel(scenario=SCENARIOS / f"{name}.yaml").year(fiscal_year)

    return year


@pytest.fixture
def write_scenario(tmp_path: Path) -> Callable[..., Path]:
    """Write a funding scenario (a valid header, then `body`); return its path."""

    def write(body: str, header: str = SCENARIO_HEADER) -> Path:
        path = tmp_path / "scenario.yaml"
        path.write_text(header + body, encoding="utf-8")
        return path

    return write


@pytest.fixture
def override() -> Callable[..., str]:
    """The YAML of a scenario's `parameters:` section overriding one funding parameter."""

    def yaml(name: str, values: str, jurisdictions: str = "") -> str:
        lines = ["parameters:", f"  {name}:"]
        if values:
            lines.append(f"    values: {values}")
        if jurisdictions:
            lines.append(f"    jurisdictions: {jurisdictions}")
        lines.append('    reference: [{title: a test, href: "https://example.org"}]')
        return "\n".join(lines) + "\n"

    return yaml
