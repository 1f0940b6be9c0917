"""An employer's organization and its people: registering it with its first user, confirming
that user's email, inviting colleagues, setting their role and removing them.

Each change is one transaction with its audit entry; each message (the confirmation link, an
invitation) goes through the outbox in that transaction. Input is checked in full before
anything is written and every problem is named (field, English, French). An organization
always keeps an administrator: the last one can neither leave, be removed nor become a member.

These live in `grants`, the layer above both the registry (the organization) and the
notifications (the outbox), as the import layers require.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone, translation

from jobgrant.service import links
from jobgrant.service.accounts.models import (
    INVITATION_DAYS,
    EmailVerification,
    LinkPurpose,
    Membership,
    OrganizationInvitation,
    OrganizationRole,
    Role,
    User,
)
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.choices import jurisdiction_of
from jobgrant.service.errors import ServiceError, bad_input, forbidden, problem
from jobgrant.service.language import language_of, local_day, long_date
from jobgrant.service.notifications.outbox import enqueue, quoted
from jobgrant.service.people import account_links
from jobgrant.service.people.registration_attempts import account_with_email, tell_of_attempt
from jobgrant.service.registry.actions import EMPLOYER_FIELDS
from jobgrant.service.registry.identifiers import (
    normalize_phone,
    normalize_postal_code,
    postal_code_fits,
)
from jobgrant.service.registry.models import Employer

Problems = list[dict[str, str]]
LANGUAGES = ("en", "fr")
MAX_EMAIL = 254
MAX_NAME = 150


# --- Registering an organization and its first user ---------------------------------------


def register_organization(data: dict[str, Any], *, language: str) -> User | None:
    """Register an employer and its first user (its administrator), inactive until the email
    is confirmed by the link sent to it. A business number or an address registered already is
    not said here (None, and the same "check your email" answer): the people concerned are told
    by email (grants/registration_attempt_actions.py)."""
    problems: Problems = []
    organization = _valid_organization(data, problems)
    person = _valid_person(data, problems)
    if problems:  # every field's problem at once, the organization's and the person's
        raise bad_input(problems)
    if tell_of_attempt(organization, person, language):
        return None
    try:
        with transaction.atomic():
            employer = Employer.objects.create(**organization)
            user = _create_user(person, language=language, active=False)
            Membership.objects.create(
                user=user, employer=employer, role=OrganizationRole.ADMIN, added_at=timezone.now()
            )
            EmailVerification.objects.create(user=user, email=user.email)
            _send_verification(user)
            summary = {**organization, "administrator": user.pk}
            record(user.username, "organization.register", "employer", employer.pk, summary)
    except IntegrityError:  # the same number or address registered a moment ago
        tell_of_attempt(organization, person, language)
        return None
    return user


ORGANIZATION_FIELDS = ("business_number", "name", "employees", "naics", "jurisdiction")
ADDRESS_FIELDS = ("street_address", "city", "postal_code")
PERSON_FIELDS = ("first_name", "last_name", "email", "password", "password_again")


def _valid_organization(data: dict[str, Any], problems: Problems) -> dict[str, Any]:
    """The organization's fields; their problems are added to `problems`."""
    fields: dict[str, Any] = {}
    for key in ORGANIZATION_FIELDS:
        clean, en, fr = EMPLOYER_FIELDS[key]
        fields[key] = clean(data.get(key))
        if fields[key] is None:
            problems.append(problem(key, en, fr))
    for key, limit in (("street_address", 200), ("city", 100)):
        fields[key] = _text(data.get(key), limit)
        if not fields[key]:
            problems.append(_required(key, limit))
    fields["postal_code"] = normalize_postal_code(str(data.get("postal_code") or ""))
    problems += _postal_problems(fields["postal_code"], fields["jurisdiction"])
    fields["phone"] = normalize_phone(str(data.get("phone") or ""))
    if fields["phone"] is None:
        problems.append(
            problem(
                "phone",
                "must be a telephone number of 10 digits, like 905-555-0100",
                "doit être un numéro de téléphone de 10 chiffres, par exemple 905-555-0100",
            )
        )
    return fields


def _postal_problems(postal: str | None, jurisdiction: str | None) -> Problems:
    if postal is None:
        return [
            problem(
                "postal_code",
                "must be a Canadian postal code, like K1A 0B1",
                "doit être un code postal canadien, par exemple K1A 0B1",
            )
        ]
    if jurisdiction and not postal_code_fits(postal, jurisdiction):
        english, french = jurisdiction_of(jurisdiction)
        return [
            problem(
                "postal_code",
                f"is not a postal code of {english}",
                f"n'est pas un code postal {french}",
            )
        ]
    return []


def _valid_person(data: dict[str, Any], problems: Problems) -> dict[str, Any]:
    """The person's fields; their problems are added to `problems`."""
    person = {key: _text(data.get(key), MAX_NAME) for key in ("first_name", "last_name")}
    problems += [_required(key, MAX_NAME) for key, value in person.items() if not value]
    person["email"] = clean_email(data.get("email"))
    if not person["email"]:
        problems.append(
            problem(
                "email",
                "must be an email address (254 characters at most)",
                "doit être une adresse courriel (254 caractères au plus)",
            )
        )
    person["password"] = _password(data, person, problems)
    return person


def _password(data: dict[str, Any], person: dict[str, Any], problems: Problems) -> str:
    """The password if it passes Django's validators (AUTH_PASSWORD_VALIDATORS) and was typed
    the same twice; each validator's message becomes a problem, in both languages."""
    password = data.get("password")
    if not isinstance(password, str) or not password:
        problems.append(problem("password", "is required", "est obligatoire"))
        return ""
    if data.get("password_again") != password:
        problems.append(
            problem(
                "password_again",
                "must be the same password typed again",
                "doit être le même mot de passe, tapé de nouveau",
            )
        )
    problems += password_problems(
        password, User(username=person.get("email") or "", **_names(person))
    )
    return password


def _names(person: dict[str, Any]) -> dict[str, str]:
    return {
        "first_name": person.get("first_name") or "",
        "last_name": person.get("last_name") or "",
    }


def password_problems(password: str, user: User) -> Problems:
    found: Problems = []
    for language in LANGUAGES:
        with translation.override(language):
            try:
                validate_password(password, user)
            except ValidationError as error:
                found.append({"field": "password", f"message_{language}": " ".join(error.messages)})
    if not found:
        return []
    merged = {"field": "password", "message_en": "", "message_fr": ""}
    for entry in found:
        merged.update({k: v for k, v in entry.items() if k.startswith("message_")})
    return [merged]


def _create_user(person: dict[str, Any], *, language: str, active: bool) -> User:
    user = User(
        username=person["email"],
        email=person["email"],
        first_name=person["first_name"],
        last_name=person["last_name"],
        role=Role.EMPLOYER,
        preferred_language=language if language in LANGUAGES else "en",
        is_active=active,
    )
    user.set_password(person["password"])
    user.save()
    return user


def _send_verification(user: User) -> None:
    token = account_links.issue(user, LinkPurpose.VERIFY_EMAIL)
    language = language_of(user)
    link = links.page_link("web:verify-email", language, token=token)
    enqueue(
        "email_verification",
        subject=user,
        milestone=f"{timezone.now():%Y%m%d%H%M%S%f}",
        to=user.email,
        language=language,
        context={"link": link, "name": user.first_name},
    )


def verification_user(token: str) -> User | None:
    """The user a confirmation link is for, if the link works (not used, not expired)."""
    return account_links.holder(LinkPurpose.VERIFY_EMAIL, token)


def verify_email(token: str) -> User:
    """Confirm the address: the user becomes active (the link, and any other sent to confirm
    it, then stops working)."""
    with transaction.atomic():
        user = account_links.spend(LinkPurpose.VERIFY_EMAIL, token)
        if user is None:
            raise account_links.not_working()
        EmailVerification.objects.filter(user=user).update(verified_at=timezone.now())
        user.is_active = True
        user.save(update_fields=["is_active"])
        record(user.username, "user.verify_email", "user", user.pk, {})
    return user


def send_verification_again(user: User) -> None:
    """A new confirmation link for an account still waiting for it (asked by signing in with
    the right password: the message may have been lost or the link expired)."""
    with transaction.atomic():
        _send_verification(user)
        record(user.username, "user.verification_resent", "user", user.pk, {})


def awaits_verification(user: User) -> bool:
    return EmailVerification.objects.filter(user=user, verified_at__isnull=True).exists()


# --- The organization's people ------------------------------------------------------------


def administered(user: User) -> list[Employer]:
    """The organizations `user` administers."""
    if user.role != Role.EMPLOYER or not user.is_active:
        return []
    return list(
        Employer.objects.filter(
            membership__user=user, membership__role=OrganizationRole.ADMIN
        ).order_by("name")
    )


def memberships_of(user: User) -> list[Membership]:
    if user.role != Role.EMPLOYER:
        return []
    return list(Membership.objects.filter(user=user).select_related("employer"))


def members(employer: Employer) -> list[Membership]:
    return list(
        Membership.objects.filter(employer=employer, user__role=Role.EMPLOYER)
        .select_related("user")
        .order_by("user__last_name", "user__first_name", "user__username")
    )


def is_admin(user: User, employer: Employer) -> bool:
    return Membership.objects.filter(
        user=user, employer=employer, role=OrganizationRole.ADMIN, user__is_active=True
    ).exists()


@audited_refusals_of("employer", action="organization.invite")
def invite_colleague(
    user: User, employer: Employer, data: dict[str, Any]
) -> OrganizationInvitation:
    """Invite someone, by email, to join `employer` with a role (administrators only)."""
    _require_admin(user, employer, "organization.invite")
    email, role, language = _valid_invitation(data)
    if Membership.objects.filter(employer=employer, user__email__iexact=email).exists():
        raise bad_input(
            [
                problem(
                    "email",
                    "already belongs to this organization",
                    "fait déjà partie de cette organisation",
                )
            ]
        )
    token = links.new_token()
    with transaction.atomic():
        invitation = OrganizationInvitation.objects.create(
            employer=employer,
            email=email,
            role=role,
            language=language,
            digest=links.digest(token),
            invited_by=user,
            expires_at=timezone.now() + dt.timedelta(days=INVITATION_DAYS),
        )
        link = links.page_link("web:invitation", language, token=token)
        enqueue(
            "organization_invitation",
            subject=invitation,
            to=email,
            language=language,
            context={
                "organization": quoted(employer.name, language),
                "inviter": quoted(user.get_full_name() or user.username, language),
                "role": _role_label(role, language),
                "link": link,
                "expires_on": long_date(local_day(invitation.expires_at), language),
            },
        )
        record(
            user.username,
            "organization.invite",
            "employer",
            employer.pk,
            {"invitation": invitation.pk, "role": role},
        )
    return invitation


def pending_invitations(employer: Employer) -> list[OrganizationInvitation]:
    """The invitations of `employer` whose link still works (not used, revoked or expired)."""
    return list(
        employer.invitations.filter(
            accepted_at__isnull=True, revoked_at__isnull=True, expires_at__gt=timezone.now()
        )
        .select_related("invited_by")
        .order_by("created_at", "pk")
    )


@audited_refusals_of("employer", action="organization.revoke_invitation")
def revoke_invitation(user: User, employer: Employer, invitation_id: int) -> OrganizationInvitation:
    """Cancel an invitation that was not used yet (administrators): its link stops working."""
    _require_admin(user, employer, "organization.revoke_invitation")
    with transaction.atomic():
        invitation = (
            OrganizationInvitation.objects.select_for_update()
            .filter(employer=employer, pk=invitation_id)
            .first()
        )
        if invitation is None:
            raise ServiceError(
                404, "NOT_FOUND", "No such invitation.", "Aucune invitation de ce genre."
            )
        if invitation.accepted_at or invitation.revoked_at:
            raise ServiceError(
                409,
                "INVITATION_NOT_OPEN",
                "This invitation was already used or cancelled.",
                "Cette invitation a déjà été utilisée ou annulée.",
            )
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
        summary = {"invitation": invitation.pk, "role": invitation.role}
        record(user.username, "organization.revoke_invitation", "employer", employer.pk, summary)
    return invitation


def _valid_invitation(data: dict[str, Any]) -> tuple[str, str, str]:
    problems: Problems = []
    email = clean_email(data.get("email"))
    if not email:
        problems.append(
            problem(
                "email",
                "must be an email address (254 characters at most)",
                "doit être une adresse courriel (254 caractères au plus)",
            )
        )
    role = data.get("role")
    if role not in OrganizationRole.values:
        problems.append(
            problem("role", "must be administrator or member", "doit être administrateur ou membre")
        )
    language = data.get("language")
    if language not in LANGUAGES:
        problems.append(problem("language", "must be en or fr", "doit être en ou fr"))
    if problems:
        raise bad_input(problems)
    return email, str(role), str(language)


def _role_label(role: str, language: str) -> str:
    with translation.override(language):
        return str(OrganizationRole(role).label)


def open_invitation(token: str) -> OrganizationInvitation | None:
    """The invitation a link is for, if it can still be used."""
    if not isinstance(token, str) or len(token) > 100:
        return None
    found = (
        links.by_token(
            OrganizationInvitation.objects.select_related("employer", "invited_by"), token
        )
        .filter(accepted_at__isnull=True, revoked_at__isnull=True)
        .first()
    )
    if found is None or found.expires_at <= timezone.now():
        return None
    return found


def accept_invitation(
    token: str, *, user: User | None = None, data: dict[str, Any] | None = None
) -> User:
    """Join the organization: as `user` (signed in, with the address invited), or as a new
    account made from `data` (the link proves the address, so it is active at once)."""
    invitation = open_invitation(token)
    if invitation is None:
        raise account_links.not_working()
    if user is not None and (user.role != Role.EMPLOYER or user.email.lower() != invitation.email):
        raise forbidden(
            "NOT_THE_INVITED_ADDRESS",
            "This invitation was sent to another email address.",
            "Cette invitation a été envoyée à une autre adresse courriel.",
        )
    if user is None:
        problems: Problems = []
        person = _valid_person({**(data or {}), "email": invitation.email}, problems)
        if problems:
            raise bad_input(problems)
        _refuse_taken_email(person["email"])
    with transaction.atomic():
        locked = OrganizationInvitation.objects.select_for_update().get(pk=invitation.pk)
        if locked.accepted_at is not None:
            raise account_links.not_working()
        joining = user or _create_user(person, language=invitation.language, active=True)
        membership, made = Membership.objects.get_or_create(
            user=joining,
            employer=invitation.employer,
            defaults={"role": invitation.role, "added_at": timezone.now()},
        )
        if not made and invitation.role == OrganizationRole.ADMIN:  # never lowers a role
            membership.role = OrganizationRole.ADMIN
            membership.save(update_fields=["role"])
        locked.accepted_at, locked.accepted_by = timezone.now(), joining
        locked.save(update_fields=["accepted_at", "accepted_by"])
        _revoke_open_invitations(invitation.employer, invitation.email)  # the others sent
        record(
            joining.username,
            "organization.join",
            "employer",
            invitation.employer_id,
            {"invitation": invitation.pk, "role": invitation.role, "user": joining.pk},
        )
    return joining


@audited_refusals_of("employer", action="organization.set_role")
def set_member_role(user: User, employer: Employer, membership_id: int, role: str) -> Membership:
    """Make a colleague an administrator or a member (administrators only; never the last
    administrator a member)."""
    _require_admin(user, employer, "organization.set_role")
    if role not in OrganizationRole.values:
        raise bad_input(
            [
                problem(
                    "role", "must be administrator or member", "doit être administrateur ou membre"
                )
            ]
        )
    with transaction.atomic():
        membership = _locked_membership(user, employer, membership_id, "organization.set_role")
        before = membership.role
        if before == OrganizationRole.ADMIN and role != OrganizationRole.ADMIN:
            _keep_an_administrator(user, employer, membership, "organization.set_role")
        membership.role = role
        membership.save(update_fields=["role"])
        summary = {"user": membership.user_id, "from": before, "to": role}
        record(user.username, "organization.set_role", "employer", employer.pk, summary)
    return membership


@audited_refusals_of("employer", action="organization.remove")
def remove_member(user: User, employer: Employer, membership_id: int) -> None:
    """Remove a colleague (administrators), or leave (anyone): never the last administrator."""
    with transaction.atomic():
        membership = _locked_membership(user, employer, membership_id, "organization.remove")
        if membership.user_id != user.pk:
            _require_admin(user, employer, "organization.remove")
        if membership.role == OrganizationRole.ADMIN:
            _keep_an_administrator(user, employer, membership, "organization.remove")
        summary = {"user": membership.user_id, "role": membership.role}
        membership.delete()
        summary["invitations_revoked"] = _revoke_open_invitations(employer, membership.user.email)
        record(user.username, "organization.remove", "employer", employer.pk, summary)


def _revoke_open_invitations(employer: Employer, email: str) -> int:
    """Cancel the invitations to `email` still open for `employer`: an invitation sent before a
    person joined or was removed never (re)admits them, nor changes the role they were given."""
    if not email:
        return 0
    return OrganizationInvitation.objects.filter(
        employer=employer,
        email__iexact=email,
        accepted_at__isnull=True,
        revoked_at__isnull=True,
    ).update(revoked_at=timezone.now())


def _locked_membership(
    user: User, employer: Employer, membership_id: int, action: str
) -> Membership:
    """The membership, with every membership of the organization locked: two administrators
    removing each other at the same moment cannot leave it with none."""
    rows = list(Membership.objects.select_for_update().filter(employer=employer).order_by("pk"))
    found = next((m for m in rows if m.pk == membership_id), None)
    if found is None:
        raise ServiceError(404, "NOT_FOUND", "No such member.", "Aucun membre de ce genre.")
    return found


def _keep_an_administrator(
    user: User, employer: Employer, leaving: Membership, action: str
) -> None:
    others = Membership.objects.filter(
        employer=employer, role=OrganizationRole.ADMIN, user__is_active=True
    ).exclude(pk=leaving.pk)
    if not others.exists():
        raise ServiceError(
            409,
            "LAST_ADMINISTRATOR",
            "An organization must keep an administrator: make someone else an administrator first.",
            "Une organisation doit garder un administrateur : nommez d'abord quelqu'un "
            "d'autre administrateur.",
        )


def _require_admin(user: User, employer: Employer, action: str) -> None:
    if not is_admin(user, employer):
        raise forbidden(
            "NOT_AN_ADMINISTRATOR",
            "Only an administrator of the organization can do this.",
            "Seul un administrateur de l'organisation peut faire cela.",
        )


# --- Shared --------------------------------------------------------------------------------


def _text(value: Any, limit: int) -> str:
    text = value.strip() if isinstance(value, str) else ""
    return text if len(text) <= limit and "\x00" not in text else ""


def clean_email(value: Any) -> str:
    email = value.strip().lower() if isinstance(value, str) else ""
    if not email or len(email) > MAX_EMAIL:
        return ""
    try:
        validate_email(email)
    except ValidationError:
        return ""
    return email


def _required(key: str, limit: int) -> dict[str, str]:
    return problem(
        key,
        f"is required ({limit} characters at most)",
        f"est obligatoire ({limit} caractères au plus)",
    )


def _refuse_taken_email(email: str) -> None:
    """Accepting an invitation (the address is the invitation's, known to the person): an
    address with an account already signs in instead."""
    if account_with_email(email) is not None:
        raise ServiceError(
            409,
            "EMAIL_TAKEN",
            "An account with this email address already exists: sign in with it.",
            "Un compte existe déjà avec cette adresse courriel : connectez-vous avec celui-ci.",
            problems=[problem("email", "already has an account", "a déjà un compte")],
        )
