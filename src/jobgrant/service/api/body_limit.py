"""The API's bound on a request body: past its bound, 413 problem+json, read no further.

Django's own bound (DATA_UPLOAD_MAX_MEMORY_SIZE) answers a bare 400 text/html, and only when the
body is first read; a client of the API needs the problem+json every other refusal is, and the
status that says what to change (RFC 9110 §15.5.14). The largest JSON body the service needs is
an application of a few hundred trainees, well under MAX_API_BODY_BYTES; two operations take
files and have bounds of their own: a claim's receipts (as many files as a claim may have, each
as large as a receipt may be) and the paying system's confirmation file. Nesting depth is
bounded where the body is parsed (api/bodies.py, and Ninja's parser for its schemas): 400,
never a RecursionError.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from jobgrant.service.api.problems import problem_response
from jobgrant.service.errors import ServiceError

MAX_API_BODY_BYTES = 1_048_576  # 1 MiB
MAX_CONFIRMATION_FILE_BYTES = 32 * 1_048_576  # about 500,000 lines of the paying system's file
API_PREFIX = "/api/"
RECEIPTS_PATH = re.compile(r"^/api/v1/claims/[^/]+/receipts$")
CONFIRMATIONS_PATH = re.compile(r"^/api/v1/payment-batches/[^/]+/confirmations$")


def bound_for(path: str) -> int:
    """The largest body the operation at `path` takes."""
    if RECEIPTS_PATH.match(path):
        files, each = settings.JOBGRANT_RECEIPTS_MAX_FILES, settings.JOBGRANT_RECEIPT_MAX_BYTES
        return files * each + MAX_API_BODY_BYTES  # the files, and the multipart framing
    if CONFIRMATIONS_PATH.match(path):
        return MAX_CONFIRMATION_FILE_BYTES
    return MAX_API_BODY_BYTES


def body_too_large(bound: int = MAX_API_BODY_BYTES) -> ServiceError:
    return ServiceError(
        413,
        "BODY_TOO_LARGE",
        f"The request body is larger than {bound} bytes; nothing was saved.",
        f"Le corps de la requête dépasse {bound} octets; rien n'a été enregistré.",
        extra={"max_bytes": bound},
    )


def declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


class ApiBodyLimit:
    """Refuse an API body over the bound before anything reads it (listed in MIDDLEWARE)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(API_PREFIX):
            bound = bound_for(request.path)
            if declared_length(request) > bound:
                return problem_response(body_too_large(bound))
        return self.get_response(request)
