"""API tokens: issued for the right password only, through the accounts action, audited."""

from __future__ import annotations

import pytest
from tests.conftest import changes_audited
from tests.personas import EMPLOYER
from tests.personas import PASSWORD as PERSONA_PASSWORD

from jobgrant.service.accounts.models import ApiToken
from jobgrant.service.audit.models import AuditEntry

pytestmark = pytest.mark.django_db


def test_the_right_password_gets_a_token_that_opens_the_api(as_user) -> None:
    user = EMPLOYER.get()
    before = ApiToken.objects.filter(user=user).count()
    response = as_user(None).post(
        "/auth/token", {"username": EMPLOYER.username, "password": PERSONA_PASSWORD}
    )
    assert response.status_code == 201
    token = response.json()["token"]
    assert ApiToken.user_for(token) == user
    assert ApiToken.objects.filter(user=user).count() == before + 1
    entry = AuditEntry.objects.order_by("-sequence").first()
    assert entry is not None and (entry.action, entry.actor) == ("token.issue", EMPLOYER.username)
    assert token not in str(entry.summary)


def test_a_wrong_password_gets_no_token_and_writes_nothing(as_user) -> None:
    tokens, entries = ApiToken.objects.count(), changes_audited()
    response = as_user(None).post("/auth/token", {"username": EMPLOYER.username, "password": "x"})
    assert response.status_code == 401
    assert (ApiToken.objects.count(), changes_audited()) == (tokens, entries)


def _another_process_deletes(token: ApiToken) -> None:
    """What another server process does when it revokes: the row goes, and no signal reaches
    this process (raw SQL, as from elsewhere)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {ApiToken._meta.db_table} WHERE id = %s", [token.pk])


@pytest.mark.parametrize("change", ["revoked", "deactivated", "expired"])
def test_a_token_changed_by_another_process_stops_at_the_next_request(as_user, change: str) -> None:
    """No process keeps a token it has looked up: the request right after a change made
    elsewhere (no signal here) is refused, where a per-process cache served it for 5 s."""
    import datetime as dt

    from django.utils import timezone

    from jobgrant.service.accounts.models import User

    api = as_user(EMPLOYER)
    assert api.get("/applications").status_code == 200  # looked up once: nothing kept
    token = ApiToken.objects.filter(user=EMPLOYER.get()).latest("pk")
    if change == "revoked":
        _another_process_deletes(token)
    elif change == "deactivated":
        User.objects.filter(pk=token.user_id).update(is_active=False)
    else:
        past = timezone.now() - dt.timedelta(seconds=1)
        ApiToken.objects.filter(pk=token.pk).update(expires_at=past)
    refused = api.get("/applications")
    assert refused.status_code == 401
    assert refused["Content-Type"].startswith("application/problem+json")
