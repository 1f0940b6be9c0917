"""Input the API cannot use is answered 4xx problem+json naming the field, never 500."""

from __future__ import annotations

import pytest
from tests.conftest import applications
from tests.personas import EMPLOYER, FINANCE, OFFICER

from jobgrant.service.api.schemas import MAX_DATABASE_ID
from jobgrant.service.grants.models.applications import Application

pytestmark = pytest.mark.django_db
DEEP = 50_000


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("path", ["/auth/token", "/applications", "/quote"])
def test_json_nested_too_deep_is_a_bad_request_not_a_crash(as_user, path: str) -> None:
    response = as_user(EMPLOYER).post(path, nested(DEEP))
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert problem["code"] == "MALFORMED_BODY"
    assert problem["errors"][0]["field"] == "(body)"
    assert problem["detail_fr"]
    assert applications().count() == 0


def test_an_integer_too_long_to_read_is_a_bad_request(as_user) -> None:
    response = as_user(EMPLOYER).post("/applications", '{"jurisdiction": ' + "9" * 5000 + "}")
    assert response.status_code == 400
    assert response.json()["code"] == "MALFORMED_BODY"


def test_an_application_id_beyond_the_databases_integers_names_the_parameter(as_user) -> None:
    for path in (f"/applications/{MAX_DATABASE_ID + 1}", f"/applications/{10**30}/submit"):
        client = as_user(EMPLOYER)
        response = client.get(path) if not path.endswith("submit") else client.post(path)
        assert response.status_code == 422, path
        [error] = response.json()["errors"]
        assert error["field"] == "application_id"
        assert error["message_en"] == f"must be {MAX_DATABASE_ID} or less"
        assert error["message_fr"] == f"doit être d'au plus {MAX_DATABASE_ID}"


def test_the_largest_id_is_simply_not_found(as_user) -> None:
    response = as_user(EMPLOYER).get(f"/applications/{MAX_DATABASE_ID}")
    assert response.status_code == 404


@pytest.mark.parametrize("written", ["twelve", "9" * 5000])
def test_an_id_that_is_not_a_usable_number_names_the_parameter(as_user, written: str) -> None:
    response = as_user(EMPLOYER).get(f"/applications/{written}")
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert (error["field"], error["message_en"], error["message_fr"]) == (
        "application_id",
        "must be a whole number",
        "doit être un nombre entier",
    )


def test_an_offset_beyond_the_databases_integers_names_the_parameter(as_user) -> None:
    response = as_user(OFFICER).get("/applications", offset=str(MAX_DATABASE_ID + 1))
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "offset"


def test_the_largest_offset_is_an_empty_page(as_user) -> None:
    response = as_user(OFFICER).get("/applications", offset=str(MAX_DATABASE_ID))
    assert response.status_code == 200
    assert response.json()["items"] == []


def test_a_page_size_out_of_bounds_names_the_limit_in_both_languages(as_user) -> None:
    response = as_user(OFFICER).get("/applications", limit="0")
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert (error["field"], error["message_en"], error["message_fr"]) == (
        "limit",
        "must be 1 or more",
        "doit être d'au moins 1",
    )


def test_a_filter_outside_its_codes_is_refused(as_user) -> None:
    response = as_user(FINANCE).get("/budgets", jurisdiction="XX")
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "jurisdiction"


def test_a_token_request_without_a_password_names_the_field(as_user) -> None:
    response = as_user(None).post("/auth/token", {"username": EMPLOYER.username})
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "password", "message_en": "is required", "message_fr": "est obligatoire"}
    ]


def test_a_username_with_a_nul_character_is_refused_before_any_query(as_user) -> None:
    response = as_user(None).post("/auth/token", {"username": "demo\x00", "password": "x"})
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "username"


def test_one_application_reads_back_with_its_explanation_and_history(as_user, make_body) -> None:
    client = as_user(EMPLOYER)
    created = client.post("/applications", make_body()).json()
    detail = client.get(f"/applications/{created['id']}").json()
    assert detail["history"][0]["from"] == ""
    assert detail["history"][0]["to"] == "draft"
    assert any(step["target"] == "trainees[0].federal" for step in detail["explanation"])


def test_trainees_given_as_null_are_refused_not_quoted_as_none(as_user, make_body) -> None:
    response = as_user(EMPLOYER).post("/applications", make_body(trainees=None))
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "trainees", "message_en": "must be a list", "message_fr": "doit être une liste"}
    ]
    assert applications().count() == 0


@pytest.mark.parametrize("key", ["note", "reason"])
def test_a_transition_body_field_that_is_not_text_is_refused(as_user, make_body, key) -> None:
    client = as_user(EMPLOYER)
    created = client.post("/applications", make_body()).json()
    response = client.post(f"/applications/{created['id']}/submit", {key: {}})
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == key
    assert Application.objects.get(pk=created["id"]).state == "draft"


def test_a_query_parameter_given_twice_is_refused_not_read_as_its_last_value(as_user) -> None:
    response = as_user(OFFICER).get("/applications", offset=["true", "0"])
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "field": "offset",
            "message_en": "must be given once",
            "message_fr": "ne doit figurer qu'une fois",
        }
    ]


@pytest.mark.parametrize("path", ["/applications", "/quote"])
@pytest.mark.parametrize("employers", [True, 7, {"id": "acme"}, "acme"])
def test_employers_that_are_not_a_list_are_named_not_a_crash(
    as_user, make_body, path: str, employers: object
) -> None:
    """Found by Schemathesis in CI: `"employers": true` raised a TypeError (500)."""
    response = as_user(EMPLOYER).post(path, make_body(employers=employers))
    assert response.status_code == 422
    assert [e["field"] for e in response.json()["errors"]] == ["employers"]
    assert applications().count() == 0


ODD_VALUES = [True, 7, "x", {}, [], None, [True], [{"id": 1}]]
TOP_LEVEL = ["jurisdiction", "region", "employers", "training", "trainees"]
# (region, None) is not odd: without a region the jurisdiction's rules apply.
WRONG_SHAPES = [(k, v) for k in TOP_LEVEL for v in ODD_VALUES if (k, v) != ("region", None)]


@pytest.mark.parametrize(("key", "odd"), WRONG_SHAPES)
def test_any_top_level_field_of_the_wrong_shape_is_refused_never_a_crash(
    as_user, make_body, key: str, odd: object
) -> None:
    for path in ("/quote", "/applications"):
        response = as_user(EMPLOYER).post(path, make_body(**{key: odd}))
        assert response.status_code in (400, 422), (path, key, odd, response.content[:300])
        assert response["Content-Type"] == "application/problem+json"
    assert applications().count() == 0
