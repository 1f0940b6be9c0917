"""Wrong second-factor codes typed by someone who has the password do not keep the owner out:
they are counted per account and address and per account and browser (10 in 15 minutes), with a
higher count per account (30) as the backstop, which a browser that passed the account's second
factor before does not answer to (accounts/second_factor_limits.py)."""

from __future__ import annotations

import pytest
from django.test import Client
from tests.personas import OFFICER, PASSWORD, totp_code

from jobgrant.service.audit.models import AuditEntry

pytestmark = pytest.mark.django_db
OWNER_ADDRESS = "198.51.100.7"
CODE_STEP = "/en/sign-in/code/"
WRONG = "000000"


def password_step(address: str, client: Client | None = None) -> Client:
    client = client or Client(REMOTE_ADDR=address)
    body = {"username": OFFICER.username, "password": PASSWORD}
    answer = client.post("/en/sign-in/", body)
    assert answer.status_code == 302
    assert client.get(answer["Location"], follow=True).status_code == 200  # the code step
    return client


def wrong_codes(address: str, times: int) -> list[int]:
    """An attacker with the password, from `address`, in one browser: the statuses answered."""
    attacker = password_step(address)
    return [attacker.post(CODE_STEP, {"code": WRONG}).status_code for _ in range(times)]


def right_code(client: Client) -> int:
    return client.post(CODE_STEP, {"code": totp_code(OFFICER.username)}).status_code


def test_wrong_codes_from_elsewhere_do_not_keep_the_owner_out(demo: None) -> None:
    assert wrong_codes("203.0.113.9", 12) == [200] * 10 + [429] * 2
    owner = password_step(OWNER_ADDRESS)  # a new browser, from the owner's address
    assert right_code(owner) == 302
    assert owner.get("/en/officer/").status_code == 200


def test_ten_wrong_codes_stop_that_address_and_that_browser(demo: None) -> None:
    attacker = password_step("203.0.113.9")
    for _ in range(10):
        assert attacker.post(CODE_STEP, {"code": WRONG}).status_code == 200
    stopped = attacker.post(CODE_STEP, {"code": totp_code(OFFICER.username)})  # even the right one
    assert stopped.status_code == 429 and "Too many wrong codes" in stopped.content.decode()
    assert stopped["Retry-After"] == str(15 * 60)
    # Another browser from that address, and the same browser from another address: refused too.
    assert right_code(password_step("203.0.113.9")) == 429
    attacker.defaults["REMOTE_ADDR"] = "203.0.113.10"
    assert right_code(attacker) == 429
    french = Client(REMOTE_ADDR="203.0.113.9")
    password_step("", french)
    page = french.post("/fr/connexion/code/", {"code": WRONG})
    assert page.status_code == 429 and "Trop de codes erronés" in page.content.decode()


def test_the_account_backstop_stops_new_browsers_but_not_the_owners_own(demo: None) -> None:
    owner = password_step(OWNER_ADDRESS)
    assert right_code(owner) == 302  # this browser has passed the account's second factor
    owner.post("/en/sign-out/")
    for address in ("203.0.113.1", "203.0.113.2", "203.0.113.3"):
        assert wrong_codes(address, 10) == [200] * 10
    new_browser = password_step("192.0.2.44")
    assert right_code(new_browser) == 429  # 30 for the account: only known browsers now
    password_step(OWNER_ADDRESS, owner)
    assert right_code(owner) == 302
    assert owner.get("/en/officer/").status_code == 200


def test_wrong_codes_on_the_api_are_counted_by_address_too(demo: None) -> None:
    api = Client(REMOTE_ADDR="203.0.113.9")
    body = {"username": OFFICER.username, "password": PASSWORD, "otp": WRONG}

    def token(client: Client, code: str) -> int:
        answer = client.post(
            "/api/v1/auth/token", {**body, "otp": code}, content_type="application/json"
        )
        return answer.status_code

    assert [token(api, WRONG) for _ in range(10)] == [401] * 10
    locked = api.post("/api/v1/auth/token", body, content_type="application/json")
    assert locked.status_code == 429 and locked.json()["code"] == "SECOND_FACTOR_LOCKED"
    assert token(Client(REMOTE_ADDR=OWNER_ADDRESS), totp_code(OFFICER.username)) == 201
    owner = password_step(OWNER_ADDRESS)
    assert right_code(owner) == 302
    assert not AuditEntry.objects.filter(action="auth.locked_out").exists()  # not the password's
