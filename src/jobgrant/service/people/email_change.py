"""Changing one's email address: the new address proves itself before it takes effect.

A person who confirmed it is them (the password, and the code: web/views/account.py) asks for a
new address; nothing changes yet. A link goes to the new address (an AccountLink for
CHANGE_EMAIL, which keeps the address asked for); opening it and confirming makes the change,
and the old address is told (without the new one in full: whoever reads the old mailbox learns
where the account went only as far as its domain). Until then the password reset, the
invitations and every message still go to the proven address.

No two accounts share an address, whatever its case: an address another account uses (as its
address, or as its username, which for employers is their address) is refused when asked for,
and again when the link is opened (it may have been taken meanwhile). When the username was the
old address, it follows the address, so the person signs in with the address they now own.
The change stops every other link sent to the account (their stamp holds the address).
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import Q

from jobgrant.service import links
from jobgrant.service.accounts.models import LinkPurpose, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import ServiceError, bad_input, problem
from jobgrant.service.language import language_of
from jobgrant.service.notifications.outbox import enqueue
from jobgrant.service.people import account_links
from jobgrant.service.people.organizations import clean_email

ACTION = "user.email_change"


@audited_refusals_of("user", action=ACTION)
def request_email_change(user: User, email: str) -> str:
    """Send the link that proves `email` to it; the address in force stays until it is used.
    Returns the address (cleaned) the link went to."""
    new = clean_email(email)
    if not new:
        raise bad_input(
            [
                problem(
                    "email",
                    "must be an email address (254 characters at most)",
                    "doit être une adresse courriel (254 caractères au plus)",
                )
            ]
        )
    if new == user.email.lower():
        raise bad_input(
            [
                problem(
                    "email",
                    "is already your address: type the new one",
                    "est déjà votre adresse : tapez la nouvelle",
                )
            ]
        )
    _refuse_taken(new, user)
    with transaction.atomic():
        token = account_links.issue(user, LinkPurpose.CHANGE_EMAIL, email=new)
        language = language_of(user)
        enqueue(
            "email_change_confirm",
            subject=user,
            milestone=token[:16],  # every request its own message
            to=new,
            language=language,
            context={
                "name": user.first_name or user.username,
                "link": links.page_link("web:account-email-confirm", language, token=token),
                "days": account_links.ACCOUNT_LINK_DAYS,
            },
        )
        record(
            user.username,
            "user.email_change_requested",
            "user",
            user.pk,
            {"to_domain": new.rpartition("@")[2]},
        )
    return new


def pending_address(token: str) -> str | None:
    """The address a working change link would put in force (nothing changes)."""
    found = account_links.holder_link(LinkPurpose.CHANGE_EMAIL, token)
    return found.email if found is not None else None


def confirm_email_change(token: str) -> User:
    """The link was opened and confirmed: the new address is in force, the old one told."""
    found = account_links.holder_link(LinkPurpose.CHANGE_EMAIL, token)
    if found is None:
        raise account_links.not_working()
    return _change(found.user, found.user, token)


@audited_refusals_of("user", action=ACTION)
def _change(user: User, account: User, token: str) -> User:
    """The change, by the account's owner (`user`) to their `account`: an address taken since
    it was asked for is refused, and the link stays unspent."""
    with transaction.atomic():
        found = account_links.spend_link(LinkPurpose.CHANGE_EMAIL, token)
        if found is None:
            raise account_links.not_working()  # used a moment ago, in another request
        user, new = found.user, found.email
        _refuse_taken(new, user)
        old = user.email
        fields = ["email"]
        if user.username.lower() == old.lower():
            user.username = new
            fields.append("username")
        user.email = new
        try:
            with transaction.atomic():  # the database's own check, should a request race this one
                user.save(update_fields=fields)
        except IntegrityError:
            raise email_taken() from None
        language = language_of(user)
        enqueue(
            "email_changed",
            subject=user,
            milestone=token[:16],
            to=old,
            language=language,
            context={
                "name": user.first_name or user.username,
                "masked": masked(new),
                "reset": links.page_link("web:password-reset", language),
            },
        )
        summary = {"from_domain": old.rpartition("@")[2], "to_domain": new.rpartition("@")[2]}
        record(user.username, ACTION, "user", user.pk, summary)
    return user


def masked(email: str) -> str:
    """ "a***@example.org": enough for its owner to recognise it, not to write to it."""
    local, _, domain = email.partition("@")
    return f"{local[:1]}***@{domain}"


def _refuse_taken(email: str, user: User) -> None:
    others = User.objects.filter(Q(email__iexact=email) | Q(username__iexact=email))
    if others.exclude(pk=user.pk).exists():
        raise email_taken()


def email_taken() -> ServiceError:
    return ServiceError(
        409,
        "EMAIL_TAKEN",
        "Another account uses this email address: each address belongs to one account.",
        "Un autre compte utilise cette adresse courriel : chaque adresse appartient à un "
        "seul compte.",
        problems=[taken_problem()],
    )


def taken_problem() -> dict[str, str]:
    return problem("email", "is used by another account", "est utilisée par un autre compte")
