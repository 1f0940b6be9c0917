"""What people found on the employer's pages: the errors say what is actually wrong (a past
start date, a wrong check digit), in page order; the date control and its hint agree in both
languages; an application the page calls "Not eligible" is not submitted without a warning."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.conftest import TRAINING_STEP, applications, declare
from tests.personas import APPLICANT, EMPLOYER

from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Application

pytestmark = pytest.mark.django_db

TRAINING = {**TRAINING_STEP, "action": "next"}


@pytest.fixture
def employer(demo: None) -> Client:
    client = Client()
    client.force_login(EMPLOYER.get())
    return client


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def choose_applicant(client: Client, lang: str = "en") -> None:
    form = {"lead": str(APPLICANT.get().pk), "partner-TOTAL_FORMS": "0", "action": "next"}
    assert client.post(page_path(lang, "/employer/apply/organizations/"), form).status_code == 302


def summary_links(page: str) -> list[str]:
    summary = page[page.index("<gcds-error-summary") : page.index("</gcds-error-summary>")]
    return re.findall(r'<a href="#([^"]+)"', summary)


# --- Item 9: say what is actually wrong -------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_start_date_in_the_past_is_called_so(employer: Client, lang: str) -> None:
    choose_applicant(employer, lang)
    response = employer.post(
        page_path(lang, "/employer/apply/training/"), {**TRAINING, "start_date": "2025-05-01"}
    )
    assert response.status_code == 422
    page = text(response)
    if lang == "fr":
        assert "La date de début de la formation, le 1er mai 2025, est passée" in page
        assert "le 30 novembre 2026 ou plus tard" in page
        assert "Aucun appel de demandes" not in page
    else:
        assert "The training start date, May 1, 2025, is in the past" in page
        assert "on November 30, 2026 or later" in page
        assert "No intake is open" not in page


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_business_number_with_a_wrong_check_digit_is_called_so(
    employer: Client, lang: str
) -> None:
    good = APPLICANT.get().business_number
    wrong = good[:8] + str((int(good[8]) + 1) % 10)
    response = employer.post(
        page_path(lang, "/employer/apply/organizations/"),
        {
            "lead": str(APPLICANT.get().pk),
            "partner-TOTAL_FORMS": "1",
            "partner-0": wrong,
            "action": "next",
        },
    )
    page = text(response)
    assert response.status_code == 422
    if lang == "fr":
        assert f"Partenaire 1\u00a0: {wrong} n'est pas un numéro d'entreprise valide" in page
        assert "chiffre de contrôle" in page
    else:
        assert f"Partner 1: {wrong} is not a valid business number" in page
        assert "check digit" in page
    assert "enter a business number of 9 digits" not in page


def test_the_error_summary_lists_the_errors_in_page_order(employer: Client) -> None:
    """The end-before-start and no-intake checks run after the fields' own checks; the summary
    still follows the page."""
    choose_applicant(employer)
    response = employer.post(
        "/en/employer/apply/training/",
        {
            **TRAINING,
            "course": " ",
            "setting": "",
            "start_date": "2025-05-01",
            "end_date": "2025-04-01",
            "provider_name": "",
        },
    )
    assert summary_links(text(response)) == [
        "course",
        "setting-on-site",
        "start_date",
        "end_date",
        "provider_name",
    ]


# --- Item 8: the date control and its hint agree ------------------------------------------------


@pytest.mark.parametrize(("lang", "hint"), [("en", "YYYY-MM-DD"), ("fr", "AAAA-MM-JJ")])
def test_dates_are_typed_as_the_hint_shows_them(employer: Client, lang: str, hint: str) -> None:
    choose_applicant(employer, lang)
    page = text(employer.get(page_path(lang, "/employer/apply/training/")))
    control = re.search(r'<input type="([a-z]+)" id="start_date"[^>]*>', page)
    assert control is not None
    assert control[1] == "text"  # not type=date, which shows the browser's own format
    assert 'pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}"' in control[0]
    assert 'aria-describedby="start_date-hint' in control[0]
    start_hint = page[page.index('id="start_date-hint"') :]
    assert hint in start_hint[:300] and "2027-01-11" in start_hint[:300]
    bad = text(
        employer.post(
            page_path(lang, "/employer/apply/training/"), {**TRAINING, "start_date": "11/01/2027"}
        )
    )
    error = bad[bad.index('id="start_date-error"') :]
    assert hint in error[:300]


# --- Item 3: a warning before an application that is not eligible is submitted ------------------


def not_eligible_review(client: Client) -> None:
    """Training given in house: the quote says not eligible."""
    choose_applicant(client)
    in_house = {**TRAINING, "third_party": "no"}
    assert client.post("/en/employer/apply/training/", in_house).status_code == 302
    rows = {
        "trainee-TOTAL_FORMS": "1",
        "trainee-0-employer": APPLICANT.get().business_number,
        "trainee-0-status": "existing-employee",
        "trainee-0-tuition": "9000",
    }
    assert client.post("/en/employer/apply/trainees/", rows).status_code == 302
    declare(client)


def test_the_review_warns_with_the_reasons_and_asks_for_an_acknowledgment(
    employer: Client,
) -> None:
    not_eligible_review(employer)
    page = text(employer.get("/en/employer/apply/review/"))
    warning = page[page.index('id="not-eligible-warning"') :]
    warning = warning[: warning.index("</section>")]
    assert "will likely be refused" in warning
    assert "in-house training is not eligible" in warning
    assert 'id="understood"' in page
    refused = employer.post("/en/employer/apply/review/", {"confirm": "yes"})
    assert refused.status_code == 422
    assert summary_links(text(refused)) == ["understood"]
    assert applications().count() == 0
    submitted = employer.post("/en/employer/apply/review/", {"confirm": "yes", "understood": "yes"})
    assert submitted.status_code == 302
    application = applications().get()
    assert application.state == "submitted" and not application.eligible


def test_an_eligible_review_asks_no_acknowledgment(employer: Client) -> None:
    choose_applicant(employer)
    employer.post("/en/employer/apply/training/", TRAINING)
    rows = {
        "trainee-TOTAL_FORMS": "1",
        "trainee-0-employer": APPLICANT.get().business_number,
        "trainee-0-status": "existing-employee",
        "trainee-0-tuition": "9000",
    }
    employer.post("/en/employer/apply/trainees/", rows)
    declare(employer)
    page = employer.get("/en/employer/apply/review/").content.decode()
    assert 'id="not-eligible-warning"' not in page and 'id="understood"' not in page


def test_the_application_page_warns_before_submitting_a_draft_that_is_not_eligible(
    employer: Client, make_body: Callable[..., dict[str, Any]]
) -> None:
    user = EMPLOYER.get()
    started = make_body()["training"] | {"start_date": "2026-11-02", "end_date": "2027-01-29"}
    draft = actions.create_application(user, make_body(training=started))
    assert not draft.eligible
    url = f"/fr/employeur/demandes/{draft.pk}/"
    page = text(employer.get(url))
    assert 'id="not-eligible-warning"' in page and "sera probablement refusée" in page
    assert employer.post(url + "soumettre/").status_code == 302
    assert Application.objects.get(pk=draft.pk).state == "draft"  # not without the tick
    notice = text(employer.get(url))
    assert "Pour la soumettre quand même" in notice
    employer.post(url + "soumettre/", {"understood": "yes"})
    assert Application.objects.get(pk=draft.pk).state == "submitted"
