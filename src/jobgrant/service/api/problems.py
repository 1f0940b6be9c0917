"""Errors as application/problem+json (RFC 9457), naming the field, in both languages."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpResponse

from jobgrant.service.errors import ServiceError

PROBLEM_JSON = "application/problem+json"


def problem_response(error: ServiceError) -> HttpResponse:
    body: dict[str, Any] = {
        "type": f"https://jobgrant.example/problems/{error.code.lower().replace('_', '-')}",
        "title": error.code,
        "status": error.status,
        "detail": error.message_en,
        "detail_fr": error.message_fr,
        "code": error.code,
    }
    if error.problems:
        body["errors"] = error.problems
    body.update(error.extra)
    response = HttpResponse(
        json.dumps(body, ensure_ascii=False), status=error.status, content_type=PROBLEM_JSON
    )
    if "retry_after" in error.extra:  # a lockout or a rate limit: when to try again (RFC 9110)
        response["Retry-After"] = str(error.extra["retry_after"])
    response.refusal = error  # type: ignore[attr-defined]  # for api/refusal_audit.py
    return response


def json_response(data: Any, status: int = 200) -> HttpResponse:
    return HttpResponse(
        json.dumps(data, ensure_ascii=False), status=status, content_type="application/json"
    )
