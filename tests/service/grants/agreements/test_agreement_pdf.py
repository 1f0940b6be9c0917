"""The agreement's PDF, read back with pypdf: the title, the amounts as each language writes
them, the due dates and the hash, in English and in French; nothing fetched from the network."""

from __future__ import annotations

import io
import re
from typing import Any

import pypdf
import pytest
from django.utils import translation
from tests.personas import EMPLOYER
from tests.service.grants.agreement_helpers import approved

from jobgrant.service.grants.agreements.actions import version_read
from jobgrant.service.grants.agreements.html import _words
from jobgrant.service.grants.agreements.pdf import (
    RemoteFetchError,
    agreement_pdf,
    refuse_unless_local,
)

pytestmark = pytest.mark.django_db
EXPECTED = {
    "en": [
        "Canada Job Grant agreement for application",
        "$15,000.00",
        "$5,000.00",
        "January 6, 2027",  # participants by: start - 5 days
        "February 10, 2027",  # first claim by: start + 30 days
        "April 25, 2027",  # completion report by: end + 30 days
        "Schedule of approved costs",
    ],
    "fr": [
        "Entente de Subvention canadienne pour l'emploi pour la demande",
        "15 000,00 $",
        "5 000,00 $",
        "6 janvier 2027",
        "10 février 2027",
        "25 avril 2027",
        "Tableau des coûts approuvés",
    ],
}


def text_of(pdf: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    text = "\n".join(page.extract_text() for page in reader.pages)
    return re.sub(r"[ \u00a0\u202f]+", " ", text)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_pdf_says_the_title_amounts_dates_and_hash_in_its_language(demo, language) -> None:
    agreement = approved()
    version = version_read(EMPLOYER.get(), agreement)  # its document rendered on this first read
    text = text_of(agreement_pdf(version, language))
    flat = " ".join(text.split())
    for expected in EXPECTED[language]:
        assert expected in flat, (expected, flat[:2000])
    assert version.content_sha256 in re.sub(r"\s+", "", text)
    fonts = {
        str(font.get_object()["/BaseFont"])
        for page in pypdf.PdfReader(io.BytesIO(agreement_pdf(version, language))).pages
        for font in page["/Resources"]["/Font"].values()
    }
    assert any("Noto-Sans" in name for name in fonts), fonts  # the shipped font, embedded
    other = "fr" if language == "en" else "en"
    assert EXPECTED[other][-1] not in flat  # one language per document


def test_the_pdf_fetches_nothing_but_its_own_fonts() -> None:
    for address in ("https://fonts.googleapis.com/css", "file:///etc/passwd", "http://127.0.0.1/"):
        with pytest.raises(RemoteFetchError):
            refuse_unless_local(address)


#: What heads what follows it (the document's section headings, tables' captions, terms).
HEADS = (
    *("parties", "training", "costs", "dates_heading", "terms"),
    *("costs_caption", "shares_caption"),
    *("course", "provider", "where", "dates", "hours"),
    *("accept_by", "participants_by", "first_claim_by", "completion_report_by"),
)
#: Below this height (points from the page's foot) is the footer: the fingerprint and the page
#: number, printed on every page.
FOOTER_TOP = 60


def last_lines(pdf: bytes) -> list[str]:
    """The lowest line of text above the footer on each page but the last (pypdf reads the
    text in drawing order, not in reading order: the positions say which line is lowest)."""
    lowest = []
    pages = pypdf.PdfReader(io.BytesIO(pdf)).pages
    for page in pages[:-1]:
        lines: dict[float, str] = {}

        def seen(text: str, cm: Any, tm: Any, font: Any, size: Any, lines: Any = lines) -> None:
            y = round(cm[5] + tm[5] * cm[3], 0) if cm else round(tm[5], 0)
            if text.strip() and y > FOOTER_TOP:
                lines[y] = lines.get(y, "") + text

        page.extract_text(visitor_text=seen)
        lowest.append(" ".join(lines[min(lines)].split()))
    return lowest


def _trainees(count: int) -> list[dict[str, Any]]:
    costs = {
        "tuition": "1000.00",
        "student_fees": "0.00",
        "materials": "10.00",
        "exam_fees": "5.00",
    }
    return [{"employer_id": "acme", "status": "existing-employee", "costs": costs}] * count


def test_no_heading_caption_or_term_is_left_alone_at_a_pages_foot(demo) -> None:
    """Files of 1 to 8 trainees move every heading, table caption and term (dt) across the
    pages' feet, in both languages: none of them is ever the last line of a page, away from
    what it heads."""
    heads = {}
    for language in ("en", "fr"):
        with translation.override(language):
            words = _words(language)
        heads[language] = {words[key] for key in HEADS}
    found = []
    for count in range(1, 9):
        version = version_read(EMPLOYER.get(), approved(trainees=_trainees(count)))
        for language, alone in heads.items():
            for line in last_lines(agreement_pdf(version, language)):
                if any(line == head or line.endswith(" " + head) for head in alone):
                    found.append(f"{count} trainee(s), {language}: {line!r}")
    assert not found, f"left alone at a page's foot: {found}"
