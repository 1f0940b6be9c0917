"""The `jobgrant quote` contract: output, exit codes, and one clear line per bad field."""

from __future__ import annotations

import copy
import gc
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jobgrant.rules import requests
from jobgrant.rules.quote import quote
from jobgrant.rules.requests import InvalidRequestError
from jobgrant.rules.textformat import json_text

DEMO = Path(__file__).parents[2] / "src" / "jobgrant" / "data" / "demo-quote.json"
REQUEST: dict[str, Any] = json.loads(DEMO.read_text())


def run(
    args: list[str], stdin: str | None = None, lang: str = "en_CA.UTF-8"
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LANG": lang}
    env.pop("JOBGRANT_LANG", None)
    command = [sys.executable, "-m", "jobgrant.cli", *args]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, timeout=60)


def quote_of(request: dict[str, Any], *extra: str) -> subprocess.CompletedProcess[str]:
    return run(["quote", "-", *extra], stdin=json.dumps(request))


def changed(path: str, value: Any) -> dict[str, Any]:
    """The demo request with one field set (value ...) or removed (value is REMOVE)."""
    request = copy.deepcopy(REQUEST)
    *parents, last = path.split(".")
    node: Any = request
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    if value is REMOVE:
        del node[last]
    else:
        node[last] = value
    return request


REMOVE = object()


def test_the_issue_example_quotes_5000_from_each_party() -> None:
    result = quote_of(REQUEST)
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["eligible"] is True and body["reasons"] == []
    assert body["fiscal_year"] == "2014-15" and body["delivery"] == "provincial"
    assert body["totals"] == {
        "eligible_cost": "15000.00",
        "federal": "5000.00",
        "provincial": "5000.00",
        "employer": "5000.00",
        "government": "10000.00",
        "in_kind": "0.00",
    }
    assert body["employers"][0]["id"] == "acme"
    assert body["trainees"][0]["index"] == 0


def test_the_command_line_and_the_python_api_give_the_same_quote() -> None:
    assert json.loads(quote_of(REQUEST).stdout) == quote(REQUEST)


def test_a_file_argument_works_like_stdin() -> None:
    assert json.loads(run(["quote", str(DEMO)]).stdout) == json.loads(quote_of(REQUEST).stdout)


def test_an_ineligible_application_still_exits_0_with_its_reasons() -> None:
    result = quote_of(changed("training.provider.third_party", False))
    assert result.returncode == 0
    assert [r["code"] for r in json.loads(result.stdout)["reasons"]] == ["PROVIDER_NOT_THIRD_PARTY"]


def test_the_policy_option_overrides_the_request() -> None:
    body = json.loads(quote_of(REQUEST, "--policy", "cjg-2014").stdout)
    assert body["policy"] == "cjg-2014"
    assert body["totals"]["federal"] == "10000.00" and body["totals"]["provincial"] == "0.00"


def test_text_format_prints_a_readable_table() -> None:
    result = quote_of(REQUEST, "--format", "text")
    assert result.returncode == 0
    assert "$5,000.00" in result.stdout and "Total" in result.stdout


def test_text_format_is_french_for_a_french_locale() -> None:
    result = run(["quote", "-", "--format", "text"], stdin=json.dumps(REQUEST), lang="fr_CA.UTF-8")
    assert "5\u00a0000,00\u00a0$" in result.stdout and "Admissible" in result.stdout


def test_explain_lists_each_figure_with_its_parameters_and_sources() -> None:
    body = json.loads(quote_of(REQUEST, "--explain").stdout)
    steps = {s["target"]: s for s in body["explanation"]}
    federal = steps["trainees[0].federal"]
    assert federal["value"] == body["trainees"][0]["federal"]
    rate = next(p for p in federal["parameters"] if p["name"] == "cjg.federal.rate")
    assert rate["value"] == "1/3" and rate["effective_date"] == "2013-03-21"
    assert rate["reference"][0]["href"].startswith("http")


def test_json_output_is_indented_with_one_line_per_row() -> None:
    stdout = quote_of(REQUEST, "--explain").stdout
    body = json.loads(stdout)
    assert json.loads(json_text(body)) == body and stdout == json_text(body) + "\n"
    lines = stdout.splitlines()
    assert lines[:2] == ["{", '  "policy": "cjg-2013",']
    trainee = next(line for line in lines if '"index": 0' in line)
    assert json.loads(trainee.strip().rstrip(",")) == body["trainees"][0]  # a row on one line
    explanation = lines.index('  "explanation": [')
    assert lines[explanation + 1] == "    {"  # a step holds lists: not a row, indented


def test_json_text_writes_any_json_value() -> None:
    value = {"a": [], "b": {}, "c": [1, [2, {"d": "é"}], {"e": None}], "f": 1.5, "g": [{"h": [1]}]}
    assert json.loads(json_text(value)) == value
    assert "é" in json_text(value)
    assert json_text([]) == "[]" and json_text("x") == '"x"'


GOOD_TRAINEE = REQUEST["trainees"][0]
TRAINEE_VARIANTS = [
    (GOOD_TRAINEE, True),
    ({**GOOD_TRAINEE, "wages_in_kind": "1200.50"}, True),
    ({**GOOD_TRAINEE, "costs": {**GOOD_TRAINEE["costs"], "tuition": 1500}}, True),
    ({**GOOD_TRAINEE, "employer_id": " acme "}, False),  # accepted, but by the full checks
    ({**GOOD_TRAINEE, "employer_id": "nobody"}, False),
    ({**GOOD_TRAINEE, "employer_id": 7}, False),
    ({**GOOD_TRAINEE, "status": "retired"}, False),
    ({**GOOD_TRAINEE, "status": ["new-hire"]}, False),
    ({**GOOD_TRAINEE, "costs": {"tuition": "1.00"}}, False),
    ({**GOOD_TRAINEE, "costs": {**GOOD_TRAINEE["costs"], "travel": "1.00"}}, False),
    ({**GOOD_TRAINEE, "costs": {**GOOD_TRAINEE["costs"], "tuition": "1.005"}}, False),
    ({**GOOD_TRAINEE, "costs": {**GOOD_TRAINEE["costs"], "tuition": "-1.00"}}, False),
    ({**GOOD_TRAINEE, "costs": {**GOOD_TRAINEE["costs"], "tuition": True}}, False),
    ({**GOOD_TRAINEE, "wages_in_kind": "abc"}, False),
    ({**GOOD_TRAINEE, "colour": "blue"}, False),
    ({key: v for key, v in GOOD_TRAINEE.items() if key != "status"}, False),
    (["not", "an", "object"], False),
]


@pytest.mark.parametrize(("trainee", "usual"), TRAINEE_VARIANTS)
def test_the_quick_trainee_reading_agrees_with_the_full_checks(trainee: Any, usual: bool) -> None:
    employer_ids = {"acme"}
    quick = requests._well_formed_trainee(trainee, employer_ids)
    reader = requests._Reader()
    checked = requests._checked_trainee(reader, trainee, "trainees[0]", employer_ids)
    assert (quick is not None) == usual
    if quick is not None:
        assert quick == checked and not reader.problems


def test_policies_lists_the_policies_and_overlays_with_sources() -> None:
    result = run(["policies"])
    assert result.returncode == 0
    for name in ("cjg-2013", "cjg-2014", "cjg-2014/AB", "cjg-2014/NB", "cjg-2014/ON"):
        assert name in result.stdout
    assert "source:" in result.stdout


BAD_INPUT = [
    ("malformed JSON", "{not json", "(stdin): is not valid JSON"),
    ("missing field", changed("jurisdiction", REMOVE), "jurisdiction: is required"),
    ("unknown field", changed("colour", "blue"), "colour: is not a known field"),
    ("unknown cost key", changed("trainees.0.costs.travel", "1.00"), "trainees[0].costs.travel:"),
    (
        "negative amount",
        changed("trainees.0.costs.tuition", "-5.00"),
        "trainees[0].costs.tuition: must",
    ),
    (
        "non-numeric amount",
        changed("trainees.0.costs.materials", "ten"),
        "trainees[0].costs.materials: must",
    ),
    (
        "three decimals",
        changed("trainees.0.costs.exam_fees", "1.005"),
        "trainees[0].costs.exam_fees: must have at most",
    ),
    ("unknown jurisdiction", changed("jurisdiction", "XX"), "jurisdiction: must be one of NL"),
    ("unknown policy", changed("policy", "cjg-1999"), "policy: is not a known policy"),
    (
        "end before start",
        changed("training.end_date", "2014-11-01"),
        "training.end_date: must not be before",
    ),
    ("bad date", changed("application_date", "2014-13-01"), "application_date: must be a date"),
    ("region of another province", changed("region", "1310"), "region: is not an economic region"),
    (
        "unknown employer",
        changed("trainees.0.employer_id", "nobody"),
        "trainees[0].employer_id: does not match",
    ),
    (
        "bad setting",
        changed("training.setting", "moon"),
        "training.setting: must be text (one of on-site",
    ),
    (
        "negative employees",
        changed("employers.0.employees", -3),
        "employers[0].employees: must be a whole number",
    ),
    (
        "before the policy",
        changed("application_date", "2012-01-01"),
        "application_date: is before the policy",
    ),
]


@pytest.mark.parametrize(
    ("request_body", "expected"), [c[1:] for c in BAD_INPUT], ids=[c[0] for c in BAD_INPUT]
)
def test_bad_input_exits_2_naming_the_field_with_nothing_on_stdout(
    request_body: Any, expected: str
) -> None:
    stdin = request_body if isinstance(request_body, str) else json.dumps(request_body)
    result = run(["quote", "-"], stdin=stdin)
    assert result.returncode == 2
    assert result.stdout == ""
    assert any(line.startswith(expected) for line in result.stderr.splitlines()), result.stderr


def test_every_problem_gets_its_own_line() -> None:
    request = changed("trainees.0.costs.tuition", "-1")
    request["trainees"][0]["costs"]["materials"] = "x"
    del request["training"]["hours"]
    lines = quote_of(request).stderr.splitlines()
    assert lines == [
        "training.hours: is required",
        "trainees[0].costs.tuition: must be a non-negative amount",
        "trainees[0].costs.materials: must be a non-negative amount",
    ]


def test_errors_are_in_french_for_a_french_locale() -> None:
    request = changed("trainees.0.costs.tuition", "-1")
    result = run(["quote", "-"], stdin=json.dumps(request), lang="fr_CA.UTF-8")
    assert result.stderr.strip() == "trainees[0].costs.tuition: doit être un montant positif ou nul"


def test_a_missing_file_is_reported_without_a_traceback() -> None:
    result = run(["quote", "/nonexistent/request.json"])
    assert result.returncode == 2 and result.stdout == ""
    assert "cannot be read" in result.stderr and "Traceback" not in result.stderr


def test_a_scenario_file_can_be_the_policy(tmp_path: Path) -> None:
    scenario = tmp_path / "half.yaml"
    scenario.write_text(
        "title: {en: Half, fr: Moitié}\nbase: cjg-2014\nreference: [{title: t, href: h}]\n"
        "parameters:\n  cjg.federal.rate:\n"
        "    {values: {2014-04-01: 1/2}, reference: [{title: t, href: h}]}\n"
    )
    body = json.loads(quote_of(REQUEST, "--policy", str(scenario)).stdout)
    assert body["policy"] == "half" and body["totals"]["federal"] == "7500.00"


def test_a_quote_leaves_the_cycle_collector_as_it_found_it() -> None:
    assert gc.isenabled()
    quote(REQUEST)
    assert gc.isenabled(), "resumed after a quote"
    with pytest.raises(InvalidRequestError):
        quote(changed("trainees.0.costs.tuition", "-1"))
    assert gc.isenabled(), "resumed after bad input"
    gc.disable()
    try:
        quote(REQUEST)
        assert not gc.isenabled(), "a caller that had paused it keeps it paused"
    finally:
        gc.enable()


# --- training.course: optional, checked when given, no bearing on any figure -----------------


def test_a_course_changes_no_figure() -> None:
    with_course = changed("training.course", "  CNC machining certificate ")
    assert quote(with_course) == quote(REQUEST)
    assert requests.parse_quote_request(with_course).course == "CNC machining certificate"


def test_a_request_without_a_course_reads_as_an_empty_one() -> None:
    assert "course" not in REQUEST["training"]
    assert requests.parse_quote_request(REQUEST).course == ""


def test_a_course_of_200_characters_is_accepted() -> None:
    assert requests.parse_quote_request(changed("training.course", "é" * 200)).course == "é" * 200


BAD_COURSES = [
    ("not text", 12, "must be text", "doit être du texte"),
    ("blank", "   ", "must not be blank", "ne doit pas être vide"),
    (
        "too long",
        "x" * 201,
        "must have at most 200 characters",
        "doit compter au plus 200 caractères",
    ),
    (
        "a control character",
        "CNC\x00machining",
        "must not contain control characters",
        "ne doit pas contenir de caractères de contrôle",
    ),
    (
        "a line break",
        "CNC\nmachining",
        "must not contain control characters",
        "ne doit pas contenir de caractères de contrôle",
    ),
]


@pytest.mark.parametrize(
    ("course", "english", "french"), [c[1:] for c in BAD_COURSES], ids=[c[0] for c in BAD_COURSES]
)
def test_a_bad_course_is_named_in_both_languages(course: Any, english: str, french: str) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        requests.parse_quote_request(changed("training.course", course))
    [problem] = raised.value.problems
    assert problem.line("en") == f"training.course: {english}"
    assert problem.line("fr") == f"training.course: {french}"


def test_the_command_names_a_bad_course_in_french_for_a_french_locale() -> None:
    request = changed("training.course", "x" * 201)
    result = run(["quote", "-"], stdin=json.dumps(request), lang="fr_CA.UTF-8")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip() == "training.course: doit compter au plus 200 caractères"
