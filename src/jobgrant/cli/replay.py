"""`jobgrant replay`: a closed intake's stored applications run through the rules kernel under
another policy, compared with what was decided (service/outcomes/replay.py).

Bad input exits 2 with one line naming the option, in the user's language (JOBGRANT_LANG or
LANG, or --lang), and writes nothing. Django is imported inside the command, so listing the
commands costs `jobgrant quote` nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from jobgrant.cli.errors import fail, user_language


def replay(
    intake: Annotated[int, typer.Option(help="The closed intake's number.")],
    policy: Annotated[str, typer.Option(help="A policy name, or a scenario YAML file.")],
    csv: Annotated[
        Path | None, typer.Option(help="Write one row per application to this CSV file.")
    ] = None,
    plot: Annotated[
        Path | None, typer.Option(help="Write the plot of the money funded to this SVG file.")
    ] = None,
    lang: Annotated[str | None, typer.Option(help="en or fr (default: the user's locale).")] = None,
) -> None:
    """Replay a closed intake under another policy: who would have been funded, the money by
    funder, the mix by firm size, stream and region, the date the budget ran out."""
    language = lang or user_language()
    if language not in ("en", "fr"):
        fail([f"--lang: must be en or fr, not {language!r}"])
    for option, path in (("--csv", csv), ("--plot", plot)):
        if path is not None and not path.parent.is_dir():
            english = f"{option}: the folder {path.parent} does not exist"
            french = f"{option} : le dossier {path.parent} n'existe pas"
            fail([french if language == "fr" else english])
    from jobgrant.service.commands import setup_django

    setup_django()
    from jobgrant.service.errors import ServiceError
    from jobgrant.service.outcomes import replay_output
    from jobgrant.service.outcomes.replay import replay as run

    try:
        result = run(intake, policy)
    except ServiceError as error:
        option = "--intake" if error.code in ("NO_SUCH_INTAKE", "INTAKE_NOT_CLOSED") else "--policy"
        message = error.message_fr if language == "fr" else error.message_en
        fail([f"{option} : {message}" if language == "fr" else f"{option}: {message}"])
    typer.echo(replay_output.text(result, language), nl=False)
    if csv is not None:
        csv.write_text(replay_output.csv_text(result, language), encoding="utf-8")
    if plot is not None:
        plot.write_bytes(replay_output.svg(result, language))
