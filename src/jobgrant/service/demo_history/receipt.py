"""The trainer's invoice a demonstration claim carries: a small, valid one-page PDF (objects,
cross-reference table, trailer), so that the claim's receipt is a real file the service checks
by its content and stores with its SHA-256."""

from __future__ import annotations


def invoice_pdf(provider: str, number: int, course: str) -> bytes:
    return one_page_pdf(f"{provider}: invoice {1000 + number}, {course}, paid in full")


def one_page_pdf(text: str) -> bytes:
    """A valid one-page PDF showing one line of `text` (Latin-1)."""
    safe = text.encode("latin-1", "replace").replace(b"(", b"[").replace(b")", b"]")
    stream = b"BT /F1 11 Tf 72 720 Td (" + safe + b") Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for index, content in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % index + content + b"\nendobj\n"
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        table,
    )
    return bytes(out)
