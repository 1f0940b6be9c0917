"""Issue 14: refusals were audited only as 403 and 404, and only those an action raised; a 404
for an address no page matches was not audited at all. Now every refusal of a signed-in caller
is in the trail exactly once, whatever its status, and the chain still verifies."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from tests.personas import EMPLOYER, FINANCE, OFFICER, OTHER_JURISDICTION_OFFICER

from jobgrant.service.api.schemas import MAX_DATABASE_ID
from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry

pytestmark = pytest.mark.django_db


def refusals() -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(action__startswith="refused.").order_by("sequence"))


def recorded(make: Any) -> list[AuditEntry]:
    """The refusals recorded while `make()` ran."""
    before = len(refusals())
    make()
    return refusals()[before:]


def submitted(as_user: Any, make_body: Any) -> int:
    created = as_user(EMPLOYER).post("/applications", make_body(), key="c").json()
    as_user(EMPLOYER).post(f"/applications/{created['id']}/submit", key="s")
    return int(created["id"])


@pytest.mark.parametrize(
    ("who", "method", "path", "body", "status", "code"),
    [
        (EMPLOYER, "post", "/applications/{id}/submit", None, 409, "ILLEGAL_TRANSITION"),
        (FINANCE, "post", "/applications/{id}/recommend", None, 403, "NOT_YOUR_FILE"),
        (OTHER_JURISDICTION_OFFICER, "get", "/applications/{id}", None, 404, "NOT_FOUND"),
        (EMPLOYER, "get", f"/applications/{MAX_DATABASE_ID}", None, 404, "NOT_FOUND"),
        (EMPLOYER, "get", f"/applications/{MAX_DATABASE_ID + 1}", None, 422, "INVALID_INPUT"),
        (EMPLOYER, "post", "/applications", {"jurisdiction": "ZZ"}, 422, "INVALID_INPUT"),
        (EMPLOYER, "post", "/applications", "{not json", 400, "MALFORMED_BODY"),
        (OFFICER, "post", "/applications/{id}/deny", {"reason": " "}, 422, "INVALID_INPUT"),
        (EMPLOYER, "get", "/applications?limit=0", None, 422, "INVALID_INPUT"),
    ],
)
def test_each_api_refusal_is_recorded_once(
    as_user, make_body, who, method, path, body, status, code
) -> None:
    application = submitted(as_user, make_body)
    url = path.format(id=application)

    def ask() -> None:
        client = as_user(who)
        if method == "post":
            answer = client.post(url, body, key="refused")
        else:
            address, _, query = url.partition("?")
            answer = client.get(address, **dict([query.split("=")] if query else []))
        assert answer.status_code == status, answer.content

    [entry] = recorded(ask)
    assert entry.actor == who.username
    assert entry.summary == {"code": code, "status": status}
    assert verify().ok


def test_an_anonymous_refusal_goes_to_the_log_not_the_chain(as_user) -> None:
    assert recorded(lambda: as_user(None).get("/applications")) == []


def signed_in(who: Any) -> Client:
    client = Client()
    client.force_login(who.get())
    return client


@pytest.mark.parametrize(
    "path",
    ["/en/no-such-page/", f"/en/employer/applications/{MAX_DATABASE_ID + 1}/", "/fr/officer/x/"],
)
def test_a_page_not_found_for_a_signed_in_person_is_recorded(path: str) -> None:
    [entry] = recorded(lambda: signed_in(EMPLOYER).get(path))
    assert (entry.actor, entry.action, entry.object_type) == (
        EMPLOYER.username,
        "refused.open_page",
        "page",
    )
    assert entry.object_id == path
    assert entry.summary == {"code": "NOT_FOUND", "status": 404}


def test_a_page_404_an_action_recorded_is_not_recorded_twice(as_user, make_body) -> None:
    application = submitted(as_user, make_body)
    path = f"/en/officer/applications/{application}/"
    [entry] = recorded(lambda: signed_in(OTHER_JURISDICTION_OFFICER).get(path))
    assert entry.action == "refused.get_visible"


def test_an_unknown_api_address_is_problem_json() -> None:
    answer = Client().get("/api/v1/no-such-thing")
    assert answer.status_code == 404
    assert answer["Content-Type"] == "application/problem+json"


def test_the_participant_link_token_never_reaches_the_trail() -> None:
    path = "/en/participate/secret-token-value/nowhere/"
    entries = recorded(lambda: signed_in(EMPLOYER).get(path))
    assert all("secret-token-value" not in str(e.object_id) for e in entries)
