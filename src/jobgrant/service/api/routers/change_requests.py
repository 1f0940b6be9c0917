"""Change requests: ask for a change to an application's agreement, read it, approve or deny it.

    POST /applications/{application_id}/change-requests   the employer (a body by kind)
    GET  /change-requests/{change_id}                     whoever may read the application
    POST /change-requests/{change_id}/approve | /deny     an officer, with a reason ({reason})

Handlers are thin: grants.change_actions does the work (and refuses), api/errors.py answers every
refusal as problem+json. Every POST takes an Idempotency-Key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, cast

from django.http import HttpRequest, HttpResponse
from ninja import Path, Router, Schema

from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import User
from jobgrant.service.api.bodies import json_object, text_field
from jobgrant.service.api.change_schemas import ChangeRequestBody, ChangeRequestOut, DecisionBody
from jobgrant.service.api.idempotency import idempotent
from jobgrant.service.api.openapi import problems, read_by_hand
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import MAX_DATABASE_ID
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.api.visibility import actor_name
from jobgrant.service.grants.changes import access as change_access
from jobgrant.service.grants.changes import actions as change_actions
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.changes import ChangeRequest
from jobgrant.service.refusals import refused

router = Router(tags=["change requests"], auth=bearer)
ApplicationId = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]
ChangeId = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]
OPERATIONS_ON_ONE = ("get_change_request", "approve_change_request", "deny_change_request")


def change_json(change: ChangeRequest, viewer: User) -> dict[str, Any]:
    def money(figures: dict[str, int]) -> dict[str, str]:
        return {key: format_amount(int(cents)) for key, cents in figures.items()}

    return {
        "id": change.pk,
        "application": change.agreement.application_id,
        "agreement": change.agreement_id,
        "kind": change.kind,
        "state": change.state,
        "diff": [
            {
                "field": entry["field"],
                "before": entry["before"],
                "after": entry["after"],
                "change": entry.get("change"),
            }
            for entry in change.diff
        ],
        "figures": {side: money(change.figures[side]) for side in ("before", "after")},
        "note": change.note,
        "requested_by": actor_name(viewer, change.requested_by),
        "requested_at": change.requested_at.isoformat(),
        "decided_by": actor_name(viewer, change.decided_by),
        "decided_at": change.decided_at.isoformat() if change.decided_at else None,
        "reason": change.reason,
        "self_service": change.self_service,
        "needs_acceptance": change.needs_acceptance,
        "agreement_version": change.version.number if change.version else None,
    }


def _links() -> dict[str, Any]:
    return {
        operation: {"operationId": operation, "parameters": {"change_id": "$response.body#/id"}}
        for operation in OPERATIONS_ON_ONE
    }


@router.post(
    "/applications/{application_id}/change-requests",
    response={201: ChangeRequestOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra={
        **read_by_hand(cast(type[Schema], ChangeRequestBody)),
        "responses": {201: {"links": _links()}},
    },
    by_alias=True,
)
def create_change_request(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Ask for a change to the application's accepted agreement: new dates (self-service inside
    the fiscal year when no money moves: approved at once), another provider, trainees added,
    removed or replaced, or money moved between cost lines. One open at a time."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        application = access.get_visible_application(user, application_id, without=("explanation",))
        agreement = Agreement.objects.filter(application=application).first()
        if agreement is None:
            raise refused(409, "NO_AGREEMENT", extra={"state": application.state})
        agreement.application = application
        kind = body.get("kind")
        change = change_actions.request_change(user, agreement, kind, body)
        return json_response(change_json(_fresh(user, change.pk), user), status=201)

    return idempotent(request, user, work)


def _fresh(user: User, change_id: int) -> ChangeRequest:
    return change_access.get_visible_change(user, change_id)


@router.get(
    "/change-requests/{change_id}",
    response={200: ChangeRequestOut, **problems(401, 403, 404, 422)},
    by_alias=True,
)
def get_change_request(request: HttpRequest, change_id: ChangeId) -> HttpResponse:
    """One change request: what it changes (before and after), its money, its decision."""
    user = caller(request)
    return json_response(change_json(_fresh(user, change_id), user))


Decision = Callable[[User, ChangeRequest, str], ChangeRequest]
DECISION_ANSWERS = {200: ChangeRequestOut, **problems(400, 401, 403, 404, 409, 422)}


@router.post(
    "/change-requests/{change_id}/approve",
    response=DECISION_ANSWERS,
    openapi_extra=read_by_hand(DecisionBody, required=False),
    by_alias=True,
)
def approve_change_request(request: HttpRequest, change_id: ChangeId) -> HttpResponse:
    """Approve the change request (an officer; one already decided answers 409)."""
    return _decide(request, change_id, change_actions.approve_change)


@router.post(
    "/change-requests/{change_id}/deny",
    response=DECISION_ANSWERS,
    openapi_extra=read_by_hand(DecisionBody, required=True),
    by_alias=True,
)
def deny_change_request(request: HttpRequest, change_id: ChangeId) -> HttpResponse:
    """Deny the change request (an officer; one already decided answers 409)."""
    return _decide(request, change_id, change_actions.deny_change)


def _decide(request: HttpRequest, change_id: int, decide: Decision) -> HttpResponse:
    """Decide once per Idempotency-Key with the body's reason; the answer is the change."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        reason = text_field(body, "reason")
        change = _fresh(user, change_id)
        decide(user, change, reason)
        return json_response(change_json(_fresh(user, change_id), user))

    return idempotent(request, user, work)
