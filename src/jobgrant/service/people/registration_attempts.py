"""A registration that names a business number or an email address already registered.

The page answers exactly as for a new registration ("check your email"), so that nobody can
use it to learn which organizations or addresses are registered; the truth goes by email,
through the outbox, to the people it concerns:
- the owner of an account with that address is told someone tried to register with it, and how
  to sign in or reset the password (nothing else is done);
- the administrators of the organization with that business number are told who asked (the name
  and address typed), so they can invite that person; the person is told, at the address they
  gave, that the organization is registered already and that its administrators were told.
Whoever reads the address given learns that the business number is registered, as anyone
who can receive mail there should; the registration rate limit bounds how often, and the
organization's administrators hear of every attempt. The person is also sent a link with which
to dispute the registration, if the business is theirs (people/organization_verification.py).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.contrib.auth.hashers import make_password
from django.db import transaction

from jobgrant.service.accounts.models import OrganizationRole, User
from jobgrant.service.audit.chain import record
from jobgrant.service.language import language_of
from jobgrant.service.links import page_link
from jobgrant.service.notifications.outbox import enqueue, quoted
from jobgrant.service.people.organization_verification import offer_dispute
from jobgrant.service.registry.models import Employer

log = logging.getLogger("jobgrant.security")


def account_with_email(email: str) -> User | None:
    return (
        User.objects.filter(email__iexact=email).first()
        or User.objects.filter(username__iexact=email).first()
    )


def tell_of_attempt(organization: dict[str, Any], person: dict[str, Any], language: str) -> bool:
    """When the business number or the address is registered already: the messages (and the
    same password hashing a new account costs, so the answer takes as long); True. False when
    neither is, and the registration goes on."""
    employer = Employer.objects.filter(business_number=organization["business_number"]).first()
    account = account_with_email(person["email"])
    if employer is None and account is None:
        return False
    make_password(person["password"])  # the time a new account's hash takes
    with transaction.atomic():
        if account is not None:
            _tell_account_owner(account)
        if employer is not None:
            _tell_organization(employer, person, language)
    log.info(
        "registration with a registered %s: answered as any other",
        "business number and address"
        if employer and account
        else "business number"
        if employer
        else "address",
    )
    return True


def _milestone() -> str:
    return f"attempt-{time.time_ns()}"


def _tell_account_owner(account: User) -> None:
    language = language_of(account)
    sign_in, reset = page_link("web:sign-in", language), page_link("web:password-reset", language)
    enqueue(
        "registration_account_exists",
        subject=account,
        milestone=_milestone(),
        to=account.email or account.username,
        language=language,
        context={
            "username": account.username,
            "sign_in": sign_in,
            "reset": reset,
        },
    )
    record(account.username, "user.registration_attempted", "user", account.pk, {})


def _tell_organization(employer: Employer, person: dict[str, Any], language: str) -> None:
    asked_by = f"{person['first_name']} {person['last_name']}".strip()
    admins = User.objects.filter(
        membership__employer=employer,
        membership__role=OrganizationRole.ADMIN,
        is_active=True,
    ).distinct()
    for admin in admins:
        admin_language = language_of(admin)
        enqueue(
            "registration_organization_asked",
            subject=employer,
            milestone=_milestone(),
            to=admin.email or admin.username,
            language=admin_language,
            context={
                "organization": quoted(employer.name, admin_language),
                "name": quoted(asked_by, admin_language),
                "email": person["email"],
            },
        )
    language = language if language in ("en", "fr") else "en"
    enqueue(
        "registration_organization_exists",
        subject=employer,
        milestone=_milestone(),
        to=person["email"],
        language=language,
        context={
            "name": person["first_name"],
            "dispute_link": offer_dispute(employer, person["email"], language),
        },
    )
    summary = {"administrators_told": admins.count()}
    record("anonymous", "organization.registration_attempted", "employer", employer.pk, summary)
