"""The security review's findings on input, each reproduced first: bodies too large or too deep,
notes and employer ids without a length, impossible training dates, ids and dates beyond what the
database or the calendar holds. Every one was a 500, a 400 text/html or a stored row."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from tests.conftest import applications
from tests.personas import AUDITOR, EMPLOYER, OFFICER

from jobgrant.service.api.body_limit import MAX_API_BODY_BYTES
from jobgrant.service.api.schemas import MAX_DATABASE_ID, NOTE_MAX
from jobgrant.service.grants.models.applications import StateChange

pytestmark = pytest.mark.django_db
PROBLEM = "application/problem+json"


def submitted(as_user, make_body) -> int:
    created = as_user(EMPLOYER).post("/applications", make_body(), key="create").json()
    as_user(EMPLOYER).post(f"/applications/{created['id']}/submit", key="submit")
    return int(created["id"])


@pytest.mark.parametrize("path", ["/auth/token", "/applications", "/quote"])
def test_a_body_over_the_limit_is_413_problem_json(as_user, path: str) -> None:
    body = json.dumps({"note": "x" * (MAX_API_BODY_BYTES + 1)})
    answer = as_user(EMPLOYER if path != "/auth/token" else None).post(path, body, key="big")
    assert answer.status_code == 413
    assert answer["Content-Type"] == PROBLEM
    problem = answer.json()
    assert problem["code"] == "BODY_TOO_LARGE"
    assert str(MAX_API_BODY_BYTES) in problem["detail"].replace(",", "")
    assert problem["detail_fr"]
    assert applications().count() == 0


def test_nested_json_to_the_token_endpoint_is_400_without_signing_in(as_user) -> None:
    answer = as_user(None).post("/auth/token", "[" * 50_000 + "]" * 50_000)
    assert answer.status_code == 400
    assert answer["Content-Type"] == PROBLEM


def test_a_two_megabyte_note_is_refused_naming_the_field(as_user, make_body) -> None:
    application = submitted(as_user, make_body)
    answer = as_user(OFFICER).post(
        f"/applications/{application}/recommend", {"note": "n" * (NOTE_MAX + 1)}, key="note"
    )
    assert answer.status_code == 422
    [error] = answer.json()["errors"]
    assert error["field"] == "note"
    assert str(NOTE_MAX) in error["message_en"].replace(",", "")
    assert str(NOTE_MAX) in error["message_fr"].replace(" ", "").replace("\u202f", "")
    assert not StateChange.objects.filter(
        application_id=application, to_state="recommended"
    ).exists()


def test_a_note_of_the_maximum_length_is_kept(as_user, make_body) -> None:
    application = submitted(as_user, make_body)
    answer = as_user(OFFICER).post(
        f"/applications/{application}/recommend", {"note": "n" * NOTE_MAX}, key="note"
    )
    assert answer.status_code == 200


def test_a_denial_reason_over_the_limit_is_refused(as_user, make_body) -> None:
    application = submitted(as_user, make_body)
    answer = as_user(OFFICER).post(
        f"/applications/{application}/deny", {"reason": "r" * (NOTE_MAX + 1)}, key="deny"
    )
    assert answer.status_code == 422
    assert answer.json()["errors"][0]["field"] == "reason"


def test_a_ten_thousand_character_employer_id_is_refused(as_user, make_body) -> None:
    body = make_body()
    body["employers"][0]["id"] = "e" * 10_000
    body["trainees"][0]["employer_id"] = "e" * 10_000
    answer = as_user(EMPLOYER).post("/applications", body, key="long-id")
    assert answer.status_code == 422
    fields = {error["field"] for error in answer.json()["errors"]}
    assert "employers[0].id" in fields
    assert applications().count() == 0


def test_training_ending_before_it_starts_is_refused_naming_the_end_date(
    as_user, make_body
) -> None:
    body = make_body()
    body["training"]["end_date"] = "2027-01-10"
    answer = as_user(EMPLOYER).post("/applications", body, key="dates")
    assert answer.status_code == 422
    assert "training.end_date" in {error["field"] for error in answer.json()["errors"]}
    assert applications().count() == 0


@pytest.mark.parametrize(
    "name", ["M" * 201, "Mohawk\x00College", "Mohawk\x07College", "Mohawk\nCollege"]
)
def test_a_provider_name_too_long_or_with_control_characters_is_refused_naming_it(
    as_user, make_body, name: str
) -> None:
    body = make_body()
    body["training"]["provider"]["name"] = name
    answer = as_user(EMPLOYER).post("/applications", body, key=f"provider-{len(name)}")
    assert answer.status_code == 422
    assert "training.provider.name" in {error["field"] for error in answer.json()["errors"]}
    assert applications().count() == 0
    quoted = as_user(EMPLOYER).post("/quote", {**body, "policy": "cjg-2013"})
    assert quoted.status_code in (400, 422), quoted.content


def test_the_schema_says_the_limits(as_user) -> None:
    document = Client().get("/api/v1/openapi.json").json()
    schemas = document["components"]["schemas"]
    assert schemas["NoteBody"]["properties"]["note"]["maxLength"] == NOTE_MAX
    assert schemas["NoteBody"]["properties"]["reason"]["maxLength"] == NOTE_MAX
    assert schemas["EmployerRef"]["properties"]["id"]["maxLength"] == 100


@pytest.mark.parametrize("until", ["9999-12-31", "0001-01-01"])
def test_the_audit_trail_takes_the_last_and_first_days_of_the_calendar(until: str) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(AUDITOR.get())
    for query in (f"?until={until}", f"?since={until}", f"?since=0001-01-01&until={until}"):
        answer = client.get("/en/auditor/trail/" + query)
        assert answer.status_code == 200, query
        answer = client.get("/en/auditor/trail.csv" + query)
        assert answer.status_code in (200, 302), query


@pytest.mark.parametrize(
    "path",
    [
        "/en/employer/applications/{id}/",
        "/en/employer/changes/{id}/",
        "/en/employer/drafts/{id}/resume/",
        "/en/officer/applications/{id}/",
        "/en/officer/changes/{id}/",
        "/en/employer/applications/{id}/agreement/",
    ],
)
def test_page_ids_beyond_the_databases_integers_are_not_found(path: str) -> None:
    for persona in (EMPLOYER, OFFICER):
        client = Client(raise_request_exception=False)
        client.force_login(persona.get())
        for number in (MAX_DATABASE_ID + 1, 10**30):
            answer = client.get(path.format(id=number))
            assert answer.status_code in (403, 404, 405), (persona.username, path, number)


def test_no_page_route_takes_an_unbounded_integer() -> None:
    """Routes added later are held to it: `<id:...>`, never `<int:...>`."""
    from django.urls import URLPattern, URLResolver, get_resolver
    from django.urls.converters import IntConverter

    def walk(patterns, prefix=""):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                yield prefix + str(entry.pattern), entry.pattern.converters

    unbounded = [
        route
        for route, converters in walk(get_resolver().url_patterns)
        if any(type(c) is IntConverter for c in converters.values())
    ]
    assert unbounded == []
