"""The `jobgrant` command line: one module per command group, listed together in `app.py`.

This package imports nothing itself, so that importing one command's module (a test of
`jobgrant.cli.quote`, say) loads only what that command needs.
"""


def main() -> None:
    """The `jobgrant` console script."""
    from jobgrant.cli.app import app

    app()
