"""Sign-ins in the audit trail: every one that succeeds, and failures at a bounded rate.

A sign-in is recorded once it is complete (`auth.sign_in`: on the pages after the second factor
for whoever owes one, at the password for anyone else; on the API with the token it issues),
with how (password, app, recovery code, passkey), the role and the address.

A failure is always logged (`jobgrant.security`), but each audit entry takes the chain's one
lock (ADR 0020), and a flood of wrong passwords must not queue the officers' decisions behind
it. So the chain gets at most one `auth.sign_in_failed` per existing account per lockout window
(AXES_COOLOFF_TIME, 15 minutes; "more may follow in the log"), and none for a name that is no
account (the log only, as every anonymous refusal). The lockout that ten failures bring is
audited by accounts/lockout.py, at most once per window per address and per existing account.
django-axes keeps the count of every attempt in its AccessAttempt rows.
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth.signals import user_login_failed
from django.db import transaction
from django.dispatch import receiver
from django.http import HttpRequest

from jobgrant.service.accounts.limits import client_ip
from jobgrant.service.accounts.lockout import (
    channel,
    cool_off_minutes,
    existing_account,
    first_in_window,
    is_locked_out,
    username_of,
)
from jobgrant.service.accounts.models import User
from jobgrant.service.audit.chain import record

log = logging.getLogger("jobgrant.security")


def record_sign_in(request: HttpRequest, user: User, method: str) -> None:
    """A complete sign-in: `method` is password, app, recovery, passkey or app-set-up."""
    summary = {
        "via": channel(request),
        "method": method,
        "role": user.role,
        "address": client_ip(request),
    }
    with transaction.atomic():
        record(user.username, "auth.sign_in", "user", user.pk, summary)


@receiver(user_login_failed, dispatch_uid="jobgrant-sign-in-failed")
def sign_in_failed(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **_: Any
) -> None:
    """Every wrong password logged; the first against an account in a window audited."""
    if request is None:
        return
    username, address, via = username_of(request, credentials), client_ip(request), channel(request)
    log.warning("sign-in failed: username=%r address=%s via %s", username, address, via)
    if is_locked_out(request):
        return  # the lockout's own entry says it (accounts/lockout.py)
    account = existing_account(username)
    if account is None or not first_in_window(f"failure:user:{account.pk}"):
        return
    summary = {
        "username": username,
        "address": address,
        "via": via,
        "next_within_minutes": cool_off_minutes(),
    }
    with transaction.atomic():
        record("anonymous", "auth.sign_in_failed", "user", account.pk, summary)
