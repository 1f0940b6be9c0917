"""Sign-ins in the audit trail (ASVS 16.3.1): each complete one, on the pages and the API; a
wrong password logged every time but audited at most once per account per 15-minute window, and
never for a name that is no account, so a flood of guesses cannot queue the chain's lock."""

from __future__ import annotations

import datetime as dt
import logging

import pytest
import time_machine
from django.test import Client
from tests.personas import EMPLOYER, OFFICER, PASSWORD, totp_code

from jobgrant.service.audit.models import AuditEntry

pytestmark = pytest.mark.django_db


def entries(action: str) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(action=action).order_by("sequence"))


def test_an_employer_signing_in_on_the_page_is_recorded(demo: None) -> None:
    before = len(entries("auth.sign_in"))
    body = {"username": EMPLOYER.username, "password": PASSWORD}
    assert Client().post("/en/sign-in/", body).status_code == 302
    signed_in = entries("auth.sign_in")[before:]
    assert len(signed_in) == 1
    entry = signed_in[0]
    assert entry.actor == EMPLOYER.username
    assert entry.summary == {
        "via": "page",
        "method": "password",
        "role": "employer",
        "address": "127.0.0.1",
    }


def test_staff_are_recorded_once_the_code_passes_not_at_the_password(demo: None) -> None:
    before = len(entries("auth.sign_in"))
    client = Client()
    body = {"username": OFFICER.username, "password": PASSWORD}
    assert client.post("/en/sign-in/", body).status_code == 302
    assert len(entries("auth.sign_in")) == before  # the password alone opens nothing
    assert (
        client.post("/en/sign-in/code/", {"code": totp_code(OFFICER.username)}).status_code == 302
    )
    entry = entries("auth.sign_in")[-1]
    assert (entry.actor, entry.summary["method"], entry.summary["via"]) == (
        OFFICER.username,
        "app",
        "page",
    )


def test_a_token_from_the_api_is_a_sign_in_recorded_before_its_token(as_user) -> None:
    body = {"username": EMPLOYER.username, "password": PASSWORD, "client": "sync"}
    assert as_user(None).post("/auth/token", body).status_code == 201
    last_two = list(AuditEntry.objects.order_by("-sequence")[:2])[::-1]
    assert [e.action for e in last_two] == ["auth.sign_in", "token.issue"]
    assert last_two[0].summary["via"] == "api" and last_two[0].summary["method"] == "password"


def test_wrong_passwords_are_logged_each_time_and_audited_once_a_window(
    demo: None, caplog: pytest.LogCaptureFixture
) -> None:
    client = Client()
    with caplog.at_level(logging.WARNING, logger="jobgrant.security"):
        for i in range(5):
            client.post("/en/sign-in/", {"username": EMPLOYER.username, "password": f"no-{i}"})
    failed = entries("auth.sign_in_failed")
    assert len(failed) == 1
    assert failed[0].actor == "anonymous" and failed[0].summary["username"] == EMPLOYER.username
    assert failed[0].summary["via"] == "page" and failed[0].summary["next_within_minutes"] == 15
    assert sum("sign-in failed" in r.getMessage() for r in caplog.records) == 5
    with time_machine.travel(dt.timedelta(minutes=16), tick=True):
        client.post("/en/sign-in/", {"username": EMPLOYER.username, "password": "again"})
    assert len(entries("auth.sign_in_failed")) == 2  # a new window: one more


def test_a_name_that_is_no_account_goes_to_the_log_only(
    as_user, caplog: pytest.LogCaptureFixture
) -> None:
    before = AuditEntry.objects.count()
    with caplog.at_level(logging.WARNING, logger="jobgrant.security"):
        for i in range(5):
            as_user(None).post("/auth/token", {"username": f"nobody-{i}", "password": "x"})
    assert AuditEntry.objects.count() == before
    assert sum("sign-in failed" in r.getMessage() for r in caplog.records) == 5
