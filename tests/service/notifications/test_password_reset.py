"""A forgotten password: the link by email (the outbox, delivered over real SMTP), in the
person's language; one reset per link, within the hour; every session and token of the account
ended; the same answer for an address nobody has. And the passwords a person may choose."""

from __future__ import annotations

import datetime as dt
import re
import time

import pytest
import time_machine
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import timezone
from tests.addresses import page_path
from tests.personas import EMPLOYER, OFFICER, PASSWORD, totp_code
from tests.smtp_sink import SmtpSink

from jobgrant.service.accounts.models import ApiToken
from jobgrant.service.accounts.passwords import BreachedPasswordValidator, is_breached
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.notifications.delivery_actions import deliver_message
from jobgrant.service.notifications.models import Message

pytestmark = pytest.mark.django_db
NEW_PASSWORD = "a calm harbour at dawn 47"
LINK = re.compile(r"http://\S+/(?:password-reset|mot-de-passe-oublie)/[^/\s]+/")


def reset_link(smtp: SmtpSink, language: str = "en") -> str:
    message = Message.objects.filter(kind="password_reset").latest("pk")
    assert deliver_message.call(message.pk) == "sent"
    arrived = smtp.arrived[-1]
    assert arrived.recipients == [EMPLOYER.get().email]
    body = arrived.message.get_content()
    assert ("choose a new password" if language == "en" else "choisissez un nouveau") in body
    found = LINK.search(body)
    assert found is not None, body
    return found.group(0).split("://", 1)[1].split("/", 1)[1]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_link_arrives_and_resets_the_password_once(
    demo: None, smtp: SmtpSink, language: str
) -> None:
    token = ApiToken.issue(EMPLOYER.get())
    signed_in = Client()
    signed_in.force_login(EMPLOYER.get())
    client = Client()
    asked = client.post(page_path(language, "/password-reset/"), {"email": "EMPLOYER@example.com"})
    assert asked.status_code == 302 and asked["Location"] == page_path(
        language, "/password-reset/sent/"
    )
    path = "/" + reset_link(smtp, language)
    assert path.startswith(page_path(language, "/password-reset/"))
    form = client.get(path, follow=True)
    assert form.status_code == 200 and 'name="new_password"' in form.content.decode()
    form_path = form.redirect_chain[-1][0]  # the token moved off the address bar
    weak = client.post(form_path, {"new_password": "password1234", "again": "password1234"})
    assert weak.status_code == 200 and 'aria-invalid="true"' in weak.content.decode()
    done = client.post(form_path, {"new_password": NEW_PASSWORD, "again": NEW_PASSWORD})
    assert done.status_code == 302
    assert done["Location"] == page_path(language, "/password-reset/done/")
    employer = EMPLOYER.get()
    assert employer.check_password(NEW_PASSWORD)
    assert signed_in.get("/en/employer/").status_code == 302  # the other session ended
    assert ApiToken.user_for(token) is None  # and the tokens
    again = Client().get(path, follow=True)
    assert "does not work any more" in again.content.decode() or "ne fonctionne plus" in (
        again.content.decode()
    )
    actions = set(AuditEntry.objects.values_list("action", flat=True))
    assert {"user.password_reset_requested", "user.password_reset"} <= actions


def test_an_address_nobody_has_gets_the_same_answer_and_no_message(demo: None) -> None:
    before = Message.objects.count()
    answer = Client().post("/en/password-reset/", {"email": "nobody@example.com"})
    assert answer.status_code == 302 and answer["Location"].endswith("/password-reset/sent/")
    assert Message.objects.count() == before


def test_a_link_older_than_an_hour_does_not_work(demo: None, smtp: SmtpSink) -> None:
    Client().post("/en/password-reset/", {"email": "employer@example.com"})
    path = "/" + reset_link(smtp)
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=61), tick=True):
        page = Client().get(path, follow=True).content.decode()
    assert "does not work any more" in page


def test_breached_and_weak_passwords_are_refused() -> None:
    assert is_breached("Password") and is_breached(" dragon ") and is_breached("jobgrant-demo")
    assert not is_breached(NEW_PASSWORD)
    with pytest.raises(ValidationError) as refused:
        BreachedPasswordValidator().validate("qwertyuiop123")
    assert refused.value.messages and "breach" in refused.value.messages[0]


def test_changing_the_password_asks_for_it_again_first(demo: None) -> None:
    client = Client()
    client.force_login(OFFICER.get())
    ask = client.get("/en/account/password/")
    assert ask.status_code == 302 and "/en/account/confirm/" in ask["Location"]
    wrong = client.post(
        "/en/account/confirm/?next=/en/account/password/", {"password": "nope", "code": "1"}
    )
    assert wrong.status_code == 200
    with time_machine.travel(timezone.now() + dt.timedelta(seconds=3), tick=True):
        code = totp_code(OFFICER.username)
        confirmed = client.post(
            "/en/account/confirm/",
            {"password": PASSWORD, "code": code, "next": "/en/account/password/"},
        )
        assert confirmed.status_code == 302 and confirmed["Location"] == "/en/account/password/"
        changed = client.post(
            "/en/account/password/", {"new_password": NEW_PASSWORD, "again": NEW_PASSWORD}
        )
        assert changed.status_code == 302
    assert OFFICER.get().check_password(NEW_PASSWORD)
    assert client.get("/en/officer/").status_code == 200  # this session goes on
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=6), tick=True):
        assert "/account/confirm/" in client.get("/en/account/email/")["Location"]


def test_changing_the_email_and_the_second_factor_ask_for_it_again(demo: None) -> None:
    client = Client()
    client.force_login(OFFICER.get())
    for page in ("/en/account/email/", "/en/account/recovery-codes/", "/en/sign-in/set-up/"):
        answer = client.get(page)
        assert answer.status_code == 302 and "/account/confirm/" in answer["Location"], page


def test_a_known_and_an_unknown_address_take_the_same_least_time(demo: None, settings) -> None:
    """Both answers wait for the same floor (JOBGRANT_PASSWORD_RESET_ANSWER_SECONDS), far above
    the work a known address costs, so that the time does not say which addresses exist."""
    assert settings.JOBGRANT_PASSWORD_RESET_ANSWER_SECONDS == 0.25
    took = {}
    for email in ("employer@example.com", "nobody@example.com"):
        started = time.monotonic()
        answer = Client().post("/en/password-reset/", {"email": email})
        took[email] = time.monotonic() - started
        assert answer.status_code == 302
    assert all(seconds >= 0.25 for seconds in took.values()), took
    assert Message.objects.filter(kind="password_reset").count() == 1
