"""/healthz: whether this server can answer, for the reverse proxy and the orchestrator.

200 {"status": "ok"} when the database answers a query, 503 {"status": "unavailable"} when it
does not. Anonymous, never cached, and it says nothing else: no version, no host, no error text
(a health check is reachable by whoever reaches the server).
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_safe

log = logging.getLogger(__name__)


@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        status, code = "ok", 200
    except DatabaseError as error:
        # The reason goes to the log, where the operator looks; the answer stays opaque.
        log.warning("health check: the database does not answer (%s)", type(error).__name__)
        status, code = "unavailable", 503
    response = JsonResponse({"status": status}, status=code)
    add_never_cache_headers(response)
    return response
