"""How every command treats bad input: one line per problem on stderr, nothing on stdout, exit 2.

Kept apart from the commands so that `quote` and `funding` report problems the same way and
neither imports the other's dependencies.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, NoReturn

import typer

from jobgrant.rules.requests import Problem

BAD_INPUT = 2


def user_language() -> str:
    """French when the user's locale says so (JOBGRANT_LANG, then LANG), else English."""
    lang = os.environ.get("JOBGRANT_LANG") or os.environ.get("LANG", "en")
    return "fr" if lang.lower().startswith("fr") else "en"


def fail(problems: Sequence[Problem | str]) -> NoReturn:
    """Print one line per problem on stderr (a Problem in the user's language) and exit 2."""
    lang = user_language()
    for problem in problems:
        typer.echo(problem.line(lang) if isinstance(problem, Problem) else problem, err=True)
    raise typer.Exit(BAD_INPUT)


def read_json(source: str) -> Any:
    """The JSON in file `source` ('-' for stdin), decimals kept exact; exit 2 if unreadable."""
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        fail([f"{source}: cannot be read ({error.__class__.__name__}: {error})"])
    try:
        return json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}: {error.msg}"
        fail([Problem(source if source != "-" else "(stdin)", "not_json", where)])
