"""A forgotten password: the reset link, through the outbox, and the reset it opens.

The link (people/account_links.py) works for settings.PASSWORD_RESET_TIMEOUT (an hour), opens one
reset, once, and stops working once the password is changed, by it or any other way. Asking for
a reset says the same whether or not the address is known (the page cannot be used to find
accounts), and takes the same least time (ask_for_reset); asking again sends another link and
leaves the first one working.
"""

from __future__ import annotations

import datetime as dt
import time

from django.conf import settings
from django.db import transaction

from jobgrant.service.accounts import actions as account_actions
from jobgrant.service.accounts.models import LinkPurpose, User
from jobgrant.service.audit.chain import record
from jobgrant.service.links import page_link
from jobgrant.service.notifications.outbox import enqueue
from jobgrant.service.people import account_links


def reset_link(user: User, language: str) -> str:
    token = account_links.issue(user, LinkPurpose.PASSWORD_RESET)
    return page_link("web:password-reset-confirm", language, token=token)


def send_password_reset(email: str, language: str) -> bool:
    """Queue the reset link to the active account with this email, if there is one (True)."""
    user = User.objects.filter(email__iexact=email.strip(), is_active=True).first()
    if user is None or not user.has_usable_password():
        return False
    with transaction.atomic():
        enqueue(
            "password_reset",
            subject=user,
            milestone=f"reset-{time.time_ns()}",  # every request its own message
            to=user.email,
            language=language,
            context={
                "username": user.username,
                "link": reset_link(user, language),
                "minutes": _minutes_left(),
            },
        )
        record(
            user.username, "user.password_reset_requested", "user", user.pk, {"language": language}
        )
    return True


def ask_for_reset(email: str, language: str) -> None:
    """What the page does: the reset asked for (send_password_reset), answered after the same
    least time whether or not the address is known (JOBGRANT_PASSWORD_RESET_ANSWER_SECONDS, far
    above what the link and its message cost), so that the time says nothing of the address."""
    started = time.monotonic()
    send_password_reset(email, language)
    floor = float(settings.JOBGRANT_PASSWORD_RESET_ANSWER_SECONDS)
    time.sleep(max(0.0, floor - (time.monotonic() - started)))


def _minutes_left() -> int:
    """What the message says of the link's lifetime (the settings', in minutes)."""
    return account_links.lifetime(LinkPurpose.PASSWORD_RESET) // dt.timedelta(minutes=1)


def reset_user(token: str) -> User | None:
    """The account a working reset link is for."""
    return account_links.holder(LinkPurpose.PASSWORD_RESET, token)


def reset_password(token: str, new_password: str) -> User:
    """The new password (checked by the page's form), through the link, which is then spent:
    every session and API token of the account ends (accounts.actions.reset_password)."""
    with transaction.atomic():
        user = account_links.spend(LinkPurpose.PASSWORD_RESET, token)
        if user is None:
            raise account_links.not_working()
        account_actions.reset_password(user, new_password)
    return user
