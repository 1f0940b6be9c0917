"""An uploaded document's bytes: their type decided from the content (never the name), their
size bounded and their SHA-256, and how a stored one is offered back. One set of checks for
every file people send: a claim's receipts, an organization's proof of registration.

Only PDF, PNG and JPEG are taken. puremagic reads the file's signature; the leading bytes of
the three formats are also required, so a file whose signature sits anywhere but the start (a
renamed executable with a PDF inside, say) is refused too.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import puremagic
from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db.models.fields.files import FieldFile
from django.http import FileResponse

from jobgrant.service.errors import ServiceError, bad_input, problem

#: content type -> the bytes such a file starts with
ACCEPTED = {
    "application/pdf": b"%PDF-",
    "image/png": b"\x89PNG\r\n\x1a\n",
    "image/jpeg": b"\xff\xd8\xff",
}
EXTENSIONS = {"application/pdf": ".pdf", "image/png": ".png", "image/jpeg": ".jpg"}
NAME_MAX = 200


@dataclass(frozen=True)
class CheckedFile:
    content: bytes
    content_type: str
    sha256: str
    size: int
    name: str


def max_bytes() -> int:
    """The largest file taken (JOBGRANT_RECEIPT_MAX_BYTES, for receipts and proofs alike)."""
    return int(settings.JOBGRANT_RECEIPT_MAX_BYTES)


def detected_type(head: bytes) -> str | None:
    """The accepted content type of bytes starting with `head`, or None."""
    try:
        found = puremagic.from_string(head, mime=True)
    except puremagic.PureError:
        return None
    if found == "image/jpg":
        found = "image/jpeg"
    signature = ACCEPTED.get(found)
    return found if signature is not None and head.startswith(signature) else None


def checked(
    upload: UploadedFile[bytes], field: str = "file", default: str = "receipt"
) -> CheckedFile:
    """The upload read whole, or 422 naming `field` (too large, empty, or not PDF/PNG/JPEG);
    `default`: the name it is offered back under when it came with none."""
    limit = max_bytes()
    if upload.size is not None and upload.size > limit:
        raise _too_large(field, limit)
    content = upload.read(limit + 1)
    if len(content) > limit:
        raise _too_large(field, limit)
    if not content:
        raise bad_input([problem(field, "is empty", "est vide")])
    content_type = detected_type(content[:8192])
    if content_type is None:
        raise bad_input(
            [
                problem(
                    field,
                    "must be a PDF, PNG or JPEG file (decided from its content, not its name)",
                    "doit être un fichier PDF, PNG ou JPEG (d'après son contenu, non son nom)",
                )
            ]
        )
    return CheckedFile(
        content,
        content_type,
        hashlib.sha256(content).hexdigest(),
        len(content),
        download_name(shown_name(upload.name) or default, content_type),
    )


def shown_name(name: str | None) -> str:
    """An uploaded name as shown: its last part, printable, bounded (maybe empty)."""
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    return "".join(c for c in base if c.isprintable() and c not in '"<>').strip()[:NAME_MAX]


def download_name(name: str, content_type: str, default: str = "receipt") -> str:
    """`name` with its last extension replaced by the content type's (`.pdf`, `.png`, `.jpg`):
    a file is offered as what its bytes are, never as what its name said."""
    extension = EXTENSIONS[content_type]
    stem = name.rsplit(".", 1)[0].strip() if "." in name else name.strip()
    return (stem or default)[: NAME_MAX - len(extension)] + extension


def _too_large(field: str, limit: int) -> ServiceError:
    megabytes, rest = divmod(limit, 1024 * 1024)
    shown_en = f"{megabytes} MB" if not rest else f"{limit:,} bytes"
    shown_fr = f"{megabytes} Mo" if not rest else f"{limit:,} octets".replace(",", "\u00a0")
    return bad_input([problem(field, f"is larger than {shown_en}", f"dépasse {shown_fr}")])


def file_response(stored: FieldFile, name: str, content_type: str) -> FileResponse:
    """Stored bytes as a download: the content type found at upload (never one guessed from
    the name), `attachment`, nosniff, and never cached."""
    response = FileResponse(
        stored.open("rb"),
        as_attachment=True,
        filename=download_name(name, content_type),
        content_type=content_type,
    )
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, no-store"
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return response
