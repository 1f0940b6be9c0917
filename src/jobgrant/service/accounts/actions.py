"""Changes to accounts: each in one transaction with its audit entry."""

from __future__ import annotations

from django.db import transaction

from jobgrant.service.accounts.models import ApiToken, User
from jobgrant.service.audit.chain import record


def issue_api_token(user: User) -> str:
    """A new bearer token for `user`, returned once; the audit trail records that one was issued
    (never the token)."""
    with transaction.atomic():
        token = ApiToken.issue(user)
        record(user.username, "token.issue", "user", user.pk, {"role": user.role})
    return token
