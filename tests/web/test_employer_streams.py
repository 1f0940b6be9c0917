"""The wizard's stream: asked on the training step only where more than one stream is open.

Ontario's ranked stream gets a winter intake open from today (the program manager's), beside
the first-come grant open all year: the employer chooses one, in English or French, and the
application is made to it."""

from __future__ import annotations

import html

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.conftest import applications, declare
from tests.personas import APPLICANT, EMPLOYER, PROGRAM_MANAGER
from tests.service.api.test_api_streams import first_come
from tests.web.test_employer_apply import (
    choose_applicant,
    trainee,
    trainees_form,
    training_form,
)

from jobgrant.service.grants.intakes.actions import create_intake
from jobgrant.service.grants.models.applications import Intake, Selection, Stream

pytestmark = pytest.mark.django_db
TRAINING = "/employer/apply/training/"


@pytest.fixture
def employer(demo: None) -> Client:
    client = Client()
    client.force_login(EMPLOYER.get())
    return client


@pytest.fixture
def winter(demo: None) -> Intake:
    stream = Stream.objects.get(program__jurisdiction="ON", selection=Selection.RANKED)
    body = {
        "name_en": "Winter intake",
        "name_fr": "Appel d'hiver",
        "opens_on": "2026-11-29",
        "closes_on": "2027-01-31",
    }
    return create_intake(PROGRAM_MANAGER.get(), stream, body)


def test_with_one_stream_open_the_step_asks_none(employer: Client) -> None:
    choose_applicant(employer)
    page = employer.get(f"/en{TRAINING}").content.decode()
    assert 'name="stream"' not in page


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_step_names_each_open_stream_its_window_and_selection(
    employer: Client, winter: Intake, lang: str
) -> None:
    choose_applicant(employer, lang)
    page = html.unescape(employer.get(page_path(lang, TRAINING)).content.decode())
    assert f'id="stream-{winter.stream_id}"' in page
    assert f'id="stream-{first_come().stream_id}"' in page
    if lang == "fr":
        assert "À quel volet présentez-vous votre demande\u00a0?" in page
        assert (
            "Subvention Canada-Ontario pour l'emploi, sélection par classement\u00a0: Appel"
            " d'hiver, du 29 novembre 2026 au 31 janvier 2027; les demandes sont classées à la"
            " fermeture de l'appel de demandes." in page
        )
        assert "premier arrivé, premier servi" in page
    else:
        assert "Which stream do you apply to?" in page
        assert (
            "Canada-Ontario Job Grant, ranked selection: Winter intake, from November 29, 2026"
            " to January 31, 2027; applications are ranked when the intake closes." in page
        )
        assert "first come, first served." in page
        assert "More than one stream takes applications now" in page


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_stream_must_be_chosen(employer: Client, winter: Intake, lang: str) -> None:
    choose_applicant(employer, lang)
    response = employer.post(page_path(lang, TRAINING), training_form())
    assert response.status_code == 422
    page = html.unescape(response.content.decode())
    assert f'href="#stream-{first_come().stream_id}"' in page
    assert 'id="stream-error"' in page
    expected = "Choisissez le volet" if lang == "fr" else "Choose the stream you apply to."
    assert expected in page


def test_a_stream_not_open_is_refused(employer: Client, winter: Intake) -> None:
    choose_applicant(employer)
    spring = Stream.objects.filter(program__jurisdiction="BC").first()
    assert spring is not None
    response = employer.post(f"/en{TRAINING}", training_form(stream=str(spring.pk)))
    assert response.status_code == 422


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_application_is_made_to_the_stream_chosen(
    employer: Client, winter: Intake, lang: str
) -> None:
    choose_applicant(employer, lang)
    response = employer.post(page_path(lang, TRAINING), training_form(stream=str(winter.stream_id)))
    assert response.status_code == 302, response.content.decode()[:2000]
    bn = APPLICANT.get().business_number
    employer.post(page_path(lang, "/employer/apply/trainees/"), trainees_form(trainee(0, bn)))
    declare(employer, lang)
    review = employer.get(page_path(lang, "/employer/apply/review/")).content.decode()
    name = winter.stream.name_fr if lang == "fr" else winter.stream.name_en
    assert f'<dd id="training-stream">{name}</dd>' in html.unescape(review)
    submitted = employer.post(
        page_path(lang, "/employer/apply/review/"), {"confirm": "yes", "action": "submit"}
    )
    assert submitted.status_code == 302
    made = applications().get()
    assert (made.intake, made.stream) == (winter, winter.stream)
    assert made.request["stream"] == winter.stream_id


def test_the_under_represented_question_follows_the_stream_chosen(
    employer: Client, winter: Intake
) -> None:
    """The ranked stream scores under-represented trainees (bc-2016), the first-come grant
    opened before it does not: the trainee step asks only when the ranked stream is chosen."""
    Stream.objects.filter(pk=winter.stream_id).update(scoring="bc-2016")
    choose_applicant(employer)
    steps = {}
    for stream in (winter.stream_id, first_come().stream_id):
        employer.post(f"/en{TRAINING}", training_form(stream=str(stream)))
        steps[stream] = employer.get("/en/employer/apply/trainees/").content.decode()
    assert "under-represented" in steps[winter.stream_id]
    assert "under-represented" not in steps[first_come().stream_id]
