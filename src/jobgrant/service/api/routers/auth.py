"""POST /auth/token: a username and password for a bearer token."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.http import HttpRequest, HttpResponse
from ninja import Router

from jobgrant.service.accounts.actions import issue_api_token
from jobgrant.service.accounts.models import User
from jobgrant.service.api.openapi import problems
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import Credentials, Token
from jobgrant.service.errors import ServiceError

router = Router(tags=["auth"])


@router.post("/token", auth=None, response={201: Token, **problems(400, 401, 422)})
def issue_token(request: HttpRequest, credentials: Credentials) -> HttpResponse:
    """Exchange a username and password for a bearer token."""
    user = authenticate(request, username=credentials.username, password=credentials.password)
    if not isinstance(user, User):
        raise ServiceError(
            401,
            "BAD_CREDENTIALS",
            "Unknown username or wrong password.",
            "Nom d'utilisateur inconnu ou mot de passe erroné.",
        )
    return json_response({"token": issue_api_token(user)}, status=201)
