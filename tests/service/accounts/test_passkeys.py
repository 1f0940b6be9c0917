"""Passkeys (WebAuthn) through the pages, with a software authenticator that signs for real
(tests/soft_authenticator.py): added after re-authentication and audited, then signing in with
the password and the passkey; refused from another origin or relying party, when replayed, and
when the counter says the key was copied (audited); removed after re-authentication."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.test import Client
from tests.personas import EMPLOYER, OFFICER, PASSWORD
from tests.soft_authenticator import SoftAuthenticator

from jobgrant.service.accounts import second_factor_actions
from jobgrant.service.accounts.actions import REAUTHENTICATED_AT
from jobgrant.service.accounts.passkey_models import Passkey
from jobgrant.service.audit.models import AuditEntry

pytestmark = pytest.mark.django_db
BASE_URL = "https://jobgrant.example"


@pytest.fixture(autouse=True)
def _relying_party(settings: Any) -> None:
    settings.JOBGRANT_BASE_URL = BASE_URL


def options_in(page: str) -> dict[str, Any]:
    """The options the page hands passkey.js (its form's data-passkey attribute)."""
    found = re.search(r'data-passkey="([^"]+)"', page)
    assert found is not None, "the page offers no passkey"
    return dict(json.loads(html.unescape(found.group(1))))


def reauthenticated(username: str = OFFICER.username) -> Client:
    """Signed in, then the password and a recovery code again (re-authentication)."""
    client = Client()
    client.force_login(OFFICER.get())
    code = second_factor_actions.new_recovery_codes(OFFICER.get())[0]
    body = {"password": PASSWORD, "code": code, "next": "/en/account/"}
    assert client.post("/en/account/confirm/", body).status_code == 302
    return client


def add_passkey(client: Client, name: str = "work laptop") -> SoftAuthenticator:
    authenticator = SoftAuthenticator(rp_id="jobgrant.example", origin=BASE_URL)
    page = client.get("/en/account/passkeys/add/")
    assert page.status_code == 200
    answer = authenticator.create(options_in(page.content.decode()))
    added = client.post("/en/account/passkeys/add/", {"name": name, "credential": answer})
    assert added.status_code == 302 and added["Location"] == "/en/account/", added.content[:300]
    return authenticator


def password_step() -> Client:
    client = Client()
    body = {"username": OFFICER.username, "password": PASSWORD}
    assert client.post("/en/sign-in/", body).status_code == 302
    return client


def passkey_step(client: Client, answer_for: Any) -> Any:
    page = client.get("/en/sign-in/code/").content.decode()
    answer = answer_for(options_in(page))
    return client.post("/en/sign-in/passkey/", {"credential": answer, "next": "/en/officer/"})


def test_adding_asks_for_the_password_again_first(demo: None) -> None:
    client = Client()
    client.force_login(OFFICER.get())
    asked = client.get("/en/account/passkeys/add/")
    assert asked.status_code == 302 and "/en/account/confirm/" in asked["Location"]


def test_a_passkey_is_added_audited_and_signs_in_after_the_password(demo: None) -> None:
    client = reauthenticated(OFFICER.username)
    authenticator = add_passkey(client)
    passkey = Passkey.objects.get(user__username=OFFICER.username)
    assert passkey.name == "work laptop" and passkey.confirmed and passkey.sign_count == 0
    entry = AuditEntry.objects.filter(action="second_factor.passkey_added").last()
    assert entry is not None and entry.summary["name"] == "work laptop"
    assert "work laptop" in client.get("/en/account/").content.decode()

    signing_in = password_step()
    assert "/sign-in/code/" in signing_in.get("/en/officer/")["Location"]
    passed = passkey_step(signing_in, authenticator.get)
    assert passed.status_code == 302 and passed["Location"] == "/en/officer/"
    assert signing_in.get("/en/officer/").status_code == 200
    passkey.refresh_from_db()
    assert passkey.sign_count == 1 and passkey.last_used_at is not None


@pytest.mark.parametrize(
    "forged",
    [
        {"origin": "https://jobgrant.example.attacker.test"},
        {"origin": "http://jobgrant.example"},
        {"rp_id": "attacker.test"},
    ],
    ids=["other-origin", "plain-http", "other-relying-party"],
)
def test_an_assertion_for_another_origin_is_refused(demo: None, forged: dict[str, str]) -> None:
    authenticator = add_passkey(reauthenticated(OFFICER.username))
    client = password_step()
    refused = passkey_step(client, lambda options: authenticator.get(options, **forged))
    assert refused.status_code == 200
    assert "did not pass our checks" in refused.content.decode()
    assert "/sign-in/code/" in client.get("/en/officer/")["Location"]


def test_a_replayed_assertion_is_refused(demo: None) -> None:
    authenticator = add_passkey(reauthenticated(OFFICER.username))
    first = password_step()
    page = first.get("/en/sign-in/code/").content.decode()
    answer = authenticator.get(options_in(page))
    assert first.post("/en/sign-in/passkey/", {"credential": answer}).status_code == 302
    # The same answer again, in another sign-in: its challenge is not this session's.
    second = password_step()
    second.get("/en/sign-in/code/")
    replayed = second.post("/en/sign-in/passkey/", {"credential": answer})
    assert replayed.status_code == 200 and "did not pass our checks" in replayed.content.decode()
    # And with no challenge given out at all (the page was not asked for): refused too.
    third = password_step()
    stale = third.post("/en/sign-in/passkey/", {"credential": answer})
    assert stale.status_code == 200 and "open too long" in stale.content.decode()
    assert "/sign-in/code/" in third.get("/en/officer/")["Location"]


def test_a_counter_that_does_not_go_up_is_refused_and_audited(demo: None) -> None:
    authenticator = add_passkey(reauthenticated(OFFICER.username))
    assert passkey_step(password_step(), authenticator.get).status_code == 302
    clone = password_step()
    refused = passkey_step(clone, lambda options: authenticator.get(options, count_up=False))
    assert refused.status_code == 200 and "may have been copied" in refused.content.decode()
    entry = AuditEntry.objects.filter(action="second_factor.passkey_counter_refused").last()
    assert entry is not None and entry.summary == {"name": "work laptop", "held_count": 1}
    assert "/sign-in/code/" in clone.get("/en/officer/")["Location"]


def test_nothing_sent_says_why_in_both_languages(demo: None) -> None:
    add_passkey(reauthenticated(OFFICER.username))
    client = password_step()
    client.get("/en/sign-in/code/")
    english = client.post("/en/sign-in/passkey/", {"credential": ""}).content.decode()
    assert "they need JavaScript" in english
    client.get("/fr/connexion/code/")
    french = client.post("/fr/connexion/cle-d-acces/", {"credential": ""}).content.decode()
    assert "JavaScript" in french and "Votre navigateur" in french


def test_the_code_still_works_beside_a_passkey_and_pages_need_no_script(demo: None) -> None:
    add_passkey(reauthenticated(OFFICER.username))
    client = password_step()
    page = client.get("/en/sign-in/code/").content.decode()
    assert 'id="id_code"' in page and "data-passkey-unsupported" in page
    assert "<script" not in re.sub(r'<script[^>]*src="[^"]+"[^>]*></script>', "", page)


def test_several_named_passkeys_and_removal_after_reauthentication(demo: None) -> None:
    client = reauthenticated(OFFICER.username)
    add_passkey(client, "laptop")
    add_passkey(client, "security key")
    authenticator = SoftAuthenticator(rp_id="jobgrant.example", origin=BASE_URL)
    page = client.get("/en/account/passkeys/add/").content.decode()
    assert len(options_in(page)["excludeCredentials"]) == 2
    taken = client.post(
        "/en/account/passkeys/add/",
        {"name": "laptop", "credential": authenticator.create(options_in(page))},
    )
    assert "already have a passkey with this name" in taken.content.decode()
    laptop = Passkey.objects.get(user__username=OFFICER.username, name="laptop")
    assert client.post(f"/en/account/passkeys/{laptop.pk}/remove/").status_code == 302
    assert list(Passkey.objects.values_list("name", flat=True)) == ["security key"]
    entry = AuditEntry.objects.filter(action="second_factor.passkey_removed").last()
    assert entry is not None and entry.summary == {"name": "laptop"}
    session = client.session  # the re-authentication runs out (5 minutes): asked again
    del session[REAUTHENTICATED_AT]
    session.save()
    other = Passkey.objects.get(name="security key")
    asked = client.post(f"/en/account/passkeys/{other.pk}/remove/")
    assert asked.status_code == 302 and "/account/confirm/" in asked["Location"]
    assert Passkey.objects.filter(pk=other.pk).exists()


def test_a_passkey_needs_an_app_first(demo: None) -> None:
    client = Client()
    client.force_login(EMPLOYER.get())
    body = {"password": PASSWORD, "next": "/en/account/passkeys/add/"}
    assert client.post("/en/account/confirm/", body).status_code == 302
    page = client.get("/en/account/passkeys/add/").content.decode()
    assert "set the app up first" in page and "data-passkey" not in page


def test_turning_the_second_factor_off_removes_the_passkeys_too(demo: None) -> None:
    from jobgrant.service.accounts.models import User

    officer = OFFICER.get()
    add_passkey(reauthenticated(OFFICER.username))
    administrator = User.objects.filter(role="admin").first()
    assert administrator is not None
    second_factor_actions.reset_for(administrator, officer)
    assert not Passkey.objects.filter(user=officer).exists()
