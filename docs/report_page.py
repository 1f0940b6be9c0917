"""The guide's pictures of the annual report (docs/guide/outcomes-and-reports.md): the first page of
its PDF, and a plot.

    .venv/bin/python docs/report_page.py

writes docs/img/annual-report-en.png (the PDF's first page drawn by Debian's pdftoppm, from
poppler-utils) and docs/img/annual-report-firm-size.svg (the plot as the page shows it). The
figures are the hand-made Ontario report of the tests (tests/service/outcomes/report_fixtures.py),
not a computed one, so the pictures do not depend on a database. Run by hand, not by the tests.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "img"
MADE = dt.datetime(2026, 11, 29, 9, 0, tzinfo=dt.UTC)  # the docs' other examples' day


def main() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jobgrant.service.test_settings")
    import django

    django.setup()
    from django.utils import translation
    from tests.service.outcomes.report_fixtures import ontario

    from jobgrant.service.outcomes.report.pdf import report_pdf
    from jobgrant.service.outcomes.report.plots import plots

    report = ontario()
    with tempfile.TemporaryDirectory() as work:
        pdf = Path(work) / "report.pdf"
        pdf.write_bytes(report_pdf(report, "en", MADE))
        stem = Path(work) / "page"
        subprocess.run(
            ["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "2", str(pdf), str(stem)],
            check=True,
        )
        pages = sorted(Path(work).glob("page-*.png"))
        (IMAGES / "annual-report-en.png").write_bytes(pages[1].read_bytes())
        (IMAGES / "annual-report-cover-en.png").write_bytes(pages[0].read_bytes())
    with translation.override("en"):
        firm_size = next(p for p in plots(report) if p.id == "firm-size")
    (IMAGES / "annual-report-firm-size.svg").write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n'
        + firm_size.svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1)
        if "xmlns=" not in firm_size.svg.split(">", 1)[0]
        else '<?xml version="1.0" encoding="utf-8"?>\n' + firm_size.svg,
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
