"""An agreement version as a PDF, in English or in French (WeasyPrint).

The PDF prints the version's stored document (agreement_document), so it says exactly what was
hashed and accepted. Its fonts are GC Design System's Noto Sans and Lato, copied from npm into
the web app's static files at set-up (web/vendor.py) and read from disk by file URL; the URL
fetcher refuses every other address, so rendering never reaches the network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import mark_safe

from jobgrant.service.grants.models.agreements import AgreementVersion
from jobgrant.service.language import in_language

FONTS = Path(__file__).resolve().parents[2] / "web" / "static" / "vendor" / "gcds-fonts"


class RemoteFetchError(ValueError):
    """A PDF (the agreement, the annual report) asked for something that is not one of our font
    files."""


def refuse_unless_local(url: str) -> str:
    """`url` if it names one of our font files; RemoteFetchError for anything else."""
    path = Path(url.removeprefix("file://").split("?")[0])
    if not url.startswith("file://") or not path.resolve().is_relative_to(FONTS):
        raise RemoteFetchError(f"our PDFs fetch nothing but their fonts, not {url[:80]}")
    return url


def local_fetcher() -> Any:
    """WeasyPrint's fetcher, for file URLs under FONTS only; a refusal stops the rendering."""
    from weasyprint.urls import URLFetcher  # type: ignore[import-untyped]

    class LocalFonts(URLFetcher):  # type: ignore[misc]
        def fetch(self, url: str, headers: Any = None) -> Any:
            return super().fetch(refuse_unless_local(url), headers)

    return LocalFonts(allowed_protocols={"file"}, fail_on_errors=True)


def agreement_pdf(version: AgreementVersion, language: str) -> bytes:
    """The PDF of `version` in `language` ("en" or "fr")."""
    from weasyprint import HTML  # type: ignore[import-untyped]

    with translation.override(language):
        content = in_language(en=version.content_en, fr=version.content_fr)
        html = render_to_string(
            "grants/agreement/pdf.html",
            {
                "language": language,
                "document": mark_safe(content),
                "fonts": FONTS.as_uri(),
                "sha256": version.content_sha256,
                "number": version.agreement.application_id,
                "version": version.number,
            },
        )
    document = HTML(string=html, url_fetcher=local_fetcher(), base_url=FONTS.as_uri() + "/")
    return bytes(document.write_pdf(pdf_variant="pdf/ua-1") or b"")
