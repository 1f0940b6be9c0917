"""Scenarios for the simulator's tests: shipped ones, and variants written into tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

SCENARIOS = Path(__file__).parents[2] / "scenarios"
FINAL_DEAL = SCENARIOS / "final-deal-2014.yaml"
BUDGET_2013 = SCENARIOS / "budget-2013.yaml"

OVERLAY = """\
title: {{en: Test overlay, fr: Variante de test}}
description: A variant of cjg-2014 for the simulator's tests.
base: cjg-2014
reference:
  - {{title: "Test", href: "https://example.org/"}}
parameters:
{parameters}
"""
FUNDING = """\
kind: funding-scenario
title: {{en: Test, fr: Test}}
policy: {policy}
delivery:
  default: provincial
  jurisdictions:
    "QC": separate-agreement
reference:
  - {{title: "Test", href: "https://example.org/"}}
parameters: {{}}
"""


def variant(directory: Path, name: str, parameters: str) -> Path:
    """A funding scenario over a rules overlay of cjg-2014 with `parameters` (YAML lines)."""
    (directory / f"{name}-rules.yaml").write_text(OVERLAY.format(parameters=parameters))
    path = directory / f"{name}.yaml"
    path.write_text(FUNDING.format(policy=f"{name}-rules.yaml"))
    return path


@pytest.fixture
def zero_employer_share(tmp_path: Path) -> Path:
    """Government pays every dollar: the employer's share is zero."""
    lines = """\
  cjg.federal.rate:
    values: {2014-04-01: 1}
    reference: [{title: "Test", href: "https://example.org/"}]
  cjg.federal.max_per_trainee:
    values: {2014-04-01: 100000.00}
    reference: [{title: "Test", href: "https://example.org/"}]
"""
    return variant(tmp_path, "zero-share", lines)


@pytest.fixture
def tight_cap(tmp_path: Path) -> Path:
    """At most $1,000 of government money per trainee."""
    lines = """\
  cjg.federal.max_per_trainee:
    values: {2014-04-01: 1000.00}
    reference: [{title: "Test", href: "https://example.org/"}]
"""
    return variant(tmp_path, "tight-cap", lines)
