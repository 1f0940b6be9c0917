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

from jobgrant.service.grants.agreement_models import AgreementVersion
from jobgrant.service.language import in_language

FONTS = Path(__file__).resolve().parents[1] / "web" / "static" / "vendor" / "gcds-fonts"


class RemoteFetchError(ValueError):
    """The PDF asked for something that is not one of our font files."""


def local_only(url: str, timeout: int = 10, ssl_context: Any = None) -> dict[str, Any]:
    """WeasyPrint's url_fetcher: our font files, nothing else (no network, no other file)."""
    from weasyprint.urls import default_url_fetcher  # type: ignore[import-untyped]

    if not url.startswith("file://") or not Path(
        url.removeprefix("file://")
    ).resolve().is_relative_to(FONTS):
        raise RemoteFetchError(f"the agreement PDF fetches nothing but its fonts, not {url[:80]}")
    return dict(default_url_fetcher(url, timeout=timeout, ssl_context=ssl_context))


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
    document = HTML(string=html, url_fetcher=local_only, base_url=FONTS.as_uri() + "/")
    return bytes(document.write_pdf(pdf_variant="pdf/ua-1") or b"")
