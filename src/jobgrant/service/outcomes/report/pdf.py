"""The annual report as a PDF, in English or in French (WeasyPrint), as the agreement's PDF is
made (ADR 0009): GC Design System's fonts read from disk, a URL fetcher that refuses every
other address, PDF/UA. The PDF shows the same ReportView as the page, and the same plots."""

from __future__ import annotations

import datetime as dt
import logging

from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import mark_safe

from jobgrant.service.grants.agreements.pdf import FONTS, local_fetcher
from jobgrant.service.outcomes.report.content import view
from jobgrant.service.outcomes.report.plots import plots
from jobgrant.service.outcomes.tables import KpiReport


class _SvgStyleNoise(logging.Filter):
    """WeasyPrint's CSS parser warns about every SVG presentation property in matplotlib's
    style attributes ("Ignored `fill: ...`, unknown property") although its SVG renderer draws
    them; those lines would bury the command's own. Every other warning passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Ignored `")


def report_pdf(report: KpiReport, language: str, made: dt.datetime) -> bytes:
    """The PDF of `report` in `language` ("en" or "fr"), made at `made`."""
    from weasyprint import HTML  # type: ignore[import-untyped]

    with translation.override(language):
        html = render_to_string(
            "web/reports/annual_pdf.html",
            {
                "language": language,
                "report": view(report, made),
                "plots": [(p, mark_safe(p.svg)) for p in plots(report)],
                "fonts": FONTS.as_uri(),
                "printed": True,  # wide tables in parts that fit the page (TableView.parts)
            },
        )
    noise = _SvgStyleNoise()
    logger = logging.getLogger("weasyprint")
    logger.addFilter(noise)
    try:
        document = HTML(string=html, url_fetcher=local_fetcher(), base_url=FONTS.as_uri() + "/")
        return bytes(document.write_pdf(pdf_variant="pdf/ua-1") or b"")
    finally:
        logger.removeFilter(noise)
