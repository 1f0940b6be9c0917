"""The agreement's PDF, read back with pypdf: the title, the amounts as each language writes
them, the due dates and the hash, in English and in French; nothing fetched from the network."""

from __future__ import annotations

import io
import re

import pypdf
import pytest
from tests.service.grants.agreement_helpers import approved

from jobgrant.service.grants.agreements.pdf import (
    RemoteFetchError,
    agreement_pdf,
    refuse_unless_local,
)
from jobgrant.service.grants.models.agreements import AgreementVersion

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
    version = AgreementVersion.objects.get(agreement=approved())
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
