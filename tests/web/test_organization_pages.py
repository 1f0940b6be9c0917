"""The pages of registration, email confirmation, invitations and an organization's people, in
English and French: each refuses bad input with the error summary, naming the field, and writes
nothing; irreversible steps ask first."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.personas import APPLICANT, EMPLOYER, PARTNER_EMPLOYER

from jobgrant.service.accounts.models import Membership, OrganizationInvitation, User
from jobgrant.service.notifications.models import Message
from jobgrant.service.registry.models import Employer

pytestmark = pytest.mark.django_db
LINK = re.compile(r"https?://[^/\s]+(/\S+)")


def typed(**changes: str) -> dict[str, str]:
    data = {
        "name": "Prairie Bakery Co-op",
        "business_number": "123456782",
        "street_address": "400 Broadway Avenue",
        "city": "Saskatoon",
        "jurisdiction": "SK",
        "postal_code": "S7N 1A1",
        "phone": "306-555-0130",
        "naics": "311811",
        "employees": "14",
        "first_name": "Marie",
        "last_name": "Gagnon",
        "email": "marie@example.com",
        "password": "flour-and-butter-at-dawn",
        "password_again": "flour-and-butter-at-dawn",
    }
    data.update(changes)
    return data


def path_in(kind: str, to: str) -> str:
    body = Message.objects.filter(kind=kind, recipient=to).latest("pk").body
    found = LINK.search(body)
    assert found, body
    return found[1]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_registering_then_confirming_by_the_link(demo: None, language: str) -> None:
    client = Client()
    assert client.get(page_path(language, "/register/")).status_code == 200
    answer = client.post(page_path(language, "/register/"), typed())
    assert answer.status_code == 302 and answer["Location"] == page_path(
        language, "/register/sent/"
    )
    link = path_in("email_verification", "marie@example.com")
    assert link.startswith(page_path(language, "/register/verify/TOKEN/").removesuffix("TOKEN/"))
    asked = client.get(link)
    assert asked.status_code == 200 and 'id="confirm-email"' in asked.content.decode()
    assert not User.objects.get(email="marie@example.com").is_active  # a GET changes nothing
    confirmed = client.post(link)
    assert confirmed.status_code == 302
    assert User.objects.get(email="marie@example.com").is_active
    assert client.get(link).status_code == 404  # the link works once
    assert client.login(username="marie@example.com", password="flour-and-butter-at-dawn")
    employer = Employer.objects.get(business_number="123456782")
    assert employer.phone == "306-555-0130"
    page = client.get(page_path(language, f"/employer/organizations/{employer.pk}/"))
    shown = page.content.decode().replace("\u00a0", " ")
    assert {"en": "Telephone: 306-555-0130", "fr": "Téléphone : 306-555-0130"}[language] in shown


@pytest.mark.parametrize(
    ("language", "changes", "expected"),
    [
        ("en", {"postal_code": "M5V 2T6"}, "Postal code: is not a postal code of Saskatchewan"),
        (
            "fr",
            {"postal_code": "M5V 2T6"},
            "Code postal : n'est pas un code postal de la Saskatchewan",
        ),
        ("en", {"business_number": "123456789"}, "Business number: must be a 9-digit"),
        ("en", {"naics": "12"}, "Industry (NAICS code): must be a 6-digit"),
        ("fr", {"password_again": "x"}, "Tapez de nouveau le mot de passe : doit être le même"),
        ("en", {"phone": "555-0130"}, "Organization's telephone number: must be a telephone"),
        (
            "fr",
            {"phone": ""},
            "Numéro de téléphone de l'organisation : doit être un numéro de téléphone",
        ),
    ],
)
def test_bad_input_shows_the_summary_and_writes_nothing(
    demo: None, language: str, changes: dict[str, str], expected: str
) -> None:
    employers = Employer.objects.count()
    answer = Client().post(page_path(language, "/register/"), typed(**changes))
    page = answer.content.decode().replace("\u00a0", " ").replace("\u202f", " ")
    assert answer.status_code == 422
    assert "gcds-error-summary" in page and expected in page.replace("&#x27;", "'")
    assert Employer.objects.count() == employers
    assert not User.objects.filter(email="marie@example.com").exists()


def _answer(client: Client, language: str, data: dict[str, str]) -> tuple[Any, ...]:
    """What a registrant sees: the answer to the form (status, where it sends, the headers
    that could differ) and the page it leads to."""
    answer = client.post(page_path(language, "/register/"), data)
    shown = client.get(answer["Location"]) if answer.status_code == 302 else answer
    # The date, and the request's id (made afresh for every request: X-Request-ID) differ anyway.
    headers = sorted((k, v) for k, v in answer.items() if k.lower() not in {"date", "x-request-id"})
    body = re.sub(  # the CSRF token is masked afresh in every answer
        r'(name="csrfmiddlewaretoken" value=|"X-CSRFToken": )"[^"]+"', "", shown.content.decode()
    ).replace(data["email"], "(the address typed)")  # named back to who typed it: no clue
    return answer.status_code, headers, shown.status_code, body


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_registered_business_number_or_address_gets_the_same_pages_as_a_new_one(
    demo: None, language: str
) -> None:
    """Indistinguishable: a new organization, one whose business number is registered, and a
    person whose address has an account all get the same answer and the same next page."""
    users = User.objects.count()
    taken_number = _answer(
        Client(), language, typed(business_number=APPLICANT.business_number, email="x@example.com")
    )
    taken_email = _answer(Client(), language, typed(email=EMPLOYER.get().email))
    new = _answer(Client(), language, typed())
    assert taken_number == taken_email == new
    assert new[0] == 302 and new[2] == 200
    assert User.objects.count() == users + 1  # only the new one made an account
    assert Message.objects.filter(kind="registration_account_exists").count() == 1
    assert Message.objects.filter(kind="registration_organization_exists").count() == 1


def test_an_administrator_invites_from_the_members_page(demo: None) -> None:
    client = Client()
    client.force_login(EMPLOYER.get())
    employer = APPLICANT.get()
    page = client.get(f"/fr/employeur/organisations/{employer.pk}/")
    assert page.status_code == 200 and 'id="invite-form"' in page.content.decode()
    bad = client.post(
        f"/en/employer/organizations/{employer.pk}/", {"email": "x", "role": "member"}
    )
    assert bad.status_code == 422
    sent = client.post(
        f"/en/employer/organizations/{employer.pk}/",
        {"email": "colleague@example.com", "role": "member", "language": "fr"},
    )
    assert sent.status_code == 302
    message = Message.objects.get(kind="organization_invitation")
    assert message.language == "fr" and APPLICANT.name in message.subject_line
    invitation = path_in("organization_invitation", "colleague@example.com")
    newcomer = Client()
    assert newcomer.get(invitation).status_code == 200
    joined = newcomer.post(
        invitation,
        {
            "first_name": "Lou",
            "last_name": "Roy",
            "password": "a-passphrase-long-enough",
            "password_again": "a-passphrase-long-enough",
        },
    )
    assert joined.status_code == 200
    member = User.objects.get(email="colleague@example.com")
    assert Membership.objects.get(user=member, employer=employer).role == "member"
    assert newcomer.get(invitation).status_code == 404


def test_roles_are_set_and_people_removed_after_confirmation(demo: None) -> None:
    client = Client()
    client.force_login(EMPLOYER.get())
    employer = APPLICANT.get()
    other = User.objects.create_user("colleague", email="c@example.com", role="employer")
    membership = Membership.objects.create(user=other, employer=employer, role="member")
    base = f"/en/employer/organizations/{employer.pk}/members/{membership.pk}"
    client.post(f"{base}/role/", {"role": "admin"})
    assert Membership.objects.get(pk=membership.pk).role == "admin"
    asked = client.get(f"{base}/remove/")
    assert asked.status_code == 200 and Membership.objects.filter(pk=membership.pk).exists()
    client.post(f"{base}/remove/")
    assert not Membership.objects.filter(pk=membership.pk).exists()


@pytest.mark.parametrize("language", ["en", "fr"])
def test_an_invitation_not_used_yet_is_listed_and_cancelled_after_confirmation(
    demo: None, language: str
) -> None:
    client = Client()
    client.force_login(EMPLOYER.get())
    employer = APPLICANT.get()
    members = page_path(language, f"/employer/organizations/{employer.pk}/")
    client.post(members, {"email": "maybe@example.com", "role": "member", "language": "en"})
    link = path_in("organization_invitation", "maybe@example.com")
    invitation = OrganizationInvitation.objects.get(email="maybe@example.com")
    listed = client.get(members).content.decode()
    assert 'id="invitations"' in listed and f'id="revoke-invitation-{invitation.pk}"' in listed
    cancel = page_path(
        language, f"/employer/organizations/{employer.pk}/invitations/{invitation.pk}/cancel/"
    )
    asked = client.get(cancel)
    assert asked.status_code == 200 and 'id="confirm-revoke"' in asked.content.decode()
    assert OrganizationInvitation.objects.get(pk=invitation.pk).revoked_at is None  # GET asks
    done = client.post(cancel)
    assert done.status_code == 302 and done["Location"] == members
    notice = {"en": "was cancelled", "fr": "a été annulée"}[language]
    after = client.get(members).content.decode()
    assert notice in after.replace("&#x27;", "'") and 'id="invitations"' not in after
    assert Client().get(link).status_code == 404  # the link no longer opens
    assert client.get(cancel).status_code == 404  # nothing left to cancel


def test_a_member_has_no_page_to_cancel_an_invitation(demo: None) -> None:
    employer = APPLICANT.get()
    admin = Client()
    admin.force_login(EMPLOYER.get())
    admin.post(
        f"/en/employer/organizations/{employer.pk}/",
        {"email": "kept@example.com", "role": "member", "language": "en"},
    )
    invitation = OrganizationInvitation.objects.get(email="kept@example.com")
    member = User.objects.create_user("plain-member", email="pm@example.com", role="employer")
    Membership.objects.create(user=member, employer=employer, role="member")
    client = Client()
    client.force_login(member)
    page = client.get(f"/en/employer/organizations/{employer.pk}/").content.decode()
    assert 'id="invitations"' not in page and "kept@example.com" not in page
    cancel = f"/en/employer/organizations/{employer.pk}/invitations/{invitation.pk}/cancel/"
    assert client.get(cancel).status_code == 404 and client.post(cancel).status_code == 404
    assert OrganizationInvitation.objects.get(pk=invitation.pk).revoked_at is None


def test_a_member_sees_the_people_but_cannot_change_them(demo: None) -> None:
    member = User.objects.create_user("plain-member", email="pm@example.com", role="employer")
    Membership.objects.create(user=member, employer=APPLICANT.get(), role="member")
    client = Client()
    client.force_login(member)
    page = client.get(f"/en/employer/organizations/{APPLICANT.get().pk}/").content.decode()
    assert 'id="invite-form"' not in page and 'id="leave"' in page
    answer: Any = client.post(
        f"/en/employer/organizations/{APPLICANT.get().pk}/",
        {"email": "y@example.com", "role": "admin", "language": "en"},
    )
    assert answer.status_code == 422 and not Message.objects.filter(kind="organization_invitation")


def test_an_organization_one_does_not_belong_to_is_not_found(demo: None) -> None:
    client = Client()
    client.force_login(PARTNER_EMPLOYER.get())
    assert client.get(f"/en/employer/organizations/{APPLICANT.get().pk}/").status_code == 404
