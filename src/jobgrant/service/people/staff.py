"""Staff accounts, managed by the administrator role: officers, finance officers, analysts and
auditors, with their jurisdiction and affiliations (organizations they are tied to: a conflict
of interest that forbids acting on those files), deactivated and reactivated.

Every change is one transaction with its audit entry (before and after). Nobody changes their
own account's role, jurisdiction or affiliations, nor deactivates themselves, and the
administrator role is not given here: nobody can grant themselves a role through these pages.
A new account gets a single-use link (through the outbox) to choose its password; until then
it has none. A deactivated user is refused by Django at once, and for good: every session they
have ends (the account's session epoch is raised, so the sessions' hash never matches again) and
every API token is deleted, and one issued in a request racing the deactivation was issued under
the old epoch, so it never opens anything either (User.save, ApiToken.user_for); a reactivated
account signs in afresh and asks for new tokens.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.service.accounts.models import ApiToken, LinkPurpose, Membership, Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import ServiceError, bad_input, forbidden, problem
from jobgrant.service.language import in_both_languages, language_of
from jobgrant.service.links import page_link
from jobgrant.service.notifications.outbox import enqueue
from jobgrant.service.people import account_links
from jobgrant.service.people.access import STAFF_ROLES, require_administrator
from jobgrant.service.people.email_change import taken_problem
from jobgrant.service.people.organizations import clean_email, password_problems
from jobgrant.service.registry.identifiers import normalize_business_number
from jobgrant.service.registry.models import Employer

MAX_AFFILIATIONS = 50
Problems = list[dict[str, str]]


def staff_accounts() -> list[User]:
    return list(User.objects.filter(role__in=STAFF_ROLES).order_by("username"))


@audited_refusals_of("user", action="staff.create")
def create_staff(admin: User, data: dict[str, Any]) -> User:
    """A staff account with no password yet: a link to choose one is sent to its address."""
    require_administrator(admin)
    problems: Problems = []  # every field's problem at once
    username, email = _valid_identity(data, problems)
    fields, affiliations = _valid_account(data, problems), _valid_affiliations(data, problems)
    if problems:
        raise bad_input(problems)
    try:
        with transaction.atomic():
            user = User(username=username, email=email, **fields)
            user.set_unusable_password()
            user.save()
            _set_affiliations(user, affiliations)
            _send_setup_link(user)
            record(admin.username, "staff.create", "user", user.pk, _summary(user, affiliations))
    except IntegrityError:  # the name or the address taken a moment ago, by another request
        raise bad_input(_taken(username, email)) from None
    return user


@audited_refusals_of("user", action="staff.change")
def change_staff(admin: User, user: User, data: dict[str, Any]) -> User:
    """Change a staff account's role, jurisdiction, SIN permission and affiliations."""
    require_administrator(admin)
    _refuse_self(admin, user)
    problems: Problems = []  # every field's problem at once
    fields, affiliations = _valid_account(data, problems), _valid_affiliations(data, problems)
    if problems:
        raise bad_input(problems)
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        before = _summary(locked, list(locked.employers.all()))
        for name, value in fields.items():
            setattr(locked, name, value)
        locked.save(update_fields=list(fields))
        _set_affiliations(locked, affiliations)
        after = _summary(locked, affiliations)
        record(
            admin.username, "staff.change", "user", locked.pk, {"before": before, "after": after}
        )
    return locked


@audited_refusals_of("user", action="staff.deactivate")
def deactivate_staff(admin: User, user: User) -> User:
    return _set_active(admin, user, active=False)


@audited_refusals_of("user", action="staff.reactivate")
def reactivate_staff(admin: User, user: User) -> User:
    return _set_active(admin, user, active=True)


def _set_active(admin: User, user: User, *, active: bool) -> User:
    require_administrator(admin)
    _refuse_self(admin, user)
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        locked.is_active = active
        summary: dict[str, Any] = {"role": locked.role}
        if not active:  # for good: a reactivated account signs in afresh, asks for new tokens
            summary["tokens_revoked"] = ApiToken.objects.filter(user=locked).count()
        locked.save(update_fields=["is_active"])  # deactivated: User.save ends them all
        action = "staff.reactivate" if active else "staff.deactivate"
        record(admin.username, action, "user", locked.pk, summary)
    return locked


# --- Choosing the password of a new account -------------------------------------------------


def setup_user(token: str) -> User | None:
    """The new staff account a set-up link is for, if the link works and the account is still
    active and without a password."""
    user = account_links.holder(LinkPurpose.STAFF_SETUP, token)
    return user if user is not None and awaits_setup(user) else None


def complete_setup(token: str, password: str, again: str) -> User:
    user = setup_user(token)
    if user is None:
        raise account_links.not_working()
    problems = (
        password_problems(password, user)
        if password
        else [problem("password", "is required", "est obligatoire")]
    )
    if again != password:
        problems.append(
            problem(
                "password_again",
                "must be the same password typed again",
                "doit être le même mot de passe, tapé de nouveau",
            )
        )
    if problems:
        raise bad_input(problems)
    with transaction.atomic():
        if account_links.spend(LinkPurpose.STAFF_SETUP, token) != user:
            raise account_links.not_working()  # used a moment ago, in another request
        user.set_password(password)
        user.save(update_fields=["password"])
        record(user.username, "staff.setup", "user", user.pk, {})
    return user


def awaits_setup(user: User) -> bool:
    """An active staff account whose owner has not chosen a password yet (invited)."""
    return user.role in STAFF_ROLES and user.is_active and not user.has_usable_password()


def _send_setup_link(user: User) -> None:
    token = account_links.issue(user, LinkPurpose.STAFF_SETUP)
    language = language_of(user)
    link = page_link("web:account-setup", language, token=token)
    enqueue(
        "staff_account_setup",
        subject=user,
        to=user.email,
        language=language,
        context={"link": link, "username": user.username},
    )


# --- Checks ------------------------------------------------------------------------------------


def _refuse_self(admin: User, user: User) -> None:
    if admin.pk == user.pk:
        raise forbidden(
            "OWN_ACCOUNT",
            "Nobody changes their own account's role, jurisdiction or status: ask another "
            "administrator.",
            "Personne ne modifie le rôle, la compétence ou l'état de son propre compte : "
            "demandez-le à un autre administrateur.",
        )
    if user.role not in STAFF_ROLES:
        raise ServiceError(404, "NOT_FOUND", "No such staff account.", "Aucun compte de ce genre.")


def _valid_identity(data: dict[str, Any], problems: Problems) -> tuple[str, str]:
    """The username and address; their problems are added to `problems`."""
    raw = data.get("username")
    username = raw.strip() if isinstance(raw, str) else ""
    well_formed = 0 < len(username) <= 150 and all(c.isalnum() or c in "@.+-_" for c in username)
    if not well_formed:
        problems.append(
            problem(
                "username",
                "must be 1 to 150 letters, digits or @ . + - _",
                "doit compter de 1 à 150 lettres, chiffres ou @ . + - _",
            )
        )
    email = clean_email(data.get("email"))
    if not email:
        problems.append(
            problem("email", "must be an email address", "doit être une adresse courriel")
        )
    problems += _taken(username if well_formed else "", email)
    return username, email


def _taken(username: str, email: str) -> Problems:
    """The username's and the address's problems if another account has them (any case)."""
    found: Problems = []
    if username and User.objects.filter(username__iexact=username).exists():
        found.append(problem("username", "is already taken", "est déjà pris"))
    if email and User.objects.filter(Q(email__iexact=email) | Q(username__iexact=email)).exists():
        found.append(taken_problem())
    return found


def _valid_account(data: dict[str, Any], problems: Problems) -> dict[str, Any]:
    """The account's role, jurisdiction and settings; their problems are added to `problems`."""
    role = data.get("role")
    if role not in STAFF_ROLES:
        english, french = in_both_languages(
            lambda: ", ".join(str(Role(code).label) for code in STAFF_ROLES)
        )
        problems.append(
            problem(
                "role",
                f"must be one of: {english}",
                f"doit être l'un de ces rôles\u00a0: {french}",
            )
        )
    jurisdiction = data.get("jurisdiction") or ""
    if jurisdiction not in ("", *JURISDICTION_CODES):
        problems.append(
            problem(
                "jurisdiction",
                "is not a province or territory",
                "n'est pas une province ou un territoire",
            )
        )
    federal = data.get("federal") is True
    if role == Role.OFFICER and not federal and not jurisdiction:
        problems.append(
            problem(
                "jurisdiction",
                "is required for a provincial or territorial officer",
                "est obligatoire pour un agent provincial ou territorial",
            )
        )
    if role == Role.PROGRAM_MANAGER and not federal and not jurisdiction:
        problems.append(
            problem(
                "jurisdiction",
                "is required for a provincial or territorial program manager",
                "est obligatoire pour un gestionnaire de programme provincial ou territorial",
            )
        )
    names = {key: str(data.get(key) or "").strip()[:150] for key in ("first_name", "last_name")}
    language = data.get("language") if data.get("language") in ("en", "fr") else "en"
    return {
        "role": role,
        "jurisdiction": jurisdiction,
        "federal": federal,
        "may_view_sin": data.get("may_view_sin") is True,
        "preferred_language": language,
        **names,
    }


def _valid_affiliations(data: dict[str, Any], problems: Problems) -> list[Employer]:
    """The employers named; the problems are added to `problems`."""
    raw = data.get("affiliations") or []
    if not isinstance(raw, list) or len(raw) > MAX_AFFILIATIONS:
        problems.append(
            problem(
                "affiliations",
                f"must list at most {MAX_AFFILIATIONS} business numbers",
                f"doit énumérer au plus {MAX_AFFILIATIONS} numéros d'entreprise",
            )
        )
        return []
    found: list[Employer] = []
    for typed in raw:
        bn = normalize_business_number(str(typed)) if str(typed).strip() else None
        employer = Employer.objects.filter(business_number=bn).first() if bn else None
        if employer is None:
            problems.append(
                problem(
                    "affiliations",
                    f"{str(typed)[:20]} is not a registered employer's business number",
                    f"{str(typed)[:20]} n'est pas le numéro d'entreprise d'un employeur inscrit",
                )
            )
        elif employer not in found:
            found.append(employer)
    return found


def _set_affiliations(user: User, affiliations: list[Employer]) -> None:
    Membership.objects.filter(user=user).exclude(employer__in=affiliations).delete()
    for employer in affiliations:
        Membership.objects.get_or_create(user=user, employer=employer)


def _summary(user: User, affiliations: list[Employer]) -> dict[str, Any]:
    return {
        "role": user.role,
        "jurisdiction": user.jurisdiction,
        "federal": user.federal,
        "may_view_sin": user.may_view_sin,
        "affiliations": sorted(e.pk for e in affiliations),
        "active": user.is_active,
    }
