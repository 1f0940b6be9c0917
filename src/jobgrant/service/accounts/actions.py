"""Changes to accounts: each in one transaction with its audit entry (never a secret)."""

from __future__ import annotations

import time

from django.conf import settings
from django.contrib.auth import authenticate, update_session_auth_hash
from django.db import transaction
from django.http import HttpRequest

from jobgrant.service.accounts.lockout import cool_off, is_locked_out
from jobgrant.service.accounts.models import STAFF_ROLES, ApiToken, User
from jobgrant.service.accounts.second_factor import app_device, needs_second_factor
from jobgrant.service.accounts.second_factor_actions import check_code
from jobgrant.service.accounts.sign_in_actions import record_sign_in
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import ServiceError

#: How long a re-authentication lets a person change their password, email or second factor.
REAUTHENTICATED_AT = "jobgrant.reauthenticated_at"
REAUTHENTICATION_SECONDS = 5 * 60


def issue_api_token(user: User, client: str | None = None, days: int | None = None) -> str:
    """A new bearer token for `user`'s client (replacing that client's earlier one), returned
    once; the audit trail records that one was issued, for which client (never the token)."""
    return _issue(user, client, days)[1]


def _issue(user: User, client: str | None, days: int | None) -> tuple[ApiToken, str]:
    with transaction.atomic():
        issued, token = ApiToken.issue_row(user, client, days)
        summary = {
            "role": user.role,
            "client": issued.name,
            "expires_at": issued.expires_at.isoformat(),
        }
        record(user.username, "token.issue", "user", user.pk, summary)
    return issued, token


def locked_out() -> ServiceError:
    minutes = int(cool_off().total_seconds() // 60)
    return ServiceError(
        429,
        "LOCKED_OUT",
        f"Too many failed sign-in attempts: try again in {minutes} minutes.",
        f"Trop de tentatives de connexion échouées : réessayez dans {minutes} minutes.",
        extra={"retry_after": int(cool_off().total_seconds())},
    )


def token_for_credentials(
    request: HttpRequest, username: str, password: str, code: str, client: str, days: int | None
) -> tuple[ApiToken, str]:
    """POST /auth/token: the password (counted by the lockout), then, for whoever needs one,
    the second factor; the client's token."""
    user = authenticate(request, username=username, password=password)
    if is_locked_out(request):
        raise locked_out()
    if not isinstance(user, User):
        raise ServiceError(
            401,
            "BAD_CREDENTIALS",
            "Unknown username or wrong password.",
            "Nom d'utilisateur inconnu ou mot de passe erroné.",
        )
    method = "password"
    if needs_second_factor(user):
        _second_factor_for_token(request, user, code)
        method = "password+code"
    with transaction.atomic():  # the sign-in on the API and its token: both or neither
        record_sign_in(request, user, method)
        return _issue(user, client, days)


def _second_factor_for_token(request: HttpRequest, user: User, code: str) -> None:
    if user.role in STAFF_ROLES and app_device(user) is None:
        raise ServiceError(
            403,
            "SECOND_FACTOR_NOT_SET_UP",
            "Set up your second factor by signing in on the web first.",
            "Configurez d'abord votre deuxième facteur en vous connectant sur le Web.",
        )
    if not code:
        raise ServiceError(
            401,
            "SECOND_FACTOR_REQUIRED",
            "This account needs the code from its authenticator app (field otp).",
            "Ce compte exige le code de son application d'authentification (champ otp).",
        )
    if not check_code(user, code, request):
        raise ServiceError(
            401,
            "BAD_SECOND_FACTOR",
            "The code is wrong or was already used.",
            "Le code est erroné ou a déjà servi.",
        )


def revoke_api_token(actor: User, token_id: int, reason: str = "") -> ApiToken:
    """Revoke a token: its owner may, and so may an administrator (anyone's)."""
    with transaction.atomic():
        found = ApiToken.objects.select_related("user").filter(pk=token_id).first()
        if found is None or (found.user_id != actor.pk and actor.role != "admin"):
            raise ServiceError(404, "NOT_FOUND", "No such token.", "Aucun jeton de ce genre.")
        summary = {
            "client": found.name,
            "prefix": found.prefix,
            "owner": found.user.username,
            "reason": reason,
        }
        record(actor.username, "token.revoke", "user", found.user_id, summary)
        found.delete()
    return found


def reauthenticate(request: HttpRequest, user: User, password: str, code: str) -> bool:
    """The password again (counted by the lockout) and, for whoever has one, the second factor:
    for the next REAUTHENTICATION_SECONDS the person may change their password, email or
    second factor."""
    checked = authenticate(request, username=user.username, password=password)
    if checked is None or checked.pk != user.pk:
        return False
    if (
        needs_second_factor(user)
        and app_device(user) is not None
        and not check_code(user, code, request)
    ):
        return False
    request.session[REAUTHENTICATED_AT] = int(time.time())
    return True


def recently_reauthenticated(request: HttpRequest) -> bool:
    at = int(request.session.get(REAUTHENTICATED_AT, 0))
    return 0 <= time.time() - at < REAUTHENTICATION_SECONDS


def change_password(request: HttpRequest, user: User, new_password: str) -> None:
    """The session stays signed in; every other session of the user ends, and so do the
    user's API tokens, for good (the account's session epoch is raised: User.end_every_session)."""
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        revoked = user.end_every_session()
        record(user.username, "user.password_change", "user", user.pk, {"tokens_revoked": revoked})
    update_session_auth_hash(request, user)  # under the new password and epoch


def reset_password(user: User, new_password: str) -> None:
    """A new password through a reset link: every session of the user ends, and so do their
    API tokens, for good (as above)."""
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        revoked = user.end_every_session()
        record(user.username, "user.password_reset", "user", user.pk, {"tokens_revoked": revoked})


def token_days(requested: int | None) -> int:
    return min(requested or settings.API_TOKEN_DEFAULT_DAYS, settings.API_TOKEN_MAX_DAYS)
