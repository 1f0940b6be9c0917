"""A receipt's bytes: checked as every uploaded document is (service/uploads.py: the type
decided from the content, never the name; the size bounded; the SHA-256), and offered back as
what they are.
"""

from __future__ import annotations

from django.conf import settings
from django.http import FileResponse

from jobgrant.service.grants.models.claims import Receipt
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
    "NAME_MAX",
    "CheckedFile",
    "checked",
    "detected_type",
    "download_name",
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
