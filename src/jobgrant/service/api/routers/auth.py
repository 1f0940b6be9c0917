"""/auth: a bearer token for a username, a password and (for staff) the second factor; the
caller's tokens, listed and revoked (an administrator's: anyone's)."""

from __future__ import annotations

from typing import Annotated

from django.http import HttpRequest, HttpResponse
from ninja import Path, Query, Router

from jobgrant.service.accounts import actions
from jobgrant.service.accounts.models import ApiToken, Role
from jobgrant.service.api.bodies import json_object, text_field
from jobgrant.service.api.idempotency import idempotent
from jobgrant.service.api.limits import throttle
from jobgrant.service.api.openapi import problems, read_by_hand
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import Credentials, RevokeBody, Revoked, Token, TokenOut
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.errors import ServiceError, bad_input, problem

router = Router(tags=["auth"])
REASON_MAX = 500
TokenId = Annotated[int, Path(ge=1, le=2**63 - 1)]


@router.post("/token", auth=None, response={201: Token, **problems(400, 401, 403, 422, 429)})
def issue_token(request: HttpRequest, credentials: Credentials) -> HttpResponse:
    """Exchange a username, a password and (for staff) the authenticator's code for a bearer
    token for one named client. 10 failures for an account or from an address lock it for 15
    minutes (429); more than 20 requests a minute from one address answer 429 too."""
    throttle(request, "token")
    row, token = actions.token_for_credentials(
        request,
        credentials.username,
        credentials.password,
        credentials.otp,
        credentials.client,
        actions.token_days(credentials.days),
    )
    body = {"token": token, "client": row.name, "expires_at": row.expires_at.isoformat()}
    return json_response(body, status=201)


def _token_json(token: ApiToken) -> dict[str, object]:
    return {
        "id": token.pk,
        "client": token.name,
        "prefix": token.prefix,
        "created_at": token.created_at.isoformat(),
        "expires_at": token.expires_at.isoformat(),
        "last_used_at": token.last_used_at.isoformat() if token.last_used_at else None,
        "owner": token.user.username,
    }


@router.get("/tokens", auth=bearer, response={200: list[TokenOut], **problems(401, 403, 422)})
def list_tokens(
    request: HttpRequest,
    owner: Annotated[str | None, Query(max_length=150, pattern=r"^[\w.@+-]+$")] = None,
) -> HttpResponse:
    """The caller's tokens (an administrator: anyone's, or one person's with `owner`)."""
    user = caller(request)
    tokens = ApiToken.objects.select_related("user").order_by("user__username", "name")
    if user.role != Role.ADMIN:
        if owner not in (None, user.username):
            raise ServiceError(
                403,
                "NOT_YOUR_TOKENS",
                "Only an administrator sees other people's tokens.",
                "Seul un administrateur voit les jetons des autres.",
            )
        tokens = tokens.filter(user=user)
    elif owner:
        tokens = tokens.filter(user__username=owner)
    return json_response([_token_json(token) for token in tokens])


@router.post(
    "/tokens/{token_id}/revoke",
    auth=bearer,
    response={200: Revoked, **problems(400, 401, 404, 422)},
    openapi_extra=read_by_hand(RevokeBody, required=False),
)
def revoke_token(request: HttpRequest, token_id: TokenId) -> HttpResponse:
    """Revoke one of the caller's tokens (an administrator: anyone's); it stops working at once,
    on every server."""
    user = caller(request)

    def work() -> HttpResponse:
        reason = text_field(json_object(request), "reason")
        if len(reason) > REASON_MAX:
            raise bad_input([problem("reason", "is too long", "est trop long")])
        actions.revoke_api_token(user, token_id, reason)
        return json_response({"id": token_id, "revoked": True})

    return idempotent(request, user, work)
