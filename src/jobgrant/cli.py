"""The `jobgrant` command: quote, policies, demo (and, later, funding, serve, audit)."""

from __future__ import annotations

import json
import os
import sys
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any

import typer

from jobgrant.funding_cli import funding
from jobgrant.rules.evaluate import default_library
from jobgrant.rules.parameters import ParameterError
from jobgrant.rules.quote import cycle_collection_paused
from jobgrant.rules.quote import quote as compute_quote
from jobgrant.rules.requests import InvalidRequestError, Problem
from jobgrant.rules.textformat import json_text, quote_text
from jobgrant.service import commands as serving  # imports no Django until it serves

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="jobgrant: the Canada Job Grant's rules, funding model and service.",
)
BAD_INPUT = 2
DEMO_REQUEST = Path(__file__).parent / "data" / "demo-quote.json"


def user_language() -> str:
    """French when the user's locale says so (JOBGRANT_LANG, then LANG), else English."""
    lang = os.environ.get("JOBGRANT_LANG") or os.environ.get("LANG", "en")
    return "fr" if lang.lower().startswith("fr") else "en"


def fail(problems: list[Problem] | list[str]) -> None:
    """Print one line per problem on stderr, nothing on stdout, and exit 2."""
    lang = user_language()
    for problem in problems:
        typer.echo(problem.line(lang) if isinstance(problem, Problem) else problem, err=True)
    raise typer.Exit(BAD_INPUT)


def read_json(source: str) -> Any:
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        fail([f"{source}: cannot be read ({error.__class__.__name__}: {error})"])
    try:
        return json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}: {error.msg}"
        fail([Problem(source if source != "-" else "(stdin)", "not_json", where)])


@app.command()
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


@app.command()
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


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option(help="gunicorn worker processes.")] = serving.WORKERS,
    threads: Annotated[int, typer.Option(help="Threads per worker process.")] = serving.THREADS,
) -> None:
    """Migrate the database, load the demonstration data and serve the application."""
    from jobgrant.service.commands import serve as serve_application

    serve_application(host, port, workers, threads)


audit = typer.Typer(help="The tamper-evident audit trail.", no_args_is_help=True)
app.add_typer(audit, name="audit")


@audit.command("verify")
def audit_verify() -> None:
    """Check the whole hash chain; name the first broken entry (exit 1) if any."""
    from jobgrant.service.commands import verify_audit

    raise typer.Exit(verify_audit())


@app.command()
def demo() -> None:
    """Show a demonstration quote (the service replaces this with the web application)."""
    typer.echo(f"Demonstration quote for {DEMO_REQUEST.name} (cjg-2013, explained):\n")
    result = compute_quote(read_json(str(DEMO_REQUEST)), explain=True)
    typer.echo(quote_text(result, user_language()))


app.command("funding")(funding)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
