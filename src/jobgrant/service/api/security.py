"""Who is calling: a bearer token (accounts.ApiToken) on every operation but /auth/token."""

from __future__ import annotations

from django.http import HttpRequest
from ninja.security import HttpBearer

from jobgrant.service.accounts.models import ApiToken, User


class BearerToken(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> User | None:
        return ApiToken.user_for(token)


bearer = BearerToken()


def caller(request: HttpRequest) -> User:
    user = request.auth  # type: ignore[attr-defined]
    assert isinstance(user, User)
    return user
