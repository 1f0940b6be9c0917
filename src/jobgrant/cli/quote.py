"""`jobgrant quote`, `policies` and `demo`: the rules kernel for one application.

A quote is the command users run most, and in a new process each time: this module imports
only the rules kernel (no funding model, no Django, no matplotlib), and a test keeps it so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from jobgrant.cli.errors import fail, read_json, user_language
from jobgrant.rules.evaluate import default_library
from jobgrant.rules.parameters import ParameterError
from jobgrant.rules.quote import cycle_collection_paused
from jobgrant.rules.quote import quote as compute_quote
from jobgrant.rules.requests import InvalidRequestError
from jobgrant.rules.textformat import json_text, quote_text

DEMO_REQUEST = Path(__file__).parents[1] / "data" / "demo-quote.json"


def quote(
    file: Annotated[str, typer.Argument(help="The application as JSON; '-' reads stdin.")],
    policy: Annotated[
        str | None, typer.Option(help="A policy name, or a scenario YAML file.")
    ] = None,
    explain: Annotated[bool, typer.Option(help="Add how each figure was computed.")] = False,
    format: Annotated[str, typer.Option(help="json or text.")] = "json",
) -> None:
    """Compute the grant for one application: who pays what, and whether it is eligible."""
    if format not in ("json", "text"):
        fail([f"--format: must be json or text, not {format!r}"])
    with cycle_collection_paused():  # decoding a large request builds many small objects too
        raw = read_json(file)
        try:
            result = compute_quote(raw, policy=policy, explain=explain)
        except InvalidRequestError as error:
            fail(error.problems)
        except ParameterError as error:
            fail([f"--policy: {p}" for p in error.problems])
    if format == "json":
        typer.echo(json_text(result))
    else:
        typer.echo(quote_text(result, user_language()))


def policies() -> None:
    """List the policies and provincial overlays, with their sources."""
    library = default_library()
    for policy in library.policies.values():
        base = f" (on {policy.base})" if policy.base else ""
        typer.echo(f"{policy.name}{base}: {policy.layer.title_en} / {policy.layer.title_fr}")
        for ref in policy.layer.reference:
            typer.echo(f"    source: {ref.title} <{ref.href}>")
        for overlay in policy.overlays.values():
            typer.echo(f"  {overlay.name}: {overlay.title_en} ({len(overlay.entries)} rules)")
            for ref in overlay.reference:
                typer.echo(f"      source: {ref.title} <{ref.href}>")


def demo() -> None:
    """Show a demonstration quote (the service replaces this with the web application)."""
    typer.echo(f"Demonstration quote for {DEMO_REQUEST.name} (cjg-2013, explained):\n")
    result = compute_quote(read_json(str(DEMO_REQUEST)), explain=True)
    typer.echo(quote_text(result, user_language()))
