"""/healthz and /readyz: whether this server is alive, and whether it should be sent requests,
for the reverse proxy, the load balancer and the orchestrator.

/healthz (liveness): 200 {"status": "ok"} when the database answers a query, 503
{"status": "unavailable"} when it does not.
/readyz (readiness): 200 {"status": "ready"} when the database answers, has applied every
migration of this code, and the static files this server links are collected; 503
{"status": "not ready"} otherwise.

Both are anonymous, never cached, and say nothing else: no version, no host, no error text, no
migration name (a health check is reachable by whoever reaches the server). The reason of a 503
goes to the server's log.
"""

from __future__ import annotations

import functools
import logging

from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_safe

log = logging.getLogger(__name__)


@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    try:
        _database_answers()
        status, code = "ok", 200
    except DatabaseError as error:
        # The reason goes to the log, where the operator looks; the answer stays opaque.
        log.warning("health check: the database does not answer (%s)", type(error).__name__)
        status, code = "unavailable", 503
    return _answer(status, code)


@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    try:
        _database_answers()
        behind = unapplied_migrations()
    except DatabaseError as error:
        log.warning("readiness: the database does not answer (%s)", type(error).__name__)
        return _answer("not ready", 503)
    if behind:
        named = ", ".join(f"{app}.{name}" for app, name in behind[:5])
        log.warning("readiness: %d migrations not applied (%s)", len(behind), named)
        return _answer("not ready", 503)
    from jobgrant.service.static_files import ready as static_ready

    if not static_ready():
        log.warning("readiness: the static files are not collected for this release")
        return _answer("not ready", 503)
    return _answer("ready", 200)


def _answer(status: str, code: int) -> JsonResponse:
    response = JsonResponse({"status": status}, status=code)
    add_never_cache_headers(response)
    return response


def _database_answers() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


Key = tuple[str, str]  # (app label, migration name)


@functools.cache
def _code_migrations() -> tuple[frozenset[Key], tuple[tuple[Key, tuple[Key, ...]], ...]]:
    """The code's migrations (read once: the code does not change while it runs), and each
    squashed one with the migrations it replaces."""
    from django.db.migrations.loader import MigrationLoader

    loader = MigrationLoader(None, ignore_no_migrations=True)
    squashed = tuple(
        (key, tuple((str(app), str(name)) for app, name in migration.replaces))
        for key, migration in loader.replacements.items()
    )
    return frozenset(loader.graph.nodes), squashed


def unapplied_migrations() -> list[Key]:
    """The code's migrations the database has not applied, in order (one query)."""
    from django.db.migrations.recorder import MigrationRecorder

    needed, squashed = _code_migrations()
    applied = set(MigrationRecorder(connection).applied_migrations())
    for key, replaced in squashed:
        if all(part in applied for part in replaced):
            applied.add(key)
    return sorted(needed - applied)
