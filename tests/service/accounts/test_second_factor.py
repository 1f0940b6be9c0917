"""The second factor (django-otp): required for every staff role, optional for employers, with
recovery codes; real TOTP codes computed from the device's secret (RFC 6238), never a stand-in.
The demonstration's password and secret are refused in production."""

from __future__ import annotations

import base64
import datetime as dt
import re
from pathlib import Path

import pytest
import time_machine
from django.contrib.auth import authenticate
from django.test import Client, RequestFactory
from django.utils import timezone
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice
from tests.addresses import page_path
from tests.personas import EMPLOYER, OFFICER, PASSWORD, totp_code

from jobgrant.service.accounts import second_factor_actions
from jobgrant.service.accounts.demo_credentials import (
    DEMO_PASSWORD,
    DEMO_TOTP_KEY_HEX,
    DEMO_TOTP_SECRET,
    demo_code,
)
from jobgrant.service.accounts.models import STAFF_ROLES, Role, User
from jobgrant.service.audit.models import AuditEntry

pytestmark = pytest.mark.django_db


def seconds_later(seconds: float) -> time_machine.travel:
    return time_machine.travel(timezone.now() + dt.timedelta(seconds=seconds), tick=True)


def password_step(username: str, client: Client | None = None, next_page: str = "") -> Client:
    client = client or Client()
    body = {"username": username, "password": PASSWORD, "next": next_page}
    assert client.post("/en/sign-in/", body).status_code == 302
    return client


def test_every_staff_role_needs_it() -> None:
    staff = {Role.OFFICER, Role.FINANCE, Role.ANALYST, Role.AUDITOR, Role.ADMIN}
    assert {*staff, Role.PROGRAM_MANAGER} == STAFF_ROLES


def test_an_officer_with_only_the_password_opens_nothing_but_the_code_step(demo: None) -> None:
    client = password_step(OFFICER.username)
    for page in ("/en/officer/", "/en/home/", "/en/account/", "/fr/agent/"):
        answer = client.get(page)
        code_step = page_path(page[1:3], "/sign-in/code/")
        assert answer.status_code == 302 and code_step in answer["Location"], page
    step = client.get("/en/officer/", follow=True)
    assert "Enter your code" in step.content.decode()


def test_the_right_code_opens_the_page_asked_for_and_works_once(demo: None) -> None:
    client = password_step(OFFICER.username)
    assert client.get("/en/officer/").status_code == 302
    wrong = client.post("/en/sign-in/code/?next=/en/officer/", {"code": "000000"})
    assert wrong.status_code == 200 and "This code is wrong" in wrong.content.decode()
    code = totp_code(OFFICER.username)
    right = client.post("/en/sign-in/code/", {"code": code, "next": "/en/officer/"})
    assert right.status_code == 302 and right["Location"] == "/en/officer/"
    assert client.get("/en/officer/").status_code == 200
    again = password_step(OFFICER.username)
    replay = again.post("/en/sign-in/code/", {"code": code})
    assert replay.status_code == 200  # a code works once: the same one is refused
    assert again.get("/en/officer/").status_code == 302


def test_a_recovery_code_works_once_and_is_audited(demo: None) -> None:
    user = OFFICER.get()
    codes = second_factor_actions.new_recovery_codes(user)
    assert len(codes) == 10 == len(set(codes))
    client = password_step(OFFICER.username)
    assert client.post("/en/sign-in/code/", {"code": codes[0]}).status_code == 302
    assert client.get("/en/officer/").status_code == 200
    entry = AuditEntry.objects.filter(action="second_factor.recovery_code_used").last()
    assert entry is not None and entry.summary == {"codes_left": 9}
    other = password_step(OFFICER.username)
    assert other.post("/en/sign-in/code/", {"code": codes[0]}).status_code == 200


def test_staff_without_a_device_set_one_up_at_first_sign_in(demo: None) -> None:
    User.objects.create_user("new-auditor", password=PASSWORD, role=Role.AUDITOR)
    client = password_step("new-auditor")
    step = client.get("/en/auditor/trail/", follow=True)
    page = step.content.decode()
    assert "Set up your second factor" in page and "<svg" in page
    secret = re.search(r'<code class="jg-secret" id="secret">([A-Z2-7 ]+)</code>', page)
    assert secret is not None
    key = secret.group(1).replace(" ", "")
    totp = TOTP(base64.b32decode(key + "=" * (-len(key) % 8)))
    code = f"{totp.token():06d}"
    confirmed = client.post("/en/sign-in/set-up/", {"code": code, "next": "/en/auditor/trail/"})
    assert confirmed.status_code == 302 and "/sign-in/recovery-codes/" in confirmed["Location"]
    shown = client.get(confirmed["Location"]).content.decode()
    assert len(re.findall(r"<li><code>[a-z0-9]+</code></li>", shown)) == 10
    assert client.get(confirmed["Location"]).status_code == 302  # shown once
    assert client.get("/en/auditor/trail/").status_code == 200
    assert TOTPDevice.objects.get(user__username="new-auditor").confirmed


def test_an_employer_is_not_asked_until_they_set_one_up(demo: None) -> None:
    client = password_step(EMPLOYER.username)
    assert client.get("/en/employer/").status_code == 200
    asked = client.get("/en/sign-in/set-up/")
    assert "/en/account/confirm/" in asked["Location"]  # the password again first
    body = {"password": PASSWORD, "next": "/en/sign-in/set-up/"}
    assert client.post("/en/account/confirm/", body)["Location"] == "/en/sign-in/set-up/"
    assert client.get("/en/sign-in/set-up/").status_code == 200
    device = TOTPDevice.objects.get(user__username=EMPLOYER.username, confirmed=False)
    code = f"{TOTP(device.bin_key).token():06d}"
    assert client.post("/en/sign-in/set-up/", {"code": code}).status_code == 302
    again = password_step(EMPLOYER.username)
    assert "/sign-in/code/" in again.get("/en/employer/")["Location"]


def test_the_api_asks_staff_for_the_code(as_user) -> None:
    api, body = as_user(None), {"username": OFFICER.username, "password": PASSWORD}
    missing = api.post("/auth/token", body)
    assert missing.status_code == 401 and missing.json()["code"] == "SECOND_FACTOR_REQUIRED"
    wrong = api.post("/auth/token", {**body, "otp": "123456"})
    assert wrong.status_code == 401 and wrong.json()["code"] == "BAD_SECOND_FACTOR"
    with seconds_later(2):
        right = api.post("/auth/token", {**body, "otp": totp_code(OFFICER.username)})
    assert right.status_code == 201
    User.objects.create_user("new-analyst", password=PASSWORD, role=Role.ANALYST)
    none = api.post("/auth/token", {"username": "new-analyst", "password": PASSWORD, "otp": "1"})
    assert none.status_code == 403 and none.json()["code"] == "SECOND_FACTOR_NOT_SET_UP"


def test_the_demonstration_code_is_the_published_secret(demo: None) -> None:
    device = TOTPDevice.objects.get(user__username="demo-officer-on-1")
    assert device.key == DEMO_TOTP_KEY_HEX and device.confirmed
    assert DEMO_TOTP_SECRET in Path("README.md").read_text(encoding="utf-8")
    client = Client()
    client.post("/en/sign-in/", {"username": "demo-officer-on-1", "password": DEMO_PASSWORD})
    assert client.post("/en/sign-in/code/", {"code": demo_code()}).status_code == 302
    assert client.get("/en/officer/").status_code == 200


def test_production_refuses_the_demo_password_and_the_demo_secret(demo: None, settings) -> None:
    settings.PRODUCTION = True
    request = RequestFactory().post("/en/sign-in/")
    assert authenticate(request, username="demo-employer", password=DEMO_PASSWORD) is None
    someone = User.objects.create_user("not-a-demo", password=DEMO_PASSWORD)
    assert authenticate(request, username=someone.username, password=DEMO_PASSWORD) is None
    officer = OFFICER.get()
    TOTPDevice.objects.filter(user=officer).update(key=DEMO_TOTP_KEY_HEX)
    assert not second_factor_actions.check_code(officer, demo_code())
    settings.PRODUCTION = False
    assert second_factor_actions.check_code(officer, demo_code())


def test_an_administrator_resets_a_lost_second_factor(demo: None) -> None:
    admin = User.objects.create_user("admin-2", password=PASSWORD, role=Role.ADMIN)
    officer = OFFICER.get()
    with pytest.raises(PermissionError):
        second_factor_actions.reset_for(officer, officer)
    second_factor_actions.reset_for(admin, officer)
    assert not TOTPDevice.objects.filter(user=officer).exists()
    entry = AuditEntry.objects.filter(action="second_factor.reset").last()
    assert entry is not None and entry.actor == "admin-2"
    client = password_step(OFFICER.username)
    assert "/sign-in/set-up/" in client.get("/en/officer/", follow=True).redirect_chain[-1][0]


def test_has_device_says_what_django_otp_says_for_every_kind_of_device(demo: None) -> None:
    """The pages ask `has_device` (one statement) where django-otp's `user_has_device` asks
    each kind of device in turn: the two agree for none, an unconfirmed app, and each kind."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django_otp import user_has_device
    from django_otp.plugins.otp_static.models import StaticDevice

    from jobgrant.service.accounts.passkey_models import Passkey
    from jobgrant.service.accounts.second_factor import has_device

    employer = User.objects.get(username=EMPLOYER.username)

    def agree() -> bool:
        with CaptureQueriesContext(connection) as statements:
            answer = has_device(employer)
        assert len(statements) == 1
        assert answer == user_has_device(employer)
        return answer

    assert agree() is False
    app = TOTPDevice.objects.create(user=employer, name="app", confirmed=False)
    assert agree() is False
    app.confirmed = True
    app.save()
    assert agree() is True
    app.delete()
    codes = StaticDevice.objects.create(user=employer, name="recovery codes", confirmed=True)
    assert agree() is True
    codes.delete()
    Passkey.objects.create(
        user=employer, name="laptop", confirmed=True, credential_id=b"id", public_key=b"key"
    )
    assert agree() is True
