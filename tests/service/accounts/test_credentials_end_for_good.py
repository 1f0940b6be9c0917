"""Deactivating an account, or giving it a new password, ends every session and API token it
had, for good: reactivating it revives none of them, on the pages or on the API, whichever way it
was deactivated, and a token issued by a request racing the deactivation opens nothing either
(it was issued under the account's old session epoch)."""

from __future__ import annotations

import time

import pytest
from django.test import Client
from tests.personas import ADMIN, EMPLOYER, OFFICER

from jobgrant.service.accounts import actions as account_actions
from jobgrant.service.accounts.models import ApiToken, User
from jobgrant.service.people import staff as staff_actions

pytestmark = pytest.mark.django_db
OFFICER_PAGE = "/en/officer/"
EMPLOYER_PAGE = "/en/employer/"
API = "/api/v1/applications"
NEW_PASSWORD = "a-brand-new-long-passphrase"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def refused_everywhere(client: Client, token: str, page: str) -> None:
    """The session opens no page and the API refuses both the token and the session's cookie."""
    answer = client.get(page)
    assert answer.status_code == 302 and "/sign-in/" in answer["Location"]
    assert Client().get(API, headers=bearer(token)).status_code == 401
    assert client.get(API).status_code == 401  # the API never takes a session's cookie


def test_a_session_and_a_token_taken_before_deactivation_stay_dead_after_reactivation_on_the_pages(
    demo: None,
) -> None:
    officer = OFFICER.get()
    old_session, old_token = signed_in(officer), ApiToken.issue(officer)
    assert old_session.get(OFFICER_PAGE).status_code == 200
    assert Client().get(API, headers=bearer(old_token)).status_code == 200
    admin = signed_in(ADMIN.get())
    assert admin.post(f"/en/staff/{officer.pk}/deactivate/").status_code == 302
    assert admin.post(f"/en/staff/{officer.pk}/reactivate/").status_code == 302
    assert User.objects.get(pk=officer.pk).is_active
    refused_everywhere(old_session, old_token, OFFICER_PAGE)
    fresh = signed_in(User.objects.get(pk=officer.pk))  # signing in afresh works
    assert fresh.get(OFFICER_PAGE).status_code == 200


def test_a_token_issued_while_the_account_was_being_deactivated_never_opens_anything(
    demo: None,
) -> None:
    """The token request checked the password (the user loaded, active) just before the
    deactivation deleted the tokens, and stored its token just after."""
    loaded_before = OFFICER.get()
    staff_actions.deactivate_staff(ADMIN.get(), OFFICER.get())
    raced = ApiToken.issue(loaded_before)
    staff_actions.reactivate_staff(ADMIN.get(), OFFICER.get())
    assert Client().get(API, headers=bearer(raced)).status_code == 401
    new = ApiToken.issue(OFFICER.get())  # one asked for after the reactivation works
    assert Client().get(API, headers=bearer(new)).status_code == 200


def test_an_account_deactivated_by_a_plain_save_revives_nothing_either(demo: None) -> None:
    """Deactivated outside the staff pages (a shell, an employer's account), then reactivated."""
    employer = EMPLOYER.get()
    old_session, old_token = signed_in(employer), ApiToken.issue(employer)
    assert old_session.get(EMPLOYER_PAGE).status_code == 200
    employer.is_active = False
    employer.save()
    assert not ApiToken.objects.filter(user=employer).exists()
    employer.is_active = True
    employer.save(update_fields=["is_active"])
    refused_everywhere(old_session, old_token, EMPLOYER_PAGE)


def test_a_new_password_ends_every_other_session_and_token_for_good(demo: None) -> None:
    loaded_before = EMPLOYER.get()  # a token request that checked the old password, racing
    other_session, old_token = signed_in(loaded_before), ApiToken.issue(loaded_before)
    this_session = signed_in(loaded_before)
    session = this_session.session
    session[account_actions.REAUTHENTICATED_AT] = int(time.time())
    session.save()
    changed = this_session.post(
        "/en/account/password/", {"new_password": NEW_PASSWORD, "again": NEW_PASSWORD}
    )
    assert changed.status_code == 302
    raced = ApiToken.issue(loaded_before)  # stored after the change deleted the tokens
    assert this_session.get(EMPLOYER_PAGE).status_code == 200  # this session goes on
    refused_everywhere(other_session, old_token, EMPLOYER_PAGE)
    assert Client().get(API, headers=bearer(raced)).status_code == 401


def test_a_reset_password_ends_every_session_and_token_for_good(demo: None) -> None:
    loaded_before = EMPLOYER.get()
    old_session, old_token = signed_in(loaded_before), ApiToken.issue(loaded_before)
    account_actions.reset_password(EMPLOYER.get(), NEW_PASSWORD)
    raced = ApiToken.issue(loaded_before)
    refused_everywhere(old_session, old_token, EMPLOYER_PAGE)
    assert Client().get(API, headers=bearer(raced)).status_code == 401
    assert Client().login(username=EMPLOYER.username, password=NEW_PASSWORD)
