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
