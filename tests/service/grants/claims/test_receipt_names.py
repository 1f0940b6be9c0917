"""A receipt is named by the type found in its content, never by the extension it was uploaded
with: stored, listed and downloaded as `<name>.pdf`, `.png` or `.jpg` (claims/receipts.py)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from jobgrant.service.grants.claims.receipts import checked, download_name

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 17


@pytest.mark.parametrize(
    ("uploaded", "content", "named", "kind"),
    [
        ("invoice.html", PDF, "invoice.pdf", "application/pdf"),
        ("scan.pdf", PNG, "scan.png", "image/png"),
        ("receipt.svg", PNG, "receipt.png", "image/png"),
        ("no extension", PDF, "no extension.pdf", "application/pdf"),
        ("C:\\Users\\me\\facture no. 3.PDF", PDF, "facture no. 3.pdf", "application/pdf"),
        (".html", PDF, "receipt.pdf", "application/pdf"),
    ],
)
def test_an_upload_is_named_by_the_type_of_its_content(
    uploaded: str, content: bytes, named: str, kind: str
) -> None:
    found = checked(SimpleUploadedFile(uploaded, content))
    assert (found.name, found.content_type) == (named, kind)


def test_a_receipt_stored_with_another_extension_is_downloaded_under_its_type() -> None:
    assert download_name("payment.html", "application/pdf") == "payment.pdf"
    assert download_name("photo.jpeg", "image/jpeg") == "photo.jpg"
