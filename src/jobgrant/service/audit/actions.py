"""The audit trail's own actions: every refusal recorded, whatever its status, in a transaction
of its own.

A refused action writes nothing itself; what the trail keeps is who asked, for what, and the
refusal's code and status. A 404 is recorded too: to an outsider it says "no such file" (it
learns nothing), but an auditor sees that someone asked for a file they may not read.

There is one way an action's refusal is audited: the `audited_refusals_of` decorator. The
HTTP-level nets (the API's middleware, the page-level role gate and the 404 page) record the
refusals that happen before any action runs. All of them write through `record_refusal`, the one
place that decides what a refusal's entry holds and that no refusal is recorded twice.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from django.db import transaction

from jobgrant.service.audit.chain import record
from jobgrant.service.errors import ServiceError
from jobgrant.service.observability.metrics import REFUSALS

P = ParamSpec("P")
R = TypeVar("R")


def audited_refusals_of(
    kind: str, *, action: str | None = None
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Record every refusal `work(user, target, ...)` raises, then let it propagate.

    A refusal is any ServiceError, whatever its status: a 403 or a 404, a 409 (a state that does
    not allow it), and a 400 or a 422 alike (what was asked could not be done as asked). The
    entry is `refused.<action>` (the function's name unless `action` names it), by `user`, the
    first argument; the object is `target`, the second: a model instance is named by its model
    and id, an id stands for a `kind` (an application, a form draft...), anything else (the body
    of a new application, say) for a `kind` with no id. The wrapped function is called through
    `__wrapped__`, so that a test may put a refusal in its place."""

    def decorate(work: Callable[P, R]) -> Callable[P, R]:
        name = action or work.__name__

        @wraps(work)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return wrapper.__wrapped__(*args, **kwargs)
            except ServiceError as error:
                actor = str(getattr(args[0], "username", "")) if args else ""
                target = args[1] if len(args) > 1 else None
                found_kind, target_id = _kind_and_id(target, kind)
                record_refusal(actor, name, found_kind, target_id, error)
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
    actor: str, action: str, object_type: str, object_id: object, refusal: ServiceError
) -> None:
    """Append `refused.<action>` for `actor`: what was asked for, the refusal's code and status.

    Once only: the refusal is marked `audited`, and an outer action or a later net that meets
    it again leaves it be."""
    if refusal.audited:
        return
    summary = {"code": refusal.code, "status": refusal.status}
    with transaction.atomic():
        record(actor, f"refused.{action}", object_type, object_id, summary)
    refusal.audited = True
    REFUSALS.labels(refusal.code, str(refusal.status)).inc()
