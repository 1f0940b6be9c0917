"""T19: sessions and tokens, with a moved clock (time-machine).

Staff: 30 minutes idle, 12 hours in all; employers: 2 hours idle, 12 hours in all. A new
session id at sign-in; the old one opens nothing after signing out or once the account is
deactivated (100%: every page of the role tried). API tokens: 30 days by default, one per named
client, listed and revoked by their owner and by an administrator.
"""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.conf import settings
from django.test import Client
from django.utils import timezone
from tests.addresses import page_path
from tests.personas import EMPLOYER, FINANCE, OFFICER, PASSWORD, Persona, totp_code

from jobgrant.service import links
from jobgrant.service.accounts.models import ApiToken, Role, User
from jobgrant.service.audit.models import AuditEntry

pytestmark = pytest.mark.django_db
OFFICER_PAGE = "/en/officer/"
EMPLOYER_PAGE = "/en/employer/"


def sign_in(persona: Persona, client: Client | None = None) -> Client:
    """Through the pages, as a person does: the password, then (staff) the code."""
    client = client or Client()
    answer = client.post("/en/sign-in/", {"username": persona.username, "password": PASSWORD})
    assert answer.status_code == 302, answer.content.decode()[:500]
    if persona.role != Role.EMPLOYER:
        answer = client.post("/en/sign-in/code/", {"code": totp_code(persona.username)})
        assert answer.status_code == 302
    return client


def later(**delta: float) -> time_machine.travel:
    return time_machine.travel(timezone.now() + dt.timedelta(**delta), tick=True)


def test_the_documented_figures() -> None:
    assert settings.SESSION_STAFF_IDLE_SECONDS == 30 * 60
    assert settings.SESSION_EMPLOYER_IDLE_SECONDS == 2 * 3600
    assert settings.SESSION_ABSOLUTE_SECONDS == settings.SESSION_COOKIE_AGE == 12 * 3600
    assert settings.API_TOKEN_DEFAULT_DAYS == 30


def test_a_new_session_id_at_sign_in(demo: None) -> None:
    client = Client()
    session = client.session
    session["before"] = "anonymous"
    session.save()
    client.cookies[settings.SESSION_COOKIE_NAME] = session.session_key
    before = session.session_key
    sign_in(OFFICER, client)
    after = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert after != before
    assert Client(headers={"Cookie": f"sessionid={before}"}).get(OFFICER_PAGE).status_code == 302


def test_staff_idle_timeout_is_thirty_minutes(demo: None) -> None:
    client = sign_in(OFFICER)
    assert client.get(OFFICER_PAGE).status_code == 200
    with later(minutes=29):
        assert client.get(OFFICER_PAGE).status_code == 200  # a request resets the idle clock
    with later(minutes=29 + 29):
        assert client.get(OFFICER_PAGE).status_code == 200
    with later(minutes=29 + 29 + 31):
        answer = client.get(OFFICER_PAGE)
        assert answer.status_code == 302 and "/en/sign-in/" in answer["Location"]
        page = client.get(answer["Location"]).content.decode()
        assert "signed out after a while without activity" in page
        assert client.get(OFFICER_PAGE).status_code == 302  # the session is gone


def test_staff_absolute_timeout_is_twelve_hours(demo: None) -> None:
    client = sign_in(FINANCE)
    for minutes in range(20, 12 * 60, 20):  # busy all day: a request every 20 minutes
        with later(minutes=minutes):
            assert client.get("/en/finance/budgets/").status_code == 200, minutes
    with later(hours=12, minutes=1):
        answer = client.get("/en/finance/budgets/")
        assert answer.status_code == 302
        assert "longest length" in client.get(answer["Location"]).content.decode()


def test_employer_idle_timeout_is_two_hours(demo: None) -> None:
    client = sign_in(EMPLOYER)
    with later(minutes=119):
        assert client.get(EMPLOYER_PAGE).status_code == 200
    with later(minutes=119 + 121):
        assert client.get(EMPLOYER_PAGE).status_code == 302


def test_after_sign_out_the_old_session_id_opens_nothing(demo: None) -> None:
    client = sign_in(OFFICER)
    old = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert client.post("/en/sign-out/").status_code == 302
    replay = Client(headers={"Cookie": f"sessionid={old}"})
    pages = ["/en/officer/", "/en/home/", "/en/account/", "/fr/agent/"]
    answers = [replay.get(page) for page in pages]
    sign_in_pages = (page_path(page[1:3], "/sign-in/") for page in pages)
    assert all(
        a.status_code == 302 and step in a["Location"]
        for a, step in zip(answers, sign_in_pages, strict=True)
    )


def test_a_deactivated_account_is_signed_out_and_its_tokens_stop(as_user) -> None:
    client = sign_in(OFFICER)
    api = as_user(OFFICER)
    assert api.get("/applications").status_code == 200
    user = OFFICER.get()
    user.is_active = False
    user.save(update_fields=["is_active"])  # (as the administrator's page will: a save)
    answer = client.get(OFFICER_PAGE)
    assert answer.status_code == 302 and "/en/sign-in/" in answer["Location"]
    assert api.get("/applications").status_code == 401


# --- API tokens -----------------------------------------------------------------------------


def ask(api, persona: Persona, client: str = "default", **more: object):
    body = {"username": persona.username, "password": PASSWORD, "client": client, **more}
    if persona.role != Role.EMPLOYER:
        body["otp"] = totp_code(persona.username)
    return api.post("/auth/token", body)


def test_a_token_expires_after_thirty_days(as_user) -> None:
    answer = ask(as_user(None), EMPLOYER)
    assert answer.status_code == 201
    token = answer.json()["token"]
    expires = dt.datetime.fromisoformat(answer.json()["expires_at"])
    assert abs(expires - (timezone.now() + dt.timedelta(days=30))) < dt.timedelta(minutes=1)
    headers = {"Authorization": f"Bearer {token}"}
    with later(days=29, hours=23):
        assert Client().get("/api/v1/applications", headers=headers).status_code == 200
    with later(days=30, minutes=1):
        assert Client().get("/api/v1/applications", headers=headers).status_code == 401


def test_a_client_may_ask_for_fewer_days_never_more_than_ninety(as_user) -> None:
    api = as_user(None)
    short = ask(api, EMPLOYER, "nightly-export", days=1)
    assert short.status_code == 201
    headers = {"Authorization": f"Bearer {short.json()['token']}"}
    with later(days=1, minutes=1):
        assert Client().get("/api/v1/applications", headers=headers).status_code == 401
    assert ask(api, EMPLOYER, "forever", days=3650).status_code == 422


def test_one_token_per_named_client(as_user) -> None:
    api = as_user(None)
    first = ask(api, EMPLOYER, "payroll-sync").json()["token"]
    second = ask(api, EMPLOYER, "payroll-sync").json()["token"]
    other = ask(api, EMPLOYER, "reporting").json()["token"]
    assert ApiToken.user_for(first) is None  # the same client's new token replaced it
    assert ApiToken.user_for(second) == EMPLOYER.get() == ApiToken.user_for(other)
    names = ApiToken.objects.filter(user=EMPLOYER.get()).values_list("name", flat=True)
    assert sorted(names) == ["payroll-sync", "reporting"]


def test_the_owner_lists_and_revokes_their_tokens(as_user) -> None:
    api = as_user(None)
    token = ask(api, EMPLOYER, "payroll-sync").json()["token"]
    owner = as_user(None)
    owner.headers = {"Authorization": f"Bearer {token}"}
    listed = owner.get("/auth/tokens").json()
    assert [t["client"] for t in listed] == ["payroll-sync"]
    assert token not in str(listed) and listed[0]["prefix"] == token[:8]
    revoked = owner.post(f"/auth/tokens/{listed[0]['id']}/revoke", key="revoke-1")
    assert revoked.status_code == 200 and revoked.json() == {"id": listed[0]["id"], "revoked": True}
    assert owner.get("/auth/tokens").status_code == 401  # it was this very token
    entry = AuditEntry.objects.filter(action="token.revoke").order_by("-sequence").first()
    assert entry is not None and entry.summary["client"] == "payroll-sync"


def test_nobody_else_sees_or_revokes_a_token_but_an_administrator(as_user) -> None:
    mine = ApiToken.objects.get(digest=links.digest(ask(as_user(None), EMPLOYER).json()["token"]))
    officer = as_user(OFFICER)
    assert officer.get("/auth/tokens", owner=EMPLOYER.username).status_code == 403
    assert officer.post(f"/auth/tokens/{mine.pk}/revoke", key="r").status_code == 404
    admin = User.objects.create_user("admin-1", password=PASSWORD, role=Role.ADMIN)
    root = as_user(admin.username)
    everyone = root.get("/auth/tokens", owner=EMPLOYER.username).json()
    assert mine.pk in [t["id"] for t in everyone]
    assert root.post(f"/auth/tokens/{mine.pk}/revoke", key="r").status_code == 200
    assert not ApiToken.objects.filter(pk=mine.pk).exists()


def test_the_account_page_lists_and_revokes_with_confirmation(as_user) -> None:
    ask(as_user(None), EMPLOYER, "payroll-sync")
    client = sign_in(EMPLOYER)
    page = client.get("/en/account/").content.decode()
    assert "payroll-sync" in page
    token = ApiToken.objects.get(user=EMPLOYER.get(), name="payroll-sync")
    confirm = client.get(f"/en/account/tokens/{token.pk}/revoke/")
    assert confirm.status_code == 200 and "cannot be undone" in confirm.content.decode()
    assert ApiToken.objects.filter(pk=token.pk).exists()  # asking is not doing
    done = client.post(f"/en/account/tokens/{token.pk}/revoke/")
    assert done.status_code == 302 and not ApiToken.objects.filter(pk=token.pk).exists()
    other = sign_in(OFFICER)
    assert other.get(f"/en/account/tokens/{token.pk}/revoke/").status_code == 404


def test_a_new_session_id_when_the_second_factor_passes(demo: None) -> None:
    client = Client()
    answer = client.post("/en/sign-in/", {"username": OFFICER.username, "password": PASSWORD})
    assert answer.status_code == 302
    after_password = client.cookies[settings.SESSION_COOKIE_NAME].value
    answer = client.post("/en/sign-in/code/", {"code": totp_code(OFFICER.username)})
    assert answer.status_code == 302
    after_code = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert after_code != after_password
    assert client.get(OFFICER_PAGE).status_code == 200
    # The id the password step had opens nothing past the code step.
    old = Client(headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={after_password}"})
    assert old.get(OFFICER_PAGE).status_code == 302
