"""The versioned questions of the completion report and the follow-ups (`outcome_questions/`,
one YAML file per effective date, in English and French). A file approved on or after a
version's effective date is asked that version's questions."""

from __future__ import annotations

import datetime as dt
from functools import cache
from pathlib import Path
from typing import Any

import yaml

QUESTIONS_DIR = Path(__file__).parent / "questions"


@cache
def versions() -> dict[str, dict[str, Any]]:
    """Every question set by its effective date (ISO), oldest first."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(QUESTIONS_DIR.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        found[str(data["effective"])] = data
    return found


def version_for(approved_on: dt.date) -> str:
    """The version in force on the approval date (the oldest one for a file approved before
    every version, which does not happen with the shipped data)."""
    names = list(versions())
    in_force = [name for name in names if dt.date.fromisoformat(name) <= approved_on]
    return in_force[-1] if in_force else names[0]


def questions(version: str) -> dict[str, Any]:
    return versions()[version]


def wording(version: str, section: str, key: str | int, language: str) -> str:
    """One question's (or scale point's) text in `language` (en or fr)."""
    entry = questions(version)[section]
    text = entry[key] if key in entry else entry[str(key)]
    return str(text.get(language, text["en"]))
