"""A quote as a table people can read in a terminal (English or French)."""

from __future__ import annotations

import json
from typing import Any

from jobgrant.rules.money import format_money, parse_amount

COLUMNS = ("eligible_cost", "federal", "provincial", "employer", "in_kind")
HEADINGS = {
    "en": ("Eligible cost", "Federal", "Provincial", "Employer", "of which in kind"),
    "fr": ("Coût admissible", "Fédéral", "Provincial", "Employeur", "dont en nature"),
}
LABELS = {
    "en": {
        "eligible": "Eligible",
        "not_eligible": "Not eligible",
        "total": "Total",
        "trainee": "Trainee",
        "employer": "Employer",
        "how": "How each figure was computed",
    },
    "fr": {
        "eligible": "Admissible",
        "not_eligible": "Non admissible",
        "total": "Total",
        "trainee": "Participant",
        "employer": "Employeur",
        "how": "Calcul de chaque montant",
    },
}


def quote_text(result: dict[str, Any], lang: str) -> str:
    words = LABELS[lang]
    status = words["eligible"] if result["eligible"] else words["not_eligible"]
    lines = [
        f"{result['policy']} · {result['jurisdiction']} · {result['delivery']} · "
        f"{result['fiscal_year']} · {status}",
    ]
    lines += [f"  ✗ {r['code']}: {r[f'message_{lang}']}" for r in result["reasons"]]
    rows = [
        (f"{words['trainee']} {t['index']} ({t['employer_id']})", t) for t in result["trainees"]
    ]
    if len(result["employers"]) > 1:
        rows += [(f"{words['employer']} {e['id']}", e) for e in result["employers"]]
    rows.append((words["total"], result["totals"]))
    lines += ["", *_table(rows, lang)]
    if "explanation" in result:
        lines += ["", words["how"] + ":"]
        lines += _explanation(result["explanation"])
    return "\n".join(lines)


def _table(rows: list[tuple[str, dict[str, str]]], lang: str) -> list[str]:
    cells = [
        [label, *(format_money(parse_amount(r[c]), lang) for c in COLUMNS)] for label, r in rows
    ]
    header = ["", *HEADINGS[lang]]
    widths = [max(len(row[i]) for row in [header, *cells]) for i in range(len(header))]

    def line(row: list[str]) -> str:
        first = row[0].ljust(widths[0])
        return "  ".join([first, *(c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True))])

    return [line(header), *(line(row) for row in cells)]


def _explanation(steps: list[dict[str, Any]]) -> list[str]:
    lines = []
    for step in steps:
        lines.append(f"  {step['target']} = {step['value']}")
        lines.append(f"      {step['formula']}")
        for p in step["parameters"]:
            source = p["reference"][0]["title"] if p["reference"] else ""
            lines.append(
                f"      · {p['name']} = {p['value']} since {p['effective_date']} "
                f"[{p['layer']}] — {source}"
            )
    return lines


def json_text(value: object, depth: int = 0) -> str:
    """JSON indented by two spaces, except that an object of plain values inside a list (a row:
    a trainee, an employer, a reason) takes one line. Python's C encoder writes those rows; with
    `indent` set it would use its pure-Python encoder for everything, five times slower on a quote
    of 10,000 trainees."""
    inner = "  " * (depth + 1)
    if isinstance(value, dict) and value:
        items = [
            f"{inner}{_json(key)}: {json_text(item, depth + 1)}" for key, item in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    if isinstance(value, list) and value:
        rows = [
            inner + (_json(item) if _is_row(item) else json_text(item, depth + 1)) for item in value
        ]
        return "[\n" + ",\n".join(rows) + "\n" + "  " * depth + "]"
    return _json(value)


_PLAIN = frozenset((str, int, float, bool, type(None)))


def _is_row(value: object) -> bool:
    return type(value) is dict and all(type(v) in _PLAIN for v in value.values())


_ENCODER = json.JSONEncoder(ensure_ascii=False)  # one encoder: json.dumps makes one per call


def _json(value: object) -> str:
    return _ENCODER.encode(value)
