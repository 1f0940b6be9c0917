"""The stream an application is made to: chosen by the employer where several are open.

Ontario's program has two streams: the first-come grant, open all year, and the ranked
selection, whose spring intake has been ranked. A program manager opens a second intake of the
ranked stream from today: two streams then take applications, and a body must say which."""

from __future__ import annotations

import pytest
from tests.personas import EMPLOYER, PROGRAM_MANAGER
from tests.service.api.test_api_quote import nothing_written

from jobgrant.service.grants.intakes.actions import create_intake
from jobgrant.service.grants.models.applications import (
    Application,
    Intake,
    IntakeState,
    Selection,
    Stream,
)

pytestmark = pytest.mark.django_db


def first_come() -> Intake:
    return Intake.objects.get(
        stream__program__jurisdiction="ON",
        stream__selection=Selection.FIRST_COME,
        state=IntakeState.OPEN,
    )


@pytest.fixture
def second_open(demo: None) -> Intake:
    """A winter intake of Ontario's ranked stream, open from today (2026-11-29)."""
    stream = Stream.objects.get(program__jurisdiction="ON", selection=Selection.RANKED)
    body = {
        "name_en": "Winter intake",
        "name_fr": "Appel d'hiver",
        "opens_on": "2026-11-29",
        "closes_on": "2027-01-31",
    }
    return create_intake(PROGRAM_MANAGER.get(), stream, body)


def errors_of(response) -> list[tuple[str, str, str]]:
    return [(e["field"], e["message_en"], e["message_fr"]) for e in response.json()["errors"]]


def test_with_one_stream_open_the_body_needs_none(as_user, make_body) -> None:
    response = as_user(EMPLOYER).post("/applications", make_body())
    assert response.status_code == 201, response.content
    made = Application.objects.get(pk=response.json()["id"])
    assert (made.intake, made.stream) == (first_come(), first_come().stream)


@pytest.mark.parametrize("path", ["/applications", "/quote"])
def test_with_two_open_a_body_without_a_stream_is_refused_naming_them(
    as_user, make_body, second_open, path
) -> None:
    with nothing_written():
        response = as_user(EMPLOYER).post(path, make_body())
    assert response.status_code == 422, response.content
    [(field, english, french)] = errors_of(response)
    assert field == "stream"
    assert english.startswith("is required: 2 streams take applications on 2026-11-29")
    assert french.startswith("est obligatoire\u00a0: 2 volets reçoivent des demandes")
    for intake in (first_come(), second_open):
        assert f"{intake.stream_id} ({intake.stream.name_en})" in english
        assert f"{intake.stream_id} ({intake.stream.name_fr})" in french


def test_the_stream_chosen_by_its_id_is_the_one_applied_to(as_user, make_body, second_open):
    employer = as_user(EMPLOYER)
    quoted = employer.post("/quote", make_body(stream=second_open.stream_id))
    assert quoted.status_code == 200, quoted.content
    response = employer.post("/applications", make_body(stream=second_open.stream_id))
    assert response.status_code == 201, response.content
    made = Application.objects.get(pk=response.json()["id"])
    assert (made.intake, made.stream) == (second_open, second_open.stream)
    other = employer.post("/applications", make_body(stream=first_come().stream_id))
    assert Application.objects.get(pk=other.json()["id"]).intake == first_come()


def test_a_code_names_the_stream_unless_several_open_ones_share_it(
    as_user, make_body, second_open
) -> None:
    with nothing_written():
        response = as_user(EMPLOYER).post("/applications", make_body(stream="CJG"))
    assert response.status_code == 422
    [(field, english, french)] = errors_of(response)
    assert field == "stream"
    assert english.startswith("names 2 open streams by the code CJG; give the id")
    assert french.startswith("désigne 2 volets ouverts par le code CJG")


def test_with_one_stream_open_its_code_or_id_names_it(as_user, make_body) -> None:
    employer = as_user(EMPLOYER)
    for chosen in ("CJG", first_come().stream_id):
        response = employer.post("/applications", make_body(stream=chosen))
        assert response.status_code == 201, response.content
        assert Application.objects.get(pk=response.json()["id"]).intake == first_come()


def test_a_closed_or_unknown_stream_is_refused_naming_the_field(as_user, make_body) -> None:
    ranked = Stream.objects.get(program__jurisdiction="ON", selection=Selection.RANKED)
    other_program = Stream.objects.filter(program__jurisdiction="BC").first()
    assert other_program is not None
    for chosen in (ranked.pk, other_program.pk, 2**63 - 1, "SCE"):
        with nothing_written():
            response = as_user(EMPLOYER).post("/applications", make_body(stream=chosen))
        assert response.status_code == 422, chosen
        [(field, english, french)] = errors_of(response)
        assert field == "stream"
        assert english.startswith("names no stream of the program taking applications")
        assert french.startswith("ne désigne aucun volet du programme")


@pytest.mark.parametrize("chosen", [True, 1.5, "", "X" * 33, 0, -4, 2**63, [], {}])
def test_a_stream_of_the_wrong_shape_is_named_with_the_other_bad_fields(
    as_user, make_body, chosen
) -> None:
    body = make_body(stream=chosen, region=7)
    with nothing_written():
        response = as_user(EMPLOYER).post("/applications", body)
    assert response.status_code == 422, response.content
    fields = [field for field, _, _ in errors_of(response)]
    assert fields[0] == "stream"
    assert "region" in fields


def test_a_null_stream_is_no_stream(as_user, make_body) -> None:
    response = as_user(EMPLOYER).post("/applications", make_body(stream=None))
    assert response.status_code == 201, response.content
