"""Signing in as staff in Chromium: the password, then the code of the authenticator app (a real
TOTP code of the demonstration secret, as the README prints it), each step passing axe in both
languages; setting an app up from its QR code's key; and the lockout page."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from tests.addresses import page_path


@pytest.mark.parametrize("language", ["en", "fr"])
def test_an_officer_signs_in_with_password_and_code(web: Any, language: str) -> None:
    from jobgrant.service.accounts.demo_credentials import DEMO_PASSWORD, demo_code

    page = web.page
    web.goto(page_path(language, "/sign-in/"))
    page.fill("#id_username", "demo-officer-on-1")
    page.fill("#id_password", DEMO_PASSWORD)
    with page.expect_navigation():
        page.click("main button[type=submit]")
    web.settle()
    assert page_path(language, "/sign-in/code/") in page.url
    web.assert_lang(language)
    web.assert_accessible("the code step")
    page.fill("#id_code", "000000")  # a wrong code first: the page says so, field named
    with page.expect_navigation():
        page.click("main button[type=submit]")
    web.settle()
    assert page.locator("#id_code[aria-invalid=true]").count() == 1
    web.assert_accessible("the code step, with its error")
    page.wait_for_timeout(2100)  # a wrong code makes the next try wait (1 s, then 2 s, ...)
    page.fill("#id_code", demo_code())
    with page.expect_navigation():
        page.click("main button[type=submit]")
    web.settle()
    assert page.url.endswith(page_path(language, "/officer/")), page.url
    web.goto(page_path(language, "/account/"))
    web.assert_accessible("the account page")


def test_a_new_auditor_sets_an_app_up_from_the_key_on_the_page(web: Any) -> None:
    from django_otp.oath import TOTP

    from jobgrant.service.accounts.models import Role, User

    User.objects.create_user("new-auditor", password="a calm harbour at dawn 47", role=Role.AUDITOR)
    page = web.page
    web.goto("/en/sign-in/")
    page.fill("#id_username", "new-auditor")
    page.fill("#id_password", "a calm harbour at dawn 47")
    with page.expect_navigation():
        page.click("main button[type=submit]")
    web.settle()
    assert "/en/sign-in/set-up/" in page.url, page.url
    web.assert_accessible("the set-up step")
    key = page.locator("#secret").inner_text().replace(" ", "")
    totp = TOTP(base64.b32decode(key + "=" * (-len(key) % 8)))
    page.fill("#id_code", f"{totp.token():06d}")
    with page.expect_navigation():
        page.click("main button[type=submit]")
    web.settle()
    assert page.locator("#recovery-codes li").count() == 10
    web.assert_accessible("the recovery codes")
    with page.expect_navigation():
        page.click("main a.jg-button")
    web.settle()
    assert page.url.endswith("/en/auditor/trail/"), page.url


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_lockout_page_after_ten_wrong_passwords(web: Any, language: str) -> None:
    page = web.page
    for i in range(10):
        web.goto(page_path(language, "/sign-in/"))
        page.fill("#id_username", "demo-finance")
        page.fill("#id_password", f"wrong-{i}")
        with page.expect_navigation():
            page.click("main button[type=submit]")
        web.settle()
    heading = page.locator("h1").inner_text()
    assert (
        heading
        == {
            "en": "Too many failed sign-in attempts",
            "fr": "Trop de tentatives de connexion échouées",
        }[language]
    )
    web.assert_lang(language)
    web.assert_accessible("the lockout page")
