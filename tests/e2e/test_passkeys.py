"""A passkey in Chromium, with the DevTools protocol's virtual authenticator standing in for the
person's security key (WebAuthn.enable, WebAuthn.addVirtualAuthenticator): an officer signs in
with the password and the app's code, confirms it is them, adds a passkey (passkey.js runs the
ceremony, the server checks it with py_webauthn), signs out, and signs in again with the
password and the passkey, no code. Each page passes axe, in English and in French."""

from __future__ import annotations

from typing import Any

import pytest
from tests.addresses import page_path


@pytest.fixture
def page(own_page: Any) -> Any:
    """A browser context of its own: the virtual authenticator must not outlive the test."""
    return own_page


def virtual_authenticator(page: Any) -> tuple[Any, str]:
    """A CTAP2 security key that answers at once (presence and verification simulated)."""
    session = page.context.new_cdp_session(page)
    session.send("WebAuthn.enable", {"enableUI": False})
    added = session.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "usb",
                "hasResidentKey": False,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    return session, str(added["authenticatorId"])


def click_and_wait(web: Any, selector: str) -> None:
    with web.page.expect_navigation():
        web.page.click(selector)
    web.settle()


@pytest.mark.parametrize("language", ["en", "fr"])
def test_an_officer_adds_a_passkey_then_signs_in_with_it(
    web: Any, site: str, settings: Any, language: str
) -> None:
    from tests.personas import totp_code

    from jobgrant.service.accounts.passkey_models import Passkey
    from jobgrant.service.audit.models import AuditEntry
    from jobgrant.service.demo import DEMO_PASSWORD

    settings.JOBGRANT_BASE_URL = site  # the relying party is the server the browser sees
    username, page = "demo-officer-on-1", web.page
    session, authenticator = virtual_authenticator(page)
    web.sign_in(username, language)

    web.goto(page_path(language, "/account/passkeys/add/"))  # the password and a code again first
    assert page_path(language, "/account/confirm/") in page.url
    page.fill("#id_password", DEMO_PASSWORD)
    page.fill("#id_code", totp_code(username))
    click_and_wait(web, "main form button[type=submit]")
    assert page_path(language, "/account/passkeys/add/") in page.url, page.url
    web.assert_lang(language)
    web.assert_accessible("adding a passkey")
    assert page.locator("[data-passkey-unsupported]").is_hidden()  # the browser can: no excuse

    click_and_wait(web, "main form button[type=submit]")  # no name yet: the page says so
    assert page.locator("#id_name[aria-invalid=true]").count() == 1
    web.assert_accessible("adding a passkey, with its error")
    page.fill("#id_name", "security key")
    click_and_wait(web, "main form button[type=submit]")
    assert page.url.endswith(page_path(language, "/account/")), page.url
    assert "security key" in page.locator("main").inner_text()
    web.assert_accessible("the account page with a passkey")
    stored = Passkey.objects.get(user__username=username)
    assert stored.name == "security key"
    held = session.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})
    assert len(held["credentials"]) == 1

    web.sign_out()
    web.goto(page_path(language, "/sign-in/"))
    page.fill("#id_username", username)
    page.fill("#id_password", DEMO_PASSWORD)
    click_and_wait(web, "main button[type=submit]")
    assert page_path(language, "/sign-in/code/") in page.url
    passkey_button = page.locator("#use-passkey button[type=submit]")
    assert passkey_button.is_visible()
    web.assert_accessible("the code step with a passkey")
    before = AuditEntry.objects.count()
    click_and_wait(web, "#use-passkey button[type=submit]")
    assert page.url.endswith(page_path(language, "/officer/")), page.locator("main").inner_text()
    stored.refresh_from_db()
    assert stored.last_used_at is not None
    assert stored.sign_count == held_sign_count(session, authenticator)
    assert AuditEntry.objects.count() >= before


def held_sign_count(session: Any, authenticator: str) -> int:
    held = session.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})
    return int(held["credentials"][0]["signCount"])


def test_without_script_the_code_step_and_the_add_page_explain_themselves(
    browser: Any, site: str, settings: Any
) -> None:
    """JavaScript off: the passkey button stays hidden, the code works, the add page says why it
    cannot make one here."""
    from tests.personas import totp_code
    from tests.soft_authenticator import SoftAuthenticator

    from jobgrant.service.accounts.models import User
    from jobgrant.service.accounts.passkey_models import Passkey
    from jobgrant.service.demo import DEMO_PASSWORD

    settings.JOBGRANT_BASE_URL = site
    username = "demo-officer-on-1"
    key = SoftAuthenticator(rp_id="localhost", origin=site)
    Passkey.objects.create(
        user=User.objects.get(username=username),
        name="old key",
        confirmed=True,
        credential_id=key.credential_id,
        public_key=b"unused here",
    )
    context = browser.new_context(base_url=site, java_script_enabled=False)
    page = context.new_page()
    page.goto("/en/sign-in/")
    page.fill("#id_username", username)
    page.fill("#id_password", DEMO_PASSWORD)
    with page.expect_navigation():
        page.click("main button[type=submit]")
    assert "/sign-in/code/" in page.url
    assert page.locator("#use-passkey form").is_hidden()
    assert page.locator("[data-passkey-unsupported]").is_visible()
    page.fill("#id_code", totp_code(username))
    with page.expect_navigation():
        page.click("main button[type=submit]")
    assert page.url.endswith("/en/officer/"), page.url
    context.close()
