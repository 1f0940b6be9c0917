"""One person's way in, in Chromium: register an organization, confirm the email by the link in
the message (read from the outbox, as the mail would carry it), sign in, invite a colleague;
the colleague opens their link, makes an account and joins."""

from __future__ import annotations

import re
from typing import Any

from jobgrant.service.accounts.models import Membership, User
from jobgrant.service.notifications.models import Message

LINK = re.compile(r"https?://[^/\s]+(/\S+)")
PASSWORD = "prairie-flour-at-dawn-42"


def link_to(kind: str, recipient: str) -> str:
    message = Message.objects.filter(kind=kind, recipient=recipient).latest("pk")
    found = LINK.search(message.body)
    assert found, message.body
    return found[1]


def test_register_verify_sign_in_and_invite_a_colleague(web: Any) -> None:
    page = web.page
    web.goto("/en/")
    with page.expect_navigation():
        page.click("#register-organization")
    web.settle()
    web.assert_lang("en")
    for selector, value in {
        "#name": "Prairie Bakery Co-op",
        "#business_number": "123456782",
        "#street_address": "400 Broadway Avenue",
        "#city": "Saskatoon",
        "#postal_code": "S7N 1A1",
        "#phone": "306-555-0130",
        "#naics": "311811",
        "#employees": "14",
        "#first_name": "Marie",
        "#last_name": "Gagnon",
        "#email": "marie@example.com",
        "#password": PASSWORD,
        "#password_again": PASSWORD,
    }.items():
        page.fill(selector, value)
    page.select_option("#jurisdiction", "SK")
    with page.expect_navigation():
        page.click("#register")
    web.settle()
    assert "/en/register/sent/" in page.url
    web.assert_accessible("register-sent")

    # Before confirming, the account cannot sign in.
    web.goto("/en/sign-in/")
    page.fill("#id_username", "marie@example.com")
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("main button[type=submit]")
    web.settle()
    summary = page.locator("gcds-error-summary").get_attribute("error-links") or ""
    assert "Confirm your email address first" in summary

    web.goto(link_to("email_verification", "marie@example.com"))
    with page.expect_navigation():
        page.click("#confirm-email")
    web.settle()
    assert "/en/register/verified/" in page.url
    web.sign_in("marie@example.com", password=PASSWORD)

    web.goto("/en/employer/")
    with page.expect_navigation():
        page.click("#your-organizations")
    web.settle()
    with page.expect_navigation():
        page.click("#organizations a")
    web.settle()
    page.fill("#email", "luc@example.com")
    page.check("#role-0")  # member
    with page.expect_navigation():
        page.click("#send-invitation")
    web.settle()
    assert "An invitation was sent to luc@example.com." in page.inner_text("#notice")
    web.assert_accessible("members page after inviting")
    web.sign_out()

    web.goto(link_to("organization_invitation", "luc@example.com"))
    page.fill("#first_name", "Luc")
    page.fill("#last_name", "Roy")
    page.fill("#password", PASSWORD + "-luc")
    page.fill("#password_again", PASSWORD + "-luc")
    with page.expect_navigation():
        page.click("#create-account")
    web.settle()
    assert "You joined Prairie Bakery Co-op" in page.inner_text("main")
    web.sign_in("luc@example.com", password=PASSWORD + "-luc")
    luc = User.objects.get(username="luc@example.com")
    membership = Membership.objects.get(user=luc)
    assert (membership.employer.name, membership.role) == ("Prairie Bakery Co-op", "member")
