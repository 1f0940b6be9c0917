"""A receipt's bytes: checked as every uploaded document is (service/uploads.py: the type
decided from the content, never the name; the size bounded; the SHA-256), and offered back as
what they are. Its invoice number (the training provider's invoice or receipt number, optional)
is checked here too, and kept with its key: the form in which two numbers are compared (the
risk flag "Receipt used in another file").
"""

from __future__ import annotations

import re

from django.conf import settings
from django.http import FileResponse

from jobgrant.service.errors import bad_input, problem
from jobgrant.service.grants.models.claims import INVOICE_NUMBER_MAX, Receipt
from jobgrant.service.uploads import (
    ACCEPTED,
    EXTENSIONS,
    NAME_MAX,
    CheckedFile,
    checked,
    detected_type,
    download_name,
    file_response,
    max_bytes,
    shown_name,
)

__all__ = [
    "ACCEPTED",
    "EXTENSIONS",
    "INVOICE_NUMBER_MAX",
    "INVOICE_NUMBER_PATTERN",
    "NAME_MAX",
    "CheckedFile",
    "checked",
    "detected_type",
    "download_name",
    "invoice_key",
    "invoice_number",
    "max_bytes",
    "max_files",
    "receipt_response",
    "shown_name",
]


def max_files() -> int:
    return int(settings.JOBGRANT_RECEIPTS_MAX_FILES)


def receipt_response(receipt: Receipt) -> FileResponse:
    """The stored bytes as a download (uploads.file_response)."""
    return file_response(receipt.file, receipt.original_name, receipt.content_type)


#: What the API's schema says of an invoice number's characters: no control character (those
#: refused are a subset: every character `str.isprintable` refuses; see `invoice_number`).
INVOICE_NUMBER_PATTERN = r"^[^\u0000-\u001F\u007F-\u009F]*$"
#: What two invoice numbers are compared without: spaces of every kind and dashes of every kind.
IGNORED = re.compile(r"[\s\-\u2010-\u2015\u2212]+")
#: Zeros leading a run of digits ("INV-000123" is "INV-123"), a lone zero kept.
LEADING_ZEROS = re.compile(r"(?<![0-9])0+(?=[0-9])")


def invoice_key(number: str) -> str:
    """An invoice number as it is compared: case-folded, the zeros leading each group of digits
    dropped, then its spaces and dashes ("F-2027-0042", "f 2027-42" and "F202742" are one
    number)."""
    return IGNORED.sub("", LEADING_ZEROS.sub("", number.casefold()))


def invoice_number(value: object, path: str = "invoice_number") -> tuple[str, str]:
    """The invoice number given (optional: None or blank is none), trimmed, and its key; refused
    (422, naming the field) unless it is text of at most INVOICE_NUMBER_MAX characters, all
    printable (spaces allowed; no tab, line break or control character), holding a letter or a
    digit. The length and the characters are those of what was sent, before trimming: what the
    API's schema says (INVOICE_NUMBER_PATTERN)."""
    if value is None:
        return "", ""
    if not isinstance(value, str):
        raise _bad(path, "must be text", "doit être du texte")
    if len(value) > INVOICE_NUMBER_MAX:
        raise _bad(
            path,
            f"must be at most {INVOICE_NUMBER_MAX} characters",
            f"doit compter au plus {INVOICE_NUMBER_MAX} caractères",
        )
    if not value.isprintable():
        raise _bad(
            path,
            "must hold only printable characters (no tab, line break or control character)",
            "ne doit contenir que des caractères imprimables (ni tabulation, ni saut de ligne, "
            "ni caractère de contrôle)",
        )
    number = value.strip()
    if not number:
        return "", ""
    key = invoice_key(number)
    if not any(character.isalnum() for character in key):
        raise _bad(path, "must hold a letter or a digit", "doit contenir une lettre ou un chiffre")
    return number, key


def _bad(path: str, en: str, fr: str) -> Exception:
    return bad_input([problem(path, f"(invoice number) {en}", f"(numéro de facture) {fr}")])
