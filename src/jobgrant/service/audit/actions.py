"""The audit trail's own actions: every refusal recorded, whatever its status (a 403, a 404, a
409 or a 422 alike), in a transaction of its own.

A refused action writes nothing itself; what the trail keeps is who asked, for what, and the
refusal's code. A 404 is recorded too: to an outsider it says "no such file" (it learns nothing),
but an auditor sees that someone asked for a file they may not read.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from django.db import transaction

from jobgrant.service.audit.chain import record
from jobgrant.service.errors import ServiceError

P = ParamSpec("P")
R = TypeVar("R")


def audited_refusals(action: Callable[P, R]) -> Callable[P, R]:
    """Record every refusal `action(user, target, ...)` raises, then let it propagate.

    `target`, the second argument, is the object acted on (a model instance) or an
    application's id."""
    return audited_refusals_of("application")(action)


def audited_refusals_of(kind: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """audited_refusals for an action whose target, when given by id, is a `kind` (a form
    draft, say), not an application."""

    def decorate(action: Callable[P, R]) -> Callable[P, R]:
        @wraps(action)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return action(*args, **kwargs)
            except ServiceError as error:
                if not error.audited:  # an inner action already recorded it
                    actor = str(getattr(args[0], "username", ""))
                    target = args[1] if len(args) > 1 else None
                    found_kind, target_id = _kind_and_id(target, kind)
                    record_refusal(
                        actor, action.__name__, found_kind, target_id, error.code, error.status
                    )
                    error.audited = True
                raise

        return wrapper

    return decorate


def _kind_and_id(target: object, kind: str) -> tuple[str, object]:
    """What was asked for: a model instance, an id of a `kind`, or nothing we can name (the
    body of a new application, say)."""
    meta = getattr(target, "_meta", None)
    if meta is not None:
        return str(meta.model_name), getattr(target, "pk", "")
    return kind, target if isinstance(target, int) else ""


def record_refusal(
    actor: str, action: str, object_type: str, object_id: object, code: str, status: int
) -> None:
    """Append `refused.<action>` for `actor`: what was asked for, the refusal's code and status."""
    with transaction.atomic():
        record(actor, f"refused.{action}", object_type, object_id, {"code": code, "status": status})
