"""Applications: apply, follow, and move through the workflow (submit ... approve, deny)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from ninja import Path, Query, Router

from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import User
from jobgrant.service.api.bodies import json_body, json_object, text_field
from jobgrant.service.api.idempotency import idempotent
from jobgrant.service.api.limits import throttle
from jobgrant.service.api.openapi import links_to_the_application, problems, read_by_hand
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import (
    MAX_DATABASE_ID,
    NOTE_MAX,
    STATES,
    ApplicationBody,
    ApplicationCreated,
    ApplicationDetail,
    ApplicationPage,
    AssignBody,
    Assigned,
    EmptyBody,
    Jurisdiction,
    NoteBody,
    SubmitBody,
    Transitioned,
    one_of,
)
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.api.visibility import actor_name, note_shown
from jobgrant.service.grants.applications import actions, assignment, partner_view
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.declarations import ApplicationDeclaration
from jobgrant.service.outcomes.clocks import file_clocks

router = Router(tags=["applications"], auth=bearer)
PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
ApplicationId = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]
OPERATIONS_ON_ONE = (
    "get_application",
    "submit_application",
    "recommend_application",
    "approve_application",
    "deny_application",
    "withdraw_application",
    "assign_application",
    "release_application",
)


def application_json(
    application: Application,
    *,
    detail: bool = False,
    viewer: User | None = None,
    shares: dict[int, set[str] | None] | None = None,
) -> dict[str, Any]:
    """The application's answer; with `detail`, its history as `viewer` may read it. A
    consortium partner (`viewer` acting only for partners) gets its own share of the quote and
    figures, and no explanation (`shares`: what partner_view.own_shares found for a whole
    page of applications at once)."""
    if shares is not None:
        own = shares[application.pk]
    else:
        own = partner_view.own_share(viewer, application) if viewer is not None else None
    data: dict[str, Any] = {
        "id": application.pk,
        "state": application.state,
        "jurisdiction": application.jurisdiction,
        "fiscal_year": application.fiscal_year,
        "delivery": application.delivery,
        "policy": application.policy,
        "received_on": application.received_on.isoformat(),
        "federal": format_amount(application.federal_cents),
        "provincial": format_amount(application.provincial_cents),
        "employer": format_amount(application.employer_cents),
        "quote": application.quote,
    }
    if detail:
        assert viewer is not None, "the history depends on who reads it"
        data["declarations"] = declarations_json(application)
        data["policy_version"] = application.policy_version
        data["explanation"] = application.explanation
        data["history"] = [
            {
                "from": c.from_state,
                "to": c.to_state,
                "by": actor_name(viewer, c.actor),
                "at": c.at.isoformat(),
                "note": note_shown(viewer, c.actor, c.to_state, c.note),
            }
            for c in application.history.select_related("actor")
        ]
        data["clocks"] = [clock.as_json() for clock in file_clocks(application)]
    return data if own is None else _partner_share(data, own)


def declarations_json(application: Application) -> dict[str, Any] | None:
    """The declarations as made (DeclarationsOut), or None when there are none."""
    found = ApplicationDeclaration.objects.filter(application_id=application.pk)
    made = found.select_related("declared_by").first()
    if made is None:
        return None
    fees = {
        "preparer_fee": made.preparer_fee_cents,
        "other_funding_amount": made.other_funding_cents,
    }
    return {
        **{key: getattr(made, key) for key in DECLARED_AS_STORED},
        **{key: None if cents is None else format_amount(cents) for key, cents in fees.items()},
        "declared_by": made.declared_by.username,
        "declared_at": made.declared_at.isoformat(),
    }


DECLARED_AS_STORED = (
    "prepared_by",
    "preparer_name",
    "related_to_provider",
    "relations",
    "other_funding",
    "other_funding_program",
    "provider_public_institution",
    "provider_business_number",
    "provider_street_address",
    "provider_city",
    "provider_postal_code",
    "provider_phone",
    "trainer_name",
    "trainer_attests_no_conflict",
    "employer_attests_no_conflict",
)


def _partner_share(data: dict[str, Any], own: set[str]) -> dict[str, Any]:
    quote = partner_view.partner_quote(data["quote"], own)
    totals = quote["totals"]
    shown = {**data, "quote": quote}
    shown.update(federal=totals["federal"], provincial=totals["provincial"])
    shown["employer"] = totals["employer"]
    if "explanation" in shown:
        shown["explanation"] = []
    if "declarations" in shown:
        shown["declarations"] = None  # the applicant's, as its fees and ties are
    return shown


@router.post(
    "",
    response={201: ApplicationCreated, **problems(400, 401, 403, 422, 429)},
    openapi_extra={
        **read_by_hand(ApplicationBody),
        "responses": {201: {"links": links_to_the_application(*OPERATIONS_ON_ONE)}},
    },
)
def create_application(request: HttpRequest) -> HttpResponse:
    """Apply: the grant is computed by the rules kernel and stored with the application, with
    its declarations when the body has them (422 naming each field at fault; nothing is saved).
    An employer creates or submits at most 30 applications an hour (429 beyond)."""
    user = caller(request)
    throttle(request, "submit", user)

    def work() -> HttpResponse:
        created = actions.create_application(user, json_body(request))
        answer = {**application_json(created, viewer=user)}
        answer["declarations"] = declarations_json(created)
        return json_response(answer, status=201)

    return idempotent(request, user, work)


Transition = Callable[[User, Application, dict[str, Any]], Application]
TRANSITION_BODY = read_by_hand(NoteBody, required=False)
TRANSITIONED = {200: Transitioned, **problems(400, 401, 403, 404, 409, 422)}


@router.post(
    "/{application_id}/submit",
    response={**TRANSITIONED, **problems(429)},
    openapi_extra=read_by_hand(SubmitBody, required=False),
)
def submit_application(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Submit the application (an illegal transition answers 409). Its declarations are
    required: made with it, or given in this body (422 DECLARATIONS_MISSING without them, or
    naming each field at fault). Only the employer's own account submits, whoever prepared it."""
    throttle(request, "submit", caller(request))
    return _transition(
        request,
        application_id,
        lambda u, a, b: actions.submit_application(u, a, b.get("declarations")),
    )


@router.post("/{application_id}/recommend", response=TRANSITIONED, openapi_extra=TRANSITION_BODY)
def recommend_application(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Recommend the application (an illegal transition answers 409)."""
    return _transition(
        request,
        application_id,
        lambda u, a, b: actions.recommend_application(u, a, text_field(b, "note")),
    )


@router.post("/{application_id}/approve", response=TRANSITIONED, openapi_extra=TRANSITION_BODY)
def approve_application(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Approve the application (an illegal transition answers 409)."""
    return _transition(
        request,
        application_id,
        lambda u, a, b: actions.approve_application(u, a, text_field(b, "note")),
        without=("explanation",),  # the agreement's terms are read from the stored quote
    )


@router.post("/{application_id}/deny", response=TRANSITIONED, openapi_extra=TRANSITION_BODY)
def deny_application(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Deny the application (an illegal transition answers 409)."""
    return _transition(
        request,
        application_id,
        lambda u, a, b: actions.deny_application(u, a, text_field(b, "reason")),
    )


@router.post("/{application_id}/withdraw", response=TRANSITIONED, openapi_extra=TRANSITION_BODY)
def withdraw_application(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Withdraw the application (an illegal transition answers 409)."""
    return _transition(
        request,
        application_id,
        lambda u, a, b: actions.withdraw_application(u, a, text_field(b, "note")),
    )


ASSIGNED = {200: Assigned, **problems(400, 401, 403, 404, 409, 422)}


@router.post(
    "/{application_id}/assign",
    response=ASSIGNED,
    openapi_extra=read_by_hand(AssignBody, required=False),
)
def assign_application(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Assign the file, as the officer's "Assign to me" does: to the caller, or to another
    officer named by `to`, taken from whoever had it. Only an officer who covers the file may
    (403), to an officer who covers it too (403 NOT_THEIR_FILE), while it is submitted,
    recommended or approved (409 NOT_ASSIGNABLE)."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        named = text_field(body, "to", 150)
        application = access.get_visible_application(
            user, application_id, without=("quote", "explanation")
        )
        return json_response(_assigned(assignment.assign_by_username(user, application, named)))

    return idempotent(request, user, work)


@router.post(
    "/{application_id}/release",
    response=ASSIGNED,
    openapi_extra=read_by_hand(EmptyBody, required=False),
)
def release_application(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Give back a file assigned to the caller, as the officer's "Release" does: it is then
    assigned to nobody (409 NOT_ASSIGNED_TO_YOU if the caller does not hold it)."""
    user = caller(request)

    def work() -> HttpResponse:
        json_object(request)
        application = access.get_visible_application(
            user, application_id, without=("quote", "explanation")
        )
        return json_response(_assigned(assignment.release_application(user, application)))

    return idempotent(request, user, work)


def _assigned(application: Application) -> dict[str, Any]:
    found = Application.objects.select_related("assigned_to").only("state", "assigned_to__username")
    fresh = found.get(pk=application.pk)
    who = fresh.assigned_to.username if fresh.assigned_to else None
    return {"id": fresh.pk, "state": fresh.state, "assigned_to": who}


def _transition(
    request: HttpRequest,
    application_id: int,
    act: Transition,
    without: tuple[str, ...] = ("quote", "explanation"),
) -> HttpResponse:
    """Move the application once per Idempotency-Key; the answer is its new state. The fields
    in `without` are not read with the application (by default the stored quote and
    explanation, which changing the state does not need)."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        for key in NoteBody.model_fields:  # each is text, whichever the transition reads
            text_field(body, key, NOTE_MAX)
        application = access.get_visible_application(user, application_id, without=without)
        changed = act(user, application, body)
        return json_response({"id": changed.pk, "state": changed.state})

    return idempotent(request, user, work)


@router.get(
    "/{application_id}",
    response={200: ApplicationDetail, **problems(401, 403, 404, 422)},
    by_alias=True,  # a state change's `from`
)
def get_application(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """One application with its quote, explanation and state history."""
    user = caller(request)
    return json_response(
        application_json(
            access.get_visible_application(user, application_id), detail=True, viewer=user
        )
    )


@router.get("", response={200: ApplicationPage, **problems(401, 422)})
def list_applications(
    request: HttpRequest,
    state: Annotated[str | None, Query(pattern=one_of(STATES))] = None,
    jurisdiction: Annotated[Jurisdiction | None, Query()] = None,
    offset: Annotated[int, Query(ge=0, le=MAX_DATABASE_ID)] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE)] = PAGE_SIZE,
) -> HttpResponse:
    """The applications the caller may see, filtered, oldest first, paginated."""
    user = caller(request)
    found = access.visible_applications(user)
    if state:
        found = found.filter(state=state)
    if jurisdiction:
        found = found.filter(jurisdiction=jurisdiction)
    # Neither the explanation nor the request is in a list's items: not read (nor decoded).
    page = list(found.defer("explanation", "request").order_by("id")[offset : offset + limit])
    shares = partner_view.own_shares(user, page)  # for the whole page: no query per file
    return json_response(
        {
            "count": found.count(),
            "offset": offset,
            "limit": limit,
            "items": [application_json(a, viewer=user, shares=shares) for a in page],
        }
    )
