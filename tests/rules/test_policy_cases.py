"""Policy cases: one YAML file per rule, with the expected figures worked out by hand.

Every `cases/*.yaml` file is one case:

    name: cjg2013-at-cap-splits-in-thirds       # the file's stem; the pytest id
    description: One sentence: the rule the case shows.
    source:                                     # where the rule comes from (at least one)
      - {title: "[S6] Northbridge Consultants ...", href: "https://..."}
      - {title: "policy cjg-2013", href: "src/jobgrant/rules/policies/cjg-2013.yaml"}
    policy: cjg-2014                            # optional; passed to quote(policy=...)
    input: {...}                                # the `jobgrant quote` request
    expected:
      eligible: true
      reasons: [EMPLOYER_CAP_EXCEEDED]          # exact multiset of codes, in any order; an
                                                # entry may be {code: ..., trainee: 1, ...} to
                                                # also compare fields of that reason
                                                # (message_en_contains: a substring)
      totals: {federal: "5000.00"}              # subset of the totals, decimal strings
      trainees: [{federal: "5000.00"}, ...]     # optional, partial dicts compared by position
      employers: [{id: acme, ...}, ...]         # optional, idem
      fiscal_year: "2014-15"                    # optional, like delivery and policy
      error: [{path: application_date, code: before_policy}]   # instead of the above: the
                                                # request is rejected with these problems

A `source` href is a web address (from the fact sheet's source list) or the repository path of
the policy or parameter file the case tests; the path must exist. A policy ending in `.yaml` is
a scenario file, relative to this directory. Amounts in `expected` must be quoted strings, so
that YAML never turns them into numbers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from jobgrant.rules import evaluate as kernel
from jobgrant.rules.quote import quote
from jobgrant.rules.requests import InvalidRequestError
from jobgrant.rules.yamlio import load_yaml

HERE = Path(__file__).parent
CASES_DIR = HERE / "cases"
REPO = HERE.parents[1]
MINIMUM_CASES = 45

CASE_KEYS = {"name", "description", "source", "policy", "input", "expected"}
REQUIRED_KEYS = {"name", "description", "source", "input", "expected"}
EXPECTED_KEYS = {
    "eligible",
    "reasons",
    "totals",
    "trainees",
    "employers",
    "fiscal_year",
    "delivery",
    "policy",
    "error",
}
AMOUNT = re.compile(r"^\d+\.\d{2}$")
MONEY_KEYS = {"eligible_cost", "federal", "provincial", "employer", "in_kind", "government"}


def case_files() -> list[Path]:
    return sorted(CASES_DIR.glob("*.yaml"))


def case_problems(case: object, stem: str) -> list[str]:
    """Every way a loaded case file breaks the case format (empty when it is well formed)."""
    if not isinstance(case, dict):
        return ["a case file must be a mapping"]
    problems = [f"unknown key {k!r}" for k in case if k not in CASE_KEYS]
    problems += [f"{k} is required" for k in sorted(REQUIRED_KEYS - set(case))]
    if case.get("name") != stem:
        problems.append(f"name must be the file's stem {stem!r}, not {case.get('name')!r}")
    description = case.get("description")
    if not (isinstance(description, str) and description.strip()):
        problems.append("description must be a sentence")
    problems += _source_problems(case.get("source"))
    expected = case.get("expected")
    if not isinstance(expected, dict) or not expected:
        problems.append("expected must be a non-empty mapping")
    else:
        problems += [f"expected: unknown key {k!r}" for k in expected if k not in EXPECTED_KEYS]
        if "error" in expected and set(expected) != {"error"}:
            problems.append("expected: error excludes every other key")
        problems += _amount_problems(expected)
    raw_input = case.get("input")
    if isinstance(raw_input, dict) and not isinstance(raw_input.get("jurisdiction"), str):
        problems.append("input.jurisdiction must be a quoted string (an unquoted ON is true)")
    return problems


def _source_problems(source: object) -> list[str]:
    if not isinstance(source, list) or not source:
        return ["source must list at least one {title, href}"]
    problems = []
    for i, item in enumerate(source):
        if not (
            isinstance(item, dict)
            and set(item) == {"title", "href"}
            and all(isinstance(item[k], str) and item[k].strip() for k in ("title", "href"))
        ):
            problems.append(f"source[{i}] must be {{title, href}} strings")
            continue
        href = item["href"]
        if not href.startswith(("http://", "https://")) and not (REPO / href).is_file():
            problems.append(f"source[{i}].href {href!r} is neither a web address nor a file")
    return problems


def _amount_problems(expected: dict[str, Any]) -> list[str]:
    rows: list[tuple[str, object]] = [("totals", expected.get("totals") or {})]
    for group in ("trainees", "employers"):
        rows += [(f"{group}[{i}]", row) for i, row in enumerate(expected.get(group) or [])]
    problems = []
    for where, row in rows:
        if not isinstance(row, dict):
            problems.append(f"expected.{where} must be a mapping")
            continue
        for key, value in row.items():
            if key in MONEY_KEYS and not (isinstance(value, str) and AMOUNT.match(value)):
                problems.append(f"expected.{where}.{key} must be a quoted amount like '5000.00'")
    return problems


def mismatches(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[str]:
    """How `actual` (a quote) differs from `expected` (empty when it matches)."""
    found: list[str] = []
    for key in ("eligible", "fiscal_year", "delivery", "policy"):
        if key in expected and actual.get(key) != expected[key]:
            found.append(f"{key}: expected {expected[key]!r}, got {actual.get(key)!r}")
    if "reasons" in expected:
        found += _reason_mismatches(expected["reasons"], actual["reasons"])
    if "totals" in expected:
        found += _partial("totals", expected["totals"], actual["totals"])
    for group in ("trainees", "employers"):
        if group not in expected:
            continue
        want, got = expected[group], actual[group]
        if len(want) != len(got):
            found.append(f"{group}: expected {len(want)} rows, got {len(got)}")
        for i, (w, g) in enumerate(zip(want, got, strict=False)):
            found += _partial(f"{group}[{i}]", w, g)
    return found


def _partial(where: str, expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[str]:
    return [
        f"{where}.{key}: expected {value!r}, got {actual.get(key, '(missing)')!r}"
        for key, value in expected.items()
        if actual.get(key, object()) != value
    ]


def _reason_mismatches(expected: list[Any], actual: list[dict[str, Any]]) -> list[str]:
    """The reasons must match one to one: same codes (as a multiset) and any fields given."""
    remaining = list(actual)
    found = []
    for want in expected:
        spec = {"code": want} if isinstance(want, str) else dict(want)
        match = next((r for r in remaining if _reason_matches(spec, r)), None)
        if match is None:
            found.append(f"reasons: no reason matches {spec}")
        else:
            remaining.remove(match)
    found += [f"reasons: unexpected {r['code']} ({r['message_en']})" for r in remaining]
    return found


def _reason_matches(spec: Mapping[str, Any], reason: Mapping[str, Any]) -> bool:
    """Fields equal; a key ending in `_contains` (message_en_contains) checks a substring."""
    for key, value in spec.items():
        if key.endswith("_contains"):
            if str(value) not in str(reason.get(key.removesuffix("_contains"), "")):
                return False
        elif reason.get(key, object()) != value:
            return False
    return True


def run_case(case: dict[str, Any]) -> list[str]:
    """Quote the case's input and return how the result differs from what the case expects."""
    policy = case.get("policy")
    if isinstance(policy, str) and policy.endswith(".yaml"):
        policy = str(HERE / policy)
    expected = case["expected"]
    try:
        result = quote(case["input"], policy=policy)
    except InvalidRequestError as error:
        if "error" not in expected:
            return [f"the request was rejected: {error}"]
        got = [{"path": p.path, "code": p.code} for p in error.problems]
        want = [dict(e) for e in expected["error"]]
        return [] if got == want else [f"error: expected {want}, got {got}"]
    if "error" in expected:
        return [f"expected the request to be rejected, got eligible={result['eligible']}"]
    return mismatches(expected, result)


def _load(path: Path) -> object:
    return load_yaml(path)


def _case_id(path: Path) -> str:
    case = _load(path)
    name = case.get("name") if isinstance(case, dict) else None
    return name if isinstance(name, str) and name else path.stem


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
@pytest.mark.parametrize("path", case_files(), ids=_case_id)
def test_policy_case(path: Path, engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each case, with the trainee formulas run by numpy and by the compiled pass."""
    monkeypatch.setattr(kernel, "COMPILED_FROM", 0 if engine == "compiled" else 2**62)
    case = _load(path)
    problems = case_problems(case, path.stem)
    assert not problems, f"{path.name} is not a valid case:\n  " + "\n  ".join(problems)
    assert isinstance(case, dict)
    differences = run_case(case)
    assert not differences, f"{case['name']}: {case['description']}\n  " + "\n  ".join(differences)


def test_there_are_enough_cases() -> None:
    assert len(case_files()) >= MINIMUM_CASES


# The runner itself: a case without a source is refused, and a wrong figure is caught.

GOOD_CASE: dict[str, Any] = {
    "name": "example",
    "description": "Thirds at the cap.",
    "source": [{"title": "policy cjg-2013", "href": "src/jobgrant/rules/policies/cjg-2013.yaml"}],
    "input": {"jurisdiction": "ON"},
    "expected": {"eligible": True, "totals": {"federal": "5000.00"}},
}


def test_a_well_formed_case_has_no_problems() -> None:
    assert case_problems(GOOD_CASE, "example") == []


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"source": None}, "source must list"),
        ({"source": []}, "source must list"),
        ({"source": [{"title": "no address"}]}, "source[0] must be"),
        ({"source": [{"title": "t", "href": "no/such/file.yaml"}]}, "neither a web address"),
        ({"description": ""}, "description"),
        ({"name": "other"}, "name must be"),
        ({"expected": {"totals": {"federal": 5000}}}, "quoted amount"),
        ({"expected": {"eligble": True}}, "unknown key 'eligble'"),
        ({"input": {"jurisdiction": True}}, "unquoted ON"),
    ],
)
def test_a_malformed_case_is_refused(change: dict[str, Any], problem: str) -> None:
    case = {k: v for k, v in {**GOOD_CASE, **change}.items() if v is not None}
    assert any(problem in p for p in case_problems(case, "example"))


def test_a_wrong_expectation_is_reported() -> None:
    actual = {
        "eligible": True,
        "reasons": [],
        "totals": {"federal": "5000.00", "provincial": "5000.00"},
        "trainees": [{"index": 0, "federal": "5000.00"}],
    }
    assert mismatches({"eligible": True, "totals": {"federal": "5000.00"}}, actual) == []
    assert mismatches({"totals": {"federal": "4999.99"}}, actual)
    assert mismatches({"eligible": False}, actual)
    assert mismatches({"reasons": ["EMPLOYER_CAP_EXCEEDED"]}, actual)
    assert mismatches({"trainees": [{"federal": "5000.00"}, {"federal": "0.00"}]}, actual)
    assert mismatches({"totals": {"in_kind": "0.00"}}, actual)  # a missing key is a mismatch


def test_reasons_match_as_a_multiset_with_optional_fields() -> None:
    reason = {"code": "EMPLOYER_CAP_EXCEEDED", "employer": "a", "message_en": "..."}
    actual = {"reasons": [reason, {**reason, "employer": "b"}]}
    both = ["EMPLOYER_CAP_EXCEEDED", "EMPLOYER_CAP_EXCEEDED"]
    assert mismatches({"reasons": both}, actual) == []
    assert mismatches({"reasons": both[:1]}, actual)
    assert mismatches({"reasons": [{"code": "EMPLOYER_CAP_EXCEEDED", "employer": "c"}]}, actual)
    contains = {"code": "EMPLOYER_CAP_EXCEEDED", "message_en_contains": "per region"}
    assert mismatches({"reasons": [contains, "EMPLOYER_CAP_EXCEEDED"]}, actual)
    contains["message_en_contains"] = "..."
    assert mismatches({"reasons": [contains, "EMPLOYER_CAP_EXCEEDED"]}, actual) == []
