"""Idempotency-Key on every POST: a retry gets the first response, byte for byte.

The key is claimed (a unique row) in the same transaction as the work, and the response is
stored in that transaction too: either both are committed or neither is. A concurrent duplicate
waits on the unique index until the first commits, then replays its response. The same key with
a different body answers 422.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.db import IntegrityError, connection, transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from jobgrant.service.accounts.models import User
from jobgrant.service.api.problems import problem_response
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.applications import IdempotencyKey

MAX_KEY_LENGTH = 200
_TABLE = IdempotencyKey._meta.db_table
# Every POST claims and answers its key: two plain statements, not two model saves.
_CLAIM_SQL = (
    f'INSERT INTO "{_TABLE}" ("user_id", "key", "request_hash", "status", "body", "content_type",'
    ' "created_at") VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING "id"'
)
_ANSWER_SQL = (
    f'UPDATE "{_TABLE}" SET "status" = %s, "body" = %s, "content_type" = %s WHERE "id" = %s'
)


def request_digest(request: HttpRequest) -> str:
    digest = hashlib.sha256()
    for part in (request.method or "", request.path, request.body):
        digest.update(part if isinstance(part, bytes) else part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def idempotent(
    request: HttpRequest,
    user: User,
    work: Callable[[], HttpResponse],
    digest: Callable[[], str] | None = None,
) -> HttpResponse:
    """Run `work` once per (user, Idempotency-Key); replay its response for retries. `digest`
    fingerprints the request when its raw body must not be read (a multipart upload)."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return _answer(work)
    if not key.strip() or len(key) > MAX_KEY_LENGTH:
        return problem_response(
            ServiceError(
                422,
                "INVALID_IDEMPOTENCY_KEY",
                f"Idempotency-Key must be 1 to {MAX_KEY_LENGTH} characters.",
                f"Idempotency-Key doit compter de 1 à {MAX_KEY_LENGTH} caractères.",
            )
        )
    fingerprint = digest() if digest is not None else request_digest(request)
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(_CLAIM_SQL, [user.pk, key, fingerprint, 0, "", "", timezone.now()])
                (claim,) = cursor.fetchone()
            response = _answer(work)
            with connection.cursor() as cursor:
                cursor.execute(
                    _ANSWER_SQL,
                    [
                        response.status_code,
                        response.content.decode(),
                        response["Content-Type"],
                        claim,
                    ],
                )
            return response
    except IntegrityError:
        first = IdempotencyKey.objects.filter(user=user, key=key).first()
        if first is None:
            raise
        return _replay(first, fingerprint)


def _answer(work: Callable[[], HttpResponse]) -> HttpResponse:
    try:
        return work()
    except ServiceError as error:
        return problem_response(error)


def _replay(first: IdempotencyKey, digest: str) -> HttpResponse:
    if first.request_hash != digest:
        return problem_response(
            ServiceError(
                422,
                "IDEMPOTENCY_KEY_REUSED",
                "This Idempotency-Key was used with a different request.",
                "Cette clé Idempotency-Key a servi pour une autre requête.",
            )
        )
    response = HttpResponse(first.body, status=first.status, content_type=first.content_type)
    response["Idempotent-Replayed"] = "true"
    return response
