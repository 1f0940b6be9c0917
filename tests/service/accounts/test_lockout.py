"""T18: brute force. 50 wrong passwords, then the right one: refused, on the API (429
problem+json) and on the sign-in form (the lockout page, 429, in both languages); every
lockout logged and audited; the lock lifts after the documented 15 minutes. Per account (from
any address) and per address (for any account). Never a 5xx.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections import Counter

import pytest
import time_machine
from django.conf import settings
from django.test import Client
from tests.addresses import page_path
from tests.personas import EMPLOYER, OFFICER, PASSWORD, totp_code

from jobgrant.service.audit.models import AuditEntry

pytestmark = pytest.mark.django_db
WRONG_TRIES = 50


def lockouts() -> int:
    return AuditEntry.objects.filter(action="auth.locked_out").count()


def test_the_documented_figures() -> None:
    assert settings.AXES_FAILURE_LIMIT == 10
    assert settings.AXES_COOLOFF_TIME * 60 == 15
    assert settings.AXES_LOCKOUT_PARAMETERS == ["username", "ip_address"]
    # The second factor's wrong codes (accounts/second_factor_limits.py): 10 in 15 minutes per
    # account and address and per account and browser, 30 per account as the backstop for
    # browsers that never passed it; django-otp's account-wide throttling off.
    assert settings.SECOND_FACTOR_WINDOW_MINUTES == 15
    assert settings.SECOND_FACTOR_FAILURE_LIMIT == 10
    assert settings.SECOND_FACTOR_ACCOUNT_LIMIT == 30
    assert settings.OTP_TOTP_THROTTLE_FACTOR == settings.OTP_STATIC_THROTTLE_FACTOR == 0


def test_fifty_wrong_passwords_then_the_right_one_on_the_api(
    as_user, caplog, record_property
) -> None:
    api, before = as_user(None), lockouts()
    statuses: Counter[int] = Counter()
    started = time.perf_counter()
    with caplog.at_level(logging.WARNING, logger="jobgrant.security"):
        for i in range(WRONG_TRIES):
            body = {"username": EMPLOYER.username, "password": f"wrong-{i}"}
            statuses[api.post("/auth/token", body).status_code] += 1
        right = api.post("/auth/token", {"username": EMPLOYER.username, "password": PASSWORD})
    seconds = time.perf_counter() - started
    assert statuses == {401: 9, 429: WRONG_TRIES - 9}, statuses
    assert right.status_code == 429
    assert right["Content-Type"] == "application/problem+json"
    problem = right.json()
    assert problem["code"] == "LOCKED_OUT" and "15 minutes" in problem["detail"]
    assert "15 minutes" in problem["detail_fr"] and right["Retry-After"] == "900"
    # The 10th failure locks; each later attempt (the right password too) is refused and
    # logged, and the chain gets the lockout once (the address's and the account's first).
    assert lockouts() - before == 1
    entry = AuditEntry.objects.filter(action="auth.locked_out").order_by("-sequence").first()
    assert entry is not None and entry.summary["username"] == EMPLOYER.username
    assert entry.summary["via"] == "api" and entry.summary["address"] == "127.0.0.1"
    assert sum("sign-in locked out" in r.getMessage() for r in caplog.records) == 42
    record_property(
        "figures", f"T18 API: {WRONG_TRIES} wrong + the right one in {seconds:.1f} s: {statuses}"
    )


def test_the_lock_lifts_after_fifteen_minutes(as_user) -> None:
    api = as_user(None)
    for i in range(10):
        api.post("/auth/token", {"username": EMPLOYER.username, "password": f"wrong-{i}"})
    right = {"username": EMPLOYER.username, "password": PASSWORD}
    with time_machine.travel(dt.timedelta(minutes=14), tick=True):
        assert api.post("/auth/token", right).status_code == 429  # and the wait starts again
    with time_machine.travel(dt.timedelta(minutes=14 + 16), tick=True):
        assert api.post("/auth/token", right).status_code == 201


@pytest.mark.parametrize("language", ["en", "fr"])
def test_fifty_wrong_passwords_then_the_right_one_on_the_form(demo: None, language: str) -> None:
    client, before = Client(), lockouts()
    statuses: Counter[int] = Counter()
    for i in range(WRONG_TRIES):
        body = {"username": OFFICER.username, "password": f"wrong-{i}"}
        statuses[client.post(page_path(language, "/sign-in/"), body).status_code] += 1
    right = client.post(
        page_path(language, "/sign-in/"), {"username": OFFICER.username, "password": PASSWORD}
    )
    assert statuses == {200: 9, 429: WRONG_TRIES - 9}, statuses
    assert right.status_code == 429 and right["Retry-After"] == "900"
    page = right.content.decode()
    heading = {"en": "Too many failed sign-in attempts", "fr": "Trop de tentatives"}[language]
    minutes = {"en": "blocked for 15 minutes", "fr": "bloquée pendant 15 minutes"}[language]
    assert heading in page and minutes in page, page
    assert f'lang="{language}"' in page and page_path(language, "/password-reset/") in page
    assert "_auth_user_id" not in client.session
    assert lockouts() - before == 1  # once a window: each later refusal in the log only
    entry = AuditEntry.objects.filter(action="auth.locked_out").order_by("-sequence").first()
    assert entry is not None and entry.summary["via"] == "page"


def test_one_address_is_locked_for_every_account(as_user) -> None:
    """10 failures from one address, each for another made-up account, lock the address: the
    right password of a real account is refused from there, and accepted from elsewhere."""
    api = as_user(None)
    for i in range(10):
        api.post("/auth/token", {"username": f"nobody-{i}", "password": "x"})
    right = {"username": EMPLOYER.username, "password": PASSWORD}
    assert api.post("/auth/token", right).status_code == 429
    elsewhere = Client(REMOTE_ADDR="192.0.2.7")
    answer = elsewhere.post("/api/v1/auth/token", right, content_type="application/json")
    assert answer.status_code == 201


def test_one_account_is_locked_from_every_address(demo: None) -> None:
    """10 failures for one account, each from another address, lock the account everywhere."""
    for i in range(10):
        Client(REMOTE_ADDR=f"198.51.100.{i + 1}").post(
            "/api/v1/auth/token",
            {"username": EMPLOYER.username, "password": "x"},
            content_type="application/json",
        )
    answer = Client(REMOTE_ADDR="203.0.113.9").post(
        "/api/v1/auth/token",
        {"username": EMPLOYER.username, "password": PASSWORD},
        content_type="application/json",
    )
    assert answer.status_code == 429


def test_a_staff_lockout_holds_whatever_the_code(as_user) -> None:
    """A locked-out officer is refused even with the right password and a right code."""
    api = as_user(None)
    for i in range(10):
        api.post("/auth/token", {"username": OFFICER.username, "password": f"x{i}"})
    body = {"username": OFFICER.username, "password": PASSWORD, "otp": totp_code(OFFICER.username)}
    assert api.post("/auth/token", body).status_code == 429


def test_behind_the_proxy_the_address_is_the_one_it_saw(demo: None, settings) -> None:
    """JOBGRANT_CLIENT_IP_PROXIES=1: the address counted is the last X-Forwarded-For entry (the
    proxy's own), never one a client wrote before it."""
    settings.JOBGRANT_CLIENT_IP_PROXIES = 1
    for i in range(10):
        Client().post(
            "/api/v1/auth/token",
            {"username": f"nobody-{i}", "password": "x"},
            content_type="application/json",
            headers={"X-Forwarded-For": f"10.9.9.{i}, 192.0.2.50"},
        )
    right = {"username": EMPLOYER.username, "password": PASSWORD}
    locked = Client().post(
        "/api/v1/auth/token",
        right,
        content_type="application/json",
        headers={"X-Forwarded-For": "1.2.3.4, 192.0.2.50"},
    )
    assert locked.status_code == 429
    other = Client().post(
        "/api/v1/auth/token",
        right,
        content_type="application/json",
        headers={"X-Forwarded-For": "192.0.2.50, 192.0.2.51"},
    )
    assert other.status_code == 201
