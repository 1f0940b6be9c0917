"""Registering an organization, confirming the email by its link, inviting colleagues, roles,
and the rule that an organization always keeps an administrator (grants.organization_actions)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import authenticate
from django.test import Client, RequestFactory
from tests.conftest import token_for
from tests.personas import APPLICANT, EMPLOYER, PARTNER, PARTNER_EMPLOYER

from jobgrant.service.accounts.models import (
    EmailVerification,
    Membership,
    OrganizationInvitation,
    OrganizationRole,
    Role,
    User,
)
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.notifications.models import Message
from jobgrant.service.people import organizations
from jobgrant.service.registry.models import Employer

pytestmark = pytest.mark.django_db
LINK = re.compile(r"https?://\S+")
BN = "123456782"  # a valid BN9 (stdnum's example)


def registration(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "Northern Lights Welding Ltd.",
        "business_number": BN,
        "street_address": "12 Rue Principale",
        "city": "Sudbury",
        "jurisdiction": "ON",
        "postal_code": "p3e 1a1",
        "phone": "(705) 555-0131",
        "naics": "332710",
        "employees": 25,
        "first_name": "Ada",
        "last_name": "Tremblay",
        "email": "Ada@Example.com",
        "password": "welding-sparks-over-sudbury",
        "password_again": "welding-sparks-over-sudbury",
    }
    data.update(changes)
    return data


def link_of(kind: str, to: str) -> str:
    message = Message.objects.filter(kind=kind, recipient=to).latest("pk")
    found = LINK.search(message.body)
    assert found, message.body
    return found[0]


def path_parts(link: str) -> list[str]:
    return [part for part in link.split("/") if part]


# --- Registering and confirming the address --------------------------------------------------


def test_registering_makes_the_organization_and_an_inactive_administrator(demo: None) -> None:
    user = organizations.register_organization(registration(), language="fr")
    employer = Employer.objects.get(business_number=BN)
    assert (employer.name, employer.postal_code, employer.city, employer.phone) == (
        "Northern Lights Welding Ltd.",
        "P3E 1A1",
        "Sudbury",
        "705-555-0131",  # typed "(705) 555-0131"
    )
    assert user.username == user.email == "ada@example.com"
    assert not user.is_active and user.role == Role.EMPLOYER
    assert Membership.objects.get(user=user, employer=employer).role == OrganizationRole.ADMIN
    message = Message.objects.get(kind="email_verification", recipient="ada@example.com")
    assert message.language == "fr" and "Confirmez votre adresse courriel" in message.subject_line
    assert "/fr/inscription/verifier/" in message.body
    entry = AuditEntry.objects.filter(action="organization.register").latest("pk")
    assert entry.object_id == str(employer.pk)
    assert "password" not in str(entry.summary)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"business_number": "123456789"}, "business_number"),  # wrong check digit
        ({"postal_code": "V6B 1A1"}, "postal_code"),  # British Columbia's, not Ontario's
        ({"postal_code": "12345"}, "postal_code"),
        ({"naics": "999999"}, "naics"),
        ({"employees": 0}, "employees"),
        ({"name": ""}, "name"),
        ({"city": "x" * 101}, "city"),
        ({"phone": ""}, "phone"),
        ({"phone": "555-0131"}, "phone"),  # 7 digits: the area code is missing
        ({"email": "not-an-address"}, "email"),
        ({"password_again": "something-else-entirely"}, "password_again"),
        ({"password": "short", "password_again": "short"}, "password"),
        ({"jurisdiction": "ZZ"}, "jurisdiction"),
    ],
)
def test_bad_input_is_named_in_both_languages_and_nothing_is_written(
    demo: None, changes: dict[str, Any], field: str
) -> None:
    users, employers = User.objects.count(), Employer.objects.count()
    with pytest.raises(ServiceError) as refused:
        organizations.register_organization(registration(**changes), language="en")
    assert refused.value.status == 422
    named = {p["field"]: p for p in refused.value.problems}
    assert field in named
    assert named[field]["message_en"] and named[field]["message_fr"]
    assert (User.objects.count(), Employer.objects.count()) == (users, employers)
    assert not Message.objects.filter(kind="email_verification").exists()


def test_a_registered_business_number_or_address_is_not_said_but_told_by_email(
    demo: None,
) -> None:
    """The same None (the page's "check your email") as a new registration; no account made;
    the people concerned are told through the outbox."""
    users, employers = User.objects.count(), Employer.objects.count()
    applicant = Employer.objects.get(business_number=APPLICANT.business_number)
    assert (
        organizations.register_organization(
            registration(business_number=APPLICANT.business_number), language="fr"
        )
        is None
    )
    told = Message.objects.get(kind="registration_organization_exists")
    assert told.recipient == "ada@example.com" and told.language == "fr"
    assert applicant.name not in told.body  # the number is known to them; the name is not said
    admins = set(
        Membership.objects.filter(employer=applicant, role=OrganizationRole.ADMIN).values_list(
            "user__email", flat=True
        )
    )
    asked = Message.objects.filter(kind="registration_organization_asked")
    assert admins and {m.recipient for m in asked} == {a.lower() for a in admins}
    assert all("“Ada Tremblay” (ada@example.com)" in m.body for m in asked)
    owner = EMPLOYER.get()
    assert (
        organizations.register_organization(registration(email=owner.email), language="en") is None
    )
    warned = Message.objects.get(kind="registration_account_exists")
    assert warned.recipient == owner.email.lower() and owner.username in warned.body
    assert (User.objects.count(), Employer.objects.count()) == (users, employers)
    assert not Message.objects.filter(kind="email_verification").exists()


def signing_in() -> Any:
    """A sign-in's request: django-axes counts every attempt by its address."""
    return RequestFactory().post("/en/sign-in/")


def test_the_link_confirms_the_address_once(demo: None) -> None:
    user = organizations.register_organization(registration(), language="en")
    token = path_parts(link_of("email_verification", "ada@example.com"))[-1]
    assert (
        authenticate(signing_in(), username=user.username, password=registration()["password"])
        is None
    )
    organizations.verify_email(token)
    user.refresh_from_db()
    assert user.is_active
    assert EmailVerification.objects.get(user=user).verified_at is not None
    assert (
        authenticate(signing_in(), username=user.username, password=registration()["password"])
        == user
    )
    with pytest.raises(ServiceError) as again:
        organizations.verify_email(token)
    assert again.value.code == "LINK_NOT_VALID"


def test_a_made_up_or_altered_link_confirms_nothing(demo: None) -> None:
    user = organizations.register_organization(registration(), language="en")
    token = path_parts(link_of("email_verification", "ada@example.com"))[-1]
    for bad_token in [token[:-1] + "x", token[1:], "1-1", "", "x" * 200]:
        assert organizations.verification_user(bad_token) is None
    user.refresh_from_db()
    assert not user.is_active


def test_an_unverified_user_cannot_act_on_the_pages_or_the_api(demo: None) -> None:
    user = organizations.register_organization(registration(), language="en")
    client = Client()
    answer = client.post(
        "/en/sign-in/", {"username": user.username, "password": registration()["password"]}
    )
    assert answer.status_code == 200
    assert "Confirm your email address first" in answer.content.decode()
    assert Message.objects.filter(kind="email_verification", recipient=user.email).count() == 2
    assert client.get("/en/employer/").status_code == 302
    token = client.post(
        "/api/v1/auth/token",
        {"username": user.username, "password": registration()["password"]},
        content_type="application/json",
    )
    assert token.status_code == 401
    wrong = client.post("/en/sign-in/", {"username": user.username, "password": "not-it"})
    assert "Confirm your email" not in wrong.content.decode()  # only the right password learns
    assert Message.objects.filter(kind="email_verification", recipient=user.email).count() == 2


# --- Invitations ------------------------------------------------------------------------------


def invite(by: User, employer: Employer, email: str, role: str = "member") -> str:
    organizations.invite_colleague(by, employer, {"email": email, "role": role, "language": "en"})
    return path_parts(link_of("organization_invitation", email))[-1]


def test_an_invited_colleague_makes_an_account_and_joins_with_the_role(demo: None) -> None:
    token = invite(EMPLOYER.get(), APPLICANT.get(), "new.colleague@example.com", "admin")
    joined = organizations.accept_invitation(
        token,
        data={
            "first_name": "Bo",
            "last_name": "Chen",
            "password": "a-long-enough-passphrase",
            "password_again": "a-long-enough-passphrase",
        },
    )
    assert joined.is_active and joined.email == "new.colleague@example.com"
    membership = Membership.objects.get(user=joined, employer=APPLICANT.get())
    assert membership.role == OrganizationRole.ADMIN
    assert OrganizationInvitation.objects.get(accepted_by=joined).accepted_at is not None
    with pytest.raises(ServiceError):
        organizations.accept_invitation(token, user=joined)  # single use


def test_a_removed_member_cannot_rejoin_with_an_invitation_sent_before(demo: None) -> None:
    admin, employer = EMPLOYER.get(), APPLICANT.get()
    colleague = PARTNER_EMPLOYER.get()
    first = invite(admin, employer, colleague.email)
    second = invite(admin, employer, colleague.email)
    organizations.accept_invitation(first, user=colleague)
    joined = Membership.objects.get(user=colleague, employer=employer)
    organizations.remove_member(admin, employer, joined.pk)
    with pytest.raises(ServiceError) as refused:
        organizations.accept_invitation(second, user=colleague)
    assert refused.value.code == "LINK_NOT_VALID"
    assert not Membership.objects.filter(user=colleague, employer=employer).exists()
    again = invite(admin, employer, colleague.email)  # an invitation sent after the removal works
    organizations.accept_invitation(again, user=colleague)
    assert Membership.objects.filter(user=colleague, employer=employer).exists()


def test_two_invitations_never_leave_an_organization_without_an_administrator(
    demo: None,
) -> None:
    admin, employer = PARTNER_EMPLOYER.get(), PARTNER.get()
    Membership.objects.filter(employer=employer).exclude(user=admin).delete()
    as_admin = invite(admin, employer, "bo@example.com", "admin")
    as_member = invite(admin, employer, "bo@example.com", "member")
    body = {"first_name": "Bo", "last_name": "Chen", "password": "a-long-enough-passphrase"}
    bo = organizations.accept_invitation(
        as_admin, data={**body, "password_again": body["password"]}
    )
    organizations.remove_member(admin, employer, Membership.objects.get(user=admin).pk)
    with pytest.raises(ServiceError):  # the other invitation died when the first was used
        organizations.accept_invitation(as_member, user=bo)
    assert Membership.objects.get(user=bo, employer=employer).role == OrganizationRole.ADMIN


def test_a_signed_in_user_joins_a_second_organization(demo: None) -> None:
    partner_only = PARTNER_EMPLOYER.get()
    token = invite(EMPLOYER.get(), APPLICANT.get(), partner_only.email)
    organizations.accept_invitation(token, user=partner_only)
    names = sorted(m.employer.name for m in organizations.memberships_of(partner_only))
    assert names == sorted([APPLICANT.name, PARTNER.name])


def test_an_invitation_is_for_the_address_it_was_sent_to(demo: None) -> None:
    token = invite(EMPLOYER.get(), APPLICANT.get(), "someone@example.com")
    with pytest.raises(ServiceError) as refused:
        organizations.accept_invitation(token, user=PARTNER_EMPLOYER.get())
    assert refused.value.code == "NOT_THE_INVITED_ADDRESS"


def test_only_an_administrator_invites_and_a_refusal_is_audited(demo: None) -> None:
    member = User.objects.create_user("a-member", email="m@example.com", role=Role.EMPLOYER)
    Membership.objects.create(user=member, employer=APPLICANT.get(), role="member")
    with pytest.raises(ServiceError) as refused:
        invite(member, APPLICANT.get(), "x@example.com")
    assert refused.value.status == 403
    entry = AuditEntry.objects.latest("pk")
    assert (entry.actor, entry.action) == ("a-member", "refused.organization.invite")
    assert not OrganizationInvitation.objects.exists()


def test_a_cancelled_invitation_no_longer_opens_and_is_audited(demo: None) -> None:
    admin, employer = EMPLOYER.get(), APPLICANT.get()
    token = invite(admin, employer, "not.after.all@example.com")
    invitation = OrganizationInvitation.objects.get(email="not.after.all@example.com")
    assert organizations.pending_invitations(employer) == [invitation]
    assert organizations.open_invitation(token) is not None
    organizations.revoke_invitation(admin, employer, invitation.pk)
    assert organizations.open_invitation(token) is None
    assert organizations.pending_invitations(employer) == []
    entry = AuditEntry.objects.latest("pk")
    assert (entry.actor, entry.action) == (admin.username, "organization.revoke_invitation")
    with pytest.raises(ServiceError) as refused:
        organizations.accept_invitation(token, user=PARTNER_EMPLOYER.get())
    assert refused.value.status == 404
    with pytest.raises(ServiceError) as again:
        organizations.revoke_invitation(admin, employer, invitation.pk)
    assert (again.value.status, again.value.code) == (409, "INVITATION_NOT_OPEN")


def test_only_an_administrator_of_that_organization_cancels_an_invitation(demo: None) -> None:
    employer = APPLICANT.get()
    invite(EMPLOYER.get(), employer, "stays.invited@example.com")
    invitation = OrganizationInvitation.objects.get(email="stays.invited@example.com")
    member = User.objects.create_user("a-member", email="m@example.com", role=Role.EMPLOYER)
    Membership.objects.create(user=member, employer=employer, role="member")
    with pytest.raises(ServiceError) as refused:
        organizations.revoke_invitation(member, employer, invitation.pk)
    assert refused.value.status == 403
    entry = AuditEntry.objects.latest("pk")
    assert (entry.actor, entry.action) == ("a-member", "refused.organization.revoke_invitation")
    with pytest.raises(ServiceError) as elsewhere:  # Lakeshore's administrator, Acme's invitation
        organizations.revoke_invitation(PARTNER_EMPLOYER.get(), PARTNER.get(), invitation.pk)
    assert elsewhere.value.status == 404
    assert OrganizationInvitation.objects.get(pk=invitation.pk).revoked_at is None


# --- Roles, and the last administrator ---------------------------------------------------------


def test_the_last_administrator_can_neither_leave_nor_be_made_a_member(demo: None) -> None:
    admin = PARTNER_EMPLOYER.get()
    employer = PARTNER.get()
    Membership.objects.filter(employer=employer).exclude(user=admin).update(role="member")
    own = Membership.objects.get(user=admin, employer=employer)
    for attempt in (
        lambda: organizations.remove_member(admin, employer, own.pk),
        lambda: organizations.set_member_role(admin, employer, own.pk, "member"),
    ):
        with pytest.raises(ServiceError) as refused:
            attempt()
        assert (refused.value.status, refused.value.code) == (409, "LAST_ADMINISTRATOR")
    assert Membership.objects.get(pk=own.pk).role == OrganizationRole.ADMIN
    assert AuditEntry.objects.filter(action="refused.organization.remove").exists()


def test_an_administrator_promotes_a_colleague_then_may_leave(demo: None) -> None:
    admin, employer = PARTNER_EMPLOYER.get(), PARTNER.get()
    other = Membership.objects.get(user=EMPLOYER.get(), employer=employer)
    Membership.objects.filter(pk=other.pk).update(role="member")
    organizations.set_member_role(admin, employer, other.pk, "admin")
    own = Membership.objects.get(user=admin, employer=employer)
    organizations.remove_member(admin, employer, own.pk)
    assert not Membership.objects.filter(pk=own.pk).exists()
    assert AuditEntry.objects.filter(action="organization.set_role").exists()
    assert AuditEntry.objects.filter(action="organization.remove").exists()


def test_a_member_may_leave_but_not_remove_others(demo: None) -> None:
    employer = APPLICANT.get()
    member = User.objects.create_user("member-2", email="m2@example.com", role=Role.EMPLOYER)
    mine = Membership.objects.create(user=member, employer=employer, role="member")
    theirs = Membership.objects.get(user=EMPLOYER.get(), employer=employer)
    with pytest.raises(ServiceError) as refused:
        organizations.remove_member(member, employer, theirs.pk)
    assert refused.value.status == 403
    organizations.remove_member(member, employer, mine.pk)
    assert not Membership.objects.filter(pk=mine.pk).exists()


def test_two_administrators_removing_each_other_leave_one(demo: None) -> None:
    employer = PARTNER.get()
    first, second = PARTNER_EMPLOYER.get(), EMPLOYER.get()
    a = Membership.objects.get(user=first, employer=employer)
    b = Membership.objects.get(user=second, employer=employer)
    organizations.remove_member(first, employer, b.pk)
    with pytest.raises(ServiceError):
        organizations.remove_member(second, employer, a.pk)  # no longer a member at all
    assert list(Membership.objects.filter(employer=employer, role="admin")) == [a]


def test_api_tokens_of_an_employer_keep_working_across_organizations(demo: None) -> None:
    """A user in two organizations lists both through the API."""
    client = Client()
    answer = client.get(
        "/api/v1/employers", headers={"Authorization": f"Bearer {token_for(EMPLOYER)}"}
    )
    assert sorted(e["name"] for e in answer.json()) == sorted([APPLICANT.name, PARTNER.name])


def test_every_problem_of_a_registration_is_named_at_once(demo: None) -> None:
    """The organization's fields and the person's are checked together: one answer names them
    all, not the organization's first and the person's after they are fixed."""
    bad = registration(business_number="123", first_name="", password_again="other")
    with pytest.raises(ServiceError) as caught:
        organizations.register_organization(bad, language="en")
    fields = {p["field"] for p in caught.value.problems}
    assert {"business_number", "first_name", "password_again"} <= fields


def test_a_postal_code_of_another_province_names_the_province_in_words(demo: None) -> None:
    with pytest.raises(ServiceError) as caught:
        organizations.register_organization(
            registration(jurisdiction="NS", postal_code="P3E 1A1"), language="en"
        )
    (found,) = [p for p in caught.value.problems if p["field"] == "postal_code"]
    assert found["message_en"] == "is not a postal code of Nova Scotia"
    assert found["message_fr"] == "n'est pas un code postal de la Nouvelle-Écosse"
