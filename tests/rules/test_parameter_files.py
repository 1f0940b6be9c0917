"""The parameter and policy files: every one follows the schema and cites a source."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobgrant.rules.parameters import (
    PARAMETERS_DIR,
    ParameterError,
    load_parameters,
    parse_parameter_file,
    schema_problems,
)
from jobgrant.rules.policies import POLICIES_DIR, PolicyLibrary
from jobgrant.rules.yamlio import load_yaml, load_yaml_text

PARAMETER_FILES = sorted(PARAMETERS_DIR.rglob("*.yaml"))
GOOD = """
description: A test parameter.
unit: CAD
values: {2014-04-01: 5000.00}
reference: [{title: A source, href: "https://example.org"}]
"""


def _name(path: Path) -> str:
    return ".".join(path.relative_to(PARAMETERS_DIR).with_suffix("").parts)


@pytest.mark.parametrize("path", PARAMETER_FILES, ids=_name)
def test_every_parameter_file_follows_the_schema_and_cites_a_source(path: Path) -> None:
    raw = load_yaml(path)
    assert schema_problems(_name(path), raw, require_unit=True) == []
    assert raw["reference"], "a parameter without a source"


def test_all_shipped_parameters_and_policies_load() -> None:
    library = PolicyLibrary()
    assert len(library.definitions) == len(PARAMETER_FILES)
    assert {"cjg-2013", "cjg-2014"} <= set(library.policies)
    assert set(library.policies["cjg-2014"].overlays) >= {"AB", "BC", "NB", "NS", "SK", "MB", "ON"}


def test_a_parameter_without_a_reference_fails_the_schema() -> None:
    raw = load_yaml_text(
        GOOD.replace('reference: [{title: A source, href: "https://example.org"}]', "")
    )
    problems = schema_problems("test.parameter", raw, require_unit=True)
    assert any("reference" in p for p in problems)


def test_a_reference_without_an_href_fails_the_schema() -> None:
    raw = load_yaml_text(GOOD.replace(', href: "https://example.org"', ""))
    assert any("reference[0]" in p for p in schema_problems("x", raw, require_unit=True))


def test_money_written_as_a_yaml_float_is_read_exactly() -> None:
    definition = parse_parameter_file("x", load_yaml_text(GOOD), origin="test")
    assert definition.base.schedule.national[0].value == 500_000


def test_an_unquoted_on_key_is_rejected_loudly_with_the_fix() -> None:
    text = GOOD + "jurisdictions:\n  ON: {2014-04-01: 10.00}\n"
    raw = load_yaml_text(text)
    assert True in raw["jurisdictions"], "PyYAML reads an unquoted ON as the boolean true"
    with pytest.raises(ParameterError) as error:
        parse_parameter_file("x", raw, origin="test")
    assert "quote the code" in str(error.value)


def test_a_quoted_on_key_is_accepted() -> None:
    raw = load_yaml_text(GOOD + "jurisdictions:\n  'ON': {2014-04-01: 10.00}\n")
    definition = parse_parameter_file("x", raw, origin="test")
    assert definition.base.schedule.jurisdictions["ON"][0].value == 1000


def test_an_unknown_jurisdiction_or_region_is_rejected() -> None:
    raw = load_yaml_text(
        GOOD + "jurisdictions:\n  'XX': {2014-04-01: 1}\nregions:\n  '9999': {2014-04-01: 1}\n"
    )
    problems = schema_problems("x", raw, require_unit=True)
    assert any("unknown jurisdiction 'XX'" in p for p in problems)
    assert any("unknown economic region '9999'" in p for p in problems)


def test_a_ratio_above_one_and_a_negative_amount_are_rejected() -> None:
    ratio = GOOD.replace("unit: CAD", "unit: ratio").replace("5000.00", "3/2")
    with pytest.raises(ParameterError, match="between 0 and 1"):
        parse_parameter_file("x", load_yaml_text(ratio), origin="test")
    with pytest.raises(ParameterError, match="non-negative"):
        parse_parameter_file("x", load_yaml_text(GOOD.replace("5000.00", "-1.00")), origin="test")


def test_a_broken_parameter_directory_lists_every_problem(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("description: x\nunit: CAD\nvalues: {2014-01-01: 1}\n")
    (tmp_path / "b.yaml").write_text(GOOD.replace("unit: CAD", "unit: furlongs"))
    with pytest.raises(ParameterError) as error:
        load_parameters(tmp_path)
    assert len(error.value.problems) == 2


def test_a_policy_overriding_an_unknown_parameter_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        "title: {en: Bad, fr: Mauvais}\nreference: [{title: t, href: h}]\n"
        "parameters:\n  cjg.no_such_parameter:\n"
        "    {values: {2014-01-01: 1}, reference: [{title: t, href: h}]}\n"
    )
    with pytest.raises(ParameterError, match=r"unknown parameter 'cjg\.no_such_parameter'"):
        PolicyLibrary(policies_dir=tmp_path)


def test_every_policy_override_cites_a_source() -> None:
    for path in sorted(POLICIES_DIR.rglob("*.yaml")):
        raw = load_yaml(path)
        assert raw["reference"], path
        for name, override in (raw.get("parameters") or {}).items():
            assert override.get("reference"), f"{path}: {name} has no source"
