"""Every `jobgrant` command, in the order `jobgrant --help` lists them.

Each command's heavy imports (the funding model, Django, matplotlib) happen inside it, so that
building this app for `jobgrant quote` costs a few modules, not seconds.
"""

from __future__ import annotations

import typer

from jobgrant.cli import funding, quote, replay, report, service, simulate

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="jobgrant: the Canada Job Grant's rules, funding model and service.",
)
app.command()(quote.quote)
app.command()(quote.policies)
app.command()(service.serve)
app.command()(service.migrate)
app.command()(service.worker)
app.command("demo-history")(service.demo_history)
app.command()(quote.demo)
app.command()(funding.funding)
app.command()(replay.replay)
app.add_typer(service.audit, name="audit")
app.add_typer(service.ledger, name="ledger")
app.add_typer(service.sin, name="sin")
app.add_typer(service.otp, name="otp")
app.add_typer(simulate.app, name="simulate")
app.add_typer(report.report, name="report")
