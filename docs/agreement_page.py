"""The guide's picture of the agreement PDF (docs/guide/after-approval.md): its first page, in
English and in French.

    .venv/bin/python docs/agreement_page.py

writes docs/img/agreement-pdf-{en,fr}.png. It does what `make run` does (migrate, load the
demonstration data) in a temporary directory, with the clock at 2026-11-29 (the docs' other
examples), then approves an application of the demonstration employer as the demonstration
officers do, renders its agreement with WeasyPrint and draws the first page with pypdfium2.
Run by hand, not by the tests.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "img"
SCALE = 1.6  # about 115 dots per inch: readable in the guide, small on disk


def approved_agreement() -> object:
    from jobgrant.service.accounts.models import User
    from jobgrant.service.api.openapi import example_application
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.models.agreements import AgreementVersion

    employer = User.objects.get(username="demo-employer")
    application = actions.create_application(employer, example_application(dt.date(2026, 11, 29)))
    actions.submit_application(employer, application)
    actions.recommend_application(User.objects.get(username="demo-officer-on-1"), application)
    actions.approve_application(User.objects.get(username="demo-officer-on-2"), application)
    return AgreementVersion.objects.get(agreement__application=application)


def main() -> None:
    var = Path(tempfile.mkdtemp(prefix="jobgrant-agreement-page-"))
    os.environ["JOBGRANT_VAR_DIR"] = str(var)
    os.environ["JOBGRANT_DATABASE_URL"] = f"sqlite:///{var / 'agreement.sqlite3'}"
    os.environ.setdefault("JOBGRANT_ENV", "development")
    import time_machine

    with time_machine.travel(dt.datetime(2026, 11, 29, 15, 0, tzinfo=dt.UTC), tick=True):
        from jobgrant.service.commands import prepare_database

        prepare_database(with_demo=True)
        import pypdfium2  # type: ignore[import-untyped]

        from jobgrant.service.grants.agreements.pdf import agreement_pdf

        version = approved_agreement()
        IMAGES.mkdir(parents=True, exist_ok=True)
        for language in ("en", "fr"):
            document = pypdfium2.PdfDocument(agreement_pdf(version, language))  # type: ignore[arg-type]
            image = document[0].render(scale=SCALE).to_pil()
            target = IMAGES / f"agreement-pdf-{language}.png"
            image.convert("L").save(target, optimize=True)
            sys.stdout.write(f"wrote {target.relative_to(ROOT)}\n")


if __name__ == "__main__":
    main()
