"""Changing one's email address (people/email_change.py and /account/email/): the new address
proves itself by a link before it takes effect, the old one is told, and no two accounts share
an address, whatever its case."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from tests.personas import EMPLOYER, OFFICER, PARTNER_EMPLOYER

from jobgrant.service.accounts.actions import REAUTHENTICATED_AT
from jobgrant.service.accounts.models import User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.notifications.models import Message
from jobgrant.service.people import email_change
from jobgrant.service.people.password_reset import send_password_reset

pytestmark = pytest.mark.django_db
LINK = re.compile(r"https?://\S+")
NEW = "ada.new@example.org"


def reauthenticated(user: User) -> Client:
    client = Client()
    client.force_login(user)
    session = client.session
    session[REAUTHENTICATED_AT] = int(__import__("time").time())
    session.save()
    return client


def link_in(kind: str, to: str) -> str:
    message = Message.objects.filter(kind=kind, recipient=to).latest("pk")
    found = LINK.search(message.body)
    assert found, message.body
    return found[0].removeprefix("http://127.0.0.1:8000")


def test_the_new_address_takes_effect_only_by_its_link_and_the_old_one_is_told(
    demo: None,
) -> None:
    user = EMPLOYER.get()
    old = user.email
    client = reauthenticated(user)
    asked = client.post("/en/account/email/", {"email": NEW.upper()})
    assert asked.status_code == 302
    assert User.objects.get(pk=user.pk).email == old  # nothing changes before the proof
    link = link_in("email_change_confirm", NEW)
    assert "/account/email/confirm/" in link
    # A reset asked meanwhile still goes to the proven address, not to the unproven one.
    assert send_password_reset(NEW, "en") is False
    page = Client().get(link)
    assert page.status_code == 200 and User.objects.get(pk=user.pk).email == old
    done = Client().post(link)
    assert done.status_code == 200 and "Your email address is changed" in done.content.decode()
    assert User.objects.get(pk=user.pk).email == NEW
    told = Message.objects.get(kind="email_changed", recipient=old)
    assert "a***@example.org" in told.body and NEW not in told.body
    assert Client().post(link).status_code == 404  # once
    entry = AuditEntry.objects.filter(action="user.email_change", object_id=str(user.pk)).get()
    assert entry.summary == {"from_domain": "example.com", "to_domain": "example.org"}


def test_an_address_another_account_uses_is_refused_whatever_its_case(demo: None) -> None:
    user, other = EMPLOYER.get(), PARTNER_EMPLOYER.get()
    with pytest.raises(ServiceError) as refused:
        email_change.request_email_change(user, other.email.upper())
    assert refused.value.code == "EMAIL_TAKEN"
    assert refused.value.problems[0]["field"] == "email"
    assert not Message.objects.filter(kind="email_change_confirm").exists()
    assert AuditEntry.objects.filter(
        action="refused.user.email_change", actor=user.username
    ).exists()
    page = reauthenticated(user).post("/en/account/email/", {"email": other.email})
    assert page.status_code == 422 and "gcds-error-summary" in page.content.decode()


def test_an_address_taken_between_the_request_and_the_link_is_refused(demo: None) -> None:
    user = EMPLOYER.get()
    email_change.request_email_change(user, NEW)
    token = link_in("email_change_confirm", NEW).rstrip("/").rsplit("/", 1)[1]
    officer = OFFICER.get()
    officer.email = NEW.upper()  # (another account got it meanwhile)
    officer.save(update_fields=["email"])
    with pytest.raises(ServiceError) as refused:
        email_change.confirm_email_change(token)
    assert refused.value.code == "EMAIL_TAKEN"
    assert User.objects.get(pk=user.pk).email != NEW


def test_the_same_address_is_not_a_change(demo: None) -> None:
    user = EMPLOYER.get()
    with pytest.raises(ServiceError) as refused:
        email_change.request_email_change(user, user.email.upper())
    assert refused.value.status == 422 and refused.value.problems[0]["field"] == "email"
