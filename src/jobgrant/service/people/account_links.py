"""The links e-mailed to a person about their own account: confirming the address, choosing a
new staff account's password, resetting a forgotten one, proving a new address. Made and opened
one way, as every e-mailed link is (links.py): a random token in the link, an AccountLink row
with its digest.

A link works for its purpose only, until it expires, once: using it spends every other link of
that person for the same purpose (a confirmation resent twice confirms once). It also stops
working when the account's password or address changes after it was sent, whichever action
changes them (a reset link dies with the password it was sent to reset).
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from jobgrant.service import links
from jobgrant.service.accounts.models import AccountLink, LinkPurpose, User
from jobgrant.service.errors import ServiceError

#: How long the address confirmation and a staff account's set-up link work (their messages
#: say 3 days).
ACCOUNT_LINK_DAYS = 3


def lifetime(purpose: LinkPurpose) -> dt.timedelta:
    """A reset link works settings.PASSWORD_RESET_TIMEOUT seconds; the others a few days."""
    if purpose == LinkPurpose.PASSWORD_RESET:
        return dt.timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)
    return dt.timedelta(days=ACCOUNT_LINK_DAYS)


def issue(user: User, purpose: LinkPurpose, *, email: str = "") -> str:
    """A new link's token for `user` (the caller's transaction sends it). Links sent before
    keep working until one of them is used. `email`: the address a change link puts in force."""
    token = links.new_token()
    AccountLink.objects.create(
        user=user,
        purpose=purpose,
        email=email,
        digest=links.digest(token),
        account_stamp=_stamp(user),
        expires_at=timezone.now() + lifetime(purpose),
    )
    return token


def holder(purpose: LinkPurpose, token: str) -> User | None:
    """The person a working link is for (nothing changes: a page may only be looking)."""
    found = holder_link(purpose, token)
    return found.user if found is not None else None


def holder_link(purpose: LinkPurpose, token: str) -> AccountLink | None:
    """The working link itself (with its user), or None."""
    return _working(AccountLink.objects.all(), purpose, token)


def spend(purpose: LinkPurpose, token: str) -> User | None:
    """Use a working link, in the caller's transaction: the person it is for, with every link of
    theirs for `purpose` spent. None if the link does not work (used, expired, made up)."""
    found = spend_link(purpose, token)
    return found.user if found is not None else None


def spend_link(purpose: LinkPurpose, token: str) -> AccountLink | None:
    """As `spend`, the link itself (what it was sent for, as a change link's address)."""
    found = _working(AccountLink.objects.select_for_update(), purpose, token)
    if found is None:
        return None
    AccountLink.objects.filter(user=found.user, purpose=purpose, used_at__isnull=True).update(
        used_at=timezone.now()
    )
    return found


def _working(rows: QuerySet[AccountLink], purpose: LinkPurpose, token: str) -> AccountLink | None:
    if not isinstance(token, str) or len(token) > 100:
        return None
    open_links = rows.select_related("user").filter(
        purpose=purpose, used_at__isnull=True, expires_at__gt=timezone.now()
    )
    found = links.by_token(open_links, token).first()
    if found is None or found.account_stamp != _stamp(found.user):
        return None
    return found


def _stamp(user: User) -> str:
    """The account as a link was sent to it: its password (hashed) and its address."""
    return links.digest(f"{user.password}\n{user.email}")


def not_working() -> ServiceError:
    """The answer to a link that does not work, whatever it was for (an invitation too)."""
    return ServiceError(
        404,
        "LINK_NOT_VALID",
        "This link does not work: it was already used, it expired, or it is incomplete.",
        "Ce lien ne fonctionne pas : il a déjà servi, il a expiré ou il est incomplet.",
    )
