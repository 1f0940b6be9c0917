"""The API's bound on a request body: past MAX_API_BODY_BYTES, 413 problem+json, read no further.

Django's own bound (DATA_UPLOAD_MAX_MEMORY_SIZE) answers a bare 400 text/html, and only when the
body is first read; a client of the API needs the problem+json every other refusal is, and the
status that says what to change (RFC 9110 §15.5.14). The largest body the service needs is an
application of a few hundred trainees, well under the bound. Nesting depth is bounded where the
body is parsed (api/bodies.py, and Ninja's parser for its schemas): 400, never a RecursionError.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from jobgrant.service.api.problems import problem_response
from jobgrant.service.errors import ServiceError

MAX_API_BODY_BYTES = 1_048_576  # 1 MiB
API_PREFIX = "/api/"


def body_too_large() -> ServiceError:
    return ServiceError(
        413,
        "BODY_TOO_LARGE",
        f"The request body is larger than {MAX_API_BODY_BYTES} bytes; nothing was saved.",
        f"Le corps de la requête dépasse {MAX_API_BODY_BYTES} octets; rien n'a été enregistré.",
        extra={"max_bytes": MAX_API_BODY_BYTES},
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
        if request.path.startswith(API_PREFIX) and declared_length(request) > MAX_API_BODY_BYTES:
            return problem_response(body_too_large())
        return self.get_response(request)
