"""The JSON API, /api/v1 (Django Ninja): thin handlers over the actions in grants.actions."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.contrib.auth import authenticate
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, ValidationError
from ninja.security import HttpBearer

from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.actions import issue_api_token
from jobgrant.service.accounts.models import ApiToken, Role, User
from jobgrant.service.api.idempotency import idempotent
from jobgrant.service.api.problems import json_response, problem_response
from jobgrant.service.errors import ServiceError, bad_input, problem
from jobgrant.service.grants import access, actions
from jobgrant.service.grants.models import Application
from jobgrant.service.ledger.models import BudgetAccount

api = NinjaAPI(
    title="jobgrant API",
    version="1",
    description="The Canada Job Grant service: applications, decisions and budgets.",
    urls_namespace="api-v1",
    docs_url="/docs",
    openapi_url="/openapi.json",
)
PAGE_SIZE = 50


class BearerToken(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> User | None:
        return ApiToken.user_for(token)


bearer = BearerToken()


@api.exception_handler(ServiceError)
def service_error(request: HttpRequest, error: ServiceError) -> HttpResponse:
    return problem_response(error)


@api.exception_handler(AuthenticationError)
def unauthenticated(request: HttpRequest, error: Exception) -> HttpResponse:
    return problem_response(ServiceError(
        401, "UNAUTHENTICATED", "Sign in, or send Authorization: Bearer TOKEN.",
        "Connectez-vous ou envoyez Authorization: Bearer JETON.",
    ))  # fmt: skip


@api.exception_handler(ValidationError)
def invalid(request: HttpRequest, error: ValidationError) -> HttpResponse:
    problems = [
        problem(".".join(str(p) for p in e.get("loc", ())[1:]) or "(request)", e.get("msg", ""),
                e.get("msg", ""))
        for e in error.errors
    ]  # fmt: skip
    return problem_response(bad_input(problems))


def _user(request: HttpRequest) -> User:
    user = request.auth  # type: ignore[attr-defined]
    assert isinstance(user, User)
    return user


def _body(request: HttpRequest) -> Any:
    if not request.body:
        return {}
    try:
        return json.loads(request.body, parse_float=Decimal)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise bad_input([problem("(body)", f"is not valid JSON ({error})",
                                 f"n'est pas du JSON valide ({error})")]) from None  # fmt: skip


TOKEN_BODY = {
    "content": {"application/json": {"schema": {
        "type": "object", "required": ["username", "password"],
        "properties": {"username": {"type": "string"}, "password": {"type": "string"}},
    }}},
    "required": True,
}  # fmt: skip


@api.post("/auth/token", auth=None, openapi_extra={"requestBody": TOKEN_BODY}, tags=["auth"])
def issue_token(request: HttpRequest) -> HttpResponse:
    """Exchange a username and password for a bearer token."""
    body = _body(request)
    if not isinstance(body, dict):
        raise bad_input([problem("(body)", "must be a JSON object", "doit être un objet JSON")])
    missing = [k for k in ("username", "password") if not isinstance(body.get(k), str)]
    if missing:
        raise bad_input([problem(k, "is required", "est obligatoire") for k in missing])
    user = authenticate(request, username=body["username"], password=body["password"])
    if not isinstance(user, User):
        raise ServiceError(
            401, "BAD_CREDENTIALS", "Unknown username or wrong password.",
            "Nom d'utilisateur inconnu ou mot de passe erroné.",
        )  # fmt: skip
    return json_response({"token": issue_api_token(user)}, status=201)


@api.get("/employers", auth=bearer, tags=["registry"])
def list_employers(request: HttpRequest) -> HttpResponse:
    """The registered employers the caller may act for."""
    employers = access.employers_acted_for(_user(request))
    return json_response([
        {"id": e.pk, "business_number": e.business_number, "name": e.name,
         "jurisdiction": e.jurisdiction, "employees": e.employees}
        for e in employers
    ])  # fmt: skip


APPLICATION_BODY = {
    "content": {"application/json": {"schema": {
        "type": "object",
        "required": ["jurisdiction", "employers", "training", "trainees"],
        "description": "The `jobgrant quote` input without policy, delivery and application_date; "
                       "each employer is {id, business_number}.",
        "properties": {
            "jurisdiction": {"type": "string", "example": "ON"},
            "region": {"type": "string", "example": "3530"},
            "employers": {"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": "string"}, "business_number": {"type": "string"}}}},
            "training": {"type": "object"},
            "trainees": {"type": "array", "items": {"type": "object"}},
        },
    }}},
    "required": True,
}  # fmt: skip


def application_json(application: Application, *, detail: bool = False) -> dict[str, Any]:
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
        data["policy_version"] = application.policy_version
        data["explanation"] = application.explanation
        data["history"] = [
            {"from": c.from_state, "to": c.to_state, "by": c.actor.username,
             "at": c.at.isoformat(), "note": c.note}
            for c in application.history.select_related("actor")
        ]  # fmt: skip
    return data


@api.post("/applications", auth=bearer, openapi_extra={"requestBody": APPLICATION_BODY},
          tags=["applications"])  # fmt: skip
def create_application(request: HttpRequest) -> HttpResponse:
    """Apply: the grant is computed by the rules kernel and stored with the application."""
    user = _user(request)

    def work() -> HttpResponse:
        created = actions.create_application(user, _body(request))
        return json_response(application_json(created), status=201)

    return idempotent(request, user, work)


NOTE_BODY = {
    "content": {"application/json": {"schema": {
        "type": "object", "properties": {"note": {"type": "string"}, "reason": {"type": "string"}},
    }}},
    "required": False,
}  # fmt: skip


def _transition_endpoint(
    name: str, act: Callable[[User, Application, dict[str, Any]], Application]
) -> None:
    def endpoint(request: HttpRequest, application_id: int) -> HttpResponse:
        user = _user(request)

        def work() -> HttpResponse:
            body = _body(request)
            if not isinstance(body, dict):
                raise bad_input(
                    [problem("(body)", "must be a JSON object", "doit être un objet JSON")]
                )
            # The stored quote and explanation are not needed to change the state.
            application = access.get_visible(user, application_id, without=("quote", "explanation"))
            changed = act(user, application, body)
            return json_response({"id": changed.pk, "state": changed.state})

        return idempotent(request, user, work)

    endpoint.__name__ = f"{name}_application"
    endpoint.__doc__ = f"{name.capitalize()} the application (an illegal transition answers 409)."
    api.post(f"/applications/{{application_id}}/{name}", auth=bearer, tags=["applications"],
             openapi_extra={"requestBody": NOTE_BODY})(endpoint)  # fmt: skip


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key, "")
    if not isinstance(value, str):
        raise bad_input([problem(key, "must be text", "doit être du texte")])
    return value


_transition_endpoint("submit", lambda u, a, b: actions.submit_application(u, a))
_transition_endpoint(
    "recommend", lambda u, a, b: actions.recommend_application(u, a, _text(b, "note"))
)
_transition_endpoint("approve", lambda u, a, b: actions.approve_application(u, a, _text(b, "note")))
_transition_endpoint("deny", lambda u, a, b: actions.deny_application(u, a, _text(b, "reason")))
_transition_endpoint(
    "withdraw", lambda u, a, b: actions.withdraw_application(u, a, _text(b, "note"))
)


@api.get("/applications/{application_id}", auth=bearer, tags=["applications"])
def get_application(request: HttpRequest, application_id: int) -> HttpResponse:
    """One application with its quote, explanation and state history."""
    return json_response(
        application_json(access.get_visible(_user(request), application_id), detail=True)
    )


@api.get("/applications", auth=bearer, tags=["applications"])
def list_applications(
    request: HttpRequest,
    state: str | None = None,
    jurisdiction: str | None = None,
    offset: int = 0,
    limit: int = PAGE_SIZE,
) -> HttpResponse:
    """The applications the caller may see, filtered, oldest first, paginated."""
    if offset < 0 or not 1 <= limit <= 200:
        raise bad_input([problem("limit", "must be 1 to 200 (offset 0 or more)",
                                 "doit être de 1 à 200 (offset 0 ou plus)")])  # fmt: skip
    found = access.visible_applications(_user(request))
    if state:
        found = found.filter(state=state)
    if jurisdiction:
        found = found.filter(jurisdiction=jurisdiction)
    page = found.order_by("id")[offset : offset + limit]
    return json_response({
        "count": found.count(), "offset": offset, "limit": limit,
        "items": [application_json(a) for a in page],
    })  # fmt: skip


@api.get("/budgets", auth=bearer, tags=["ledger"])
def list_budgets(
    request: HttpRequest, jurisdiction: str | None = None, fiscal_year: str | None = None
) -> HttpResponse:
    """Budgets per funder and stream: allocated, committed, disbursed, available."""
    access.require_role(
        _user(request), Role.FINANCE, Role.OFFICER, Role.ANALYST, Role.AUDITOR, Role.ADMIN
    )
    budgets = BudgetAccount.objects.all().order_by(
        "jurisdiction", "fiscal_year", "funder", "stream"
    )
    if jurisdiction:
        budgets = budgets.filter(jurisdiction=jurisdiction)
    if fiscal_year:
        budgets = budgets.filter(fiscal_year=fiscal_year)
    return json_response([
        {"funder": b.funder, "jurisdiction": b.jurisdiction, "fiscal_year": b.fiscal_year,
         "stream": b.stream, "allocated": format_amount(b.allocated_cents),
         "committed": format_amount(b.committed_cents),
         "disbursed": format_amount(b.disbursed_cents),
         "available": format_amount(b.available_cents)}
        for b in budgets
    ])  # fmt: skip
