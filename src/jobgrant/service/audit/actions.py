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
from jobgrant.service.audit.codes import ANONYMOUS, OBJECT_TYPES, REFUSALS
from jobgrant.service.errors import ServiceError
from jobgrant.service.observability.metrics import REFUSALS as REFUSALS_COUNTED

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

    if kind not in OBJECT_TYPES:
        raise ValueError(f"object type {kind!r} is not declared in audit.codes.OBJECT_TYPES")

    def decorate(work: Callable[P, R]) -> Callable[P, R]:
        name = action or work.__name__
        REFUSALS.add(name)  # worded on the auditor's page: a test walks them all

        @wraps(work)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return wrapper.__wrapped__(*args, **kwargs)
            except ServiceError as error:
                actor = actor_of(args[0] if args else None)
                target = args[1] if len(args) > 1 else None
                found_kind, target_id = _kind_and_id(target, kind)
                record_refusal(actor, name, found_kind, target_id, error)
                raise

        return wrapper

    return decorate


def actor_of(user: object) -> str:
    """Who asked: a signed-in person's username; anyone else (not signed in, or a trainee's
    link, whose first argument is the link's token) is the anonymous visitor."""
    username = getattr(user, "username", "") if getattr(user, "is_authenticated", False) else ""
    return str(username) or ANONYMOUS


def _kind_and_id(target: object, kind: str) -> tuple[str, object]:
    """What was asked for: a model instance (named by its model, when the trail has words for
    it, else by `kind`), an id of a `kind`, or nothing we can name (the body of a new
    application, say)."""
    meta = getattr(target, "_meta", None)
    if meta is not None:
        name = str(meta.model_name)
        return (name if name in OBJECT_TYPES else kind), getattr(target, "pk", "")
    return kind, target if isinstance(target, int) else ""


def record_refusal(
    actor: str, action: str, object_type: str, object_id: object, refusal: ServiceError
) -> None:
    """Append `refused.<action>` for `actor`: what was asked for, the refusal's code and status.

    Once only: the refusal is marked `audited`, and an outer action or a later net that meets
    it again leaves it be."""
    if refusal.audited:
        return
    actor = actor or ANONYMOUS
    summary = {"code": refusal.code, "status": refusal.status}
    with transaction.atomic():
        record(actor, f"refused.{action}", object_type, object_id, summary)
    refusal.audited = True
    REFUSALS_COUNTED.labels(refusal.code, str(refusal.status)).inc()
