"""The wizard's training step bounds the dates and names the field: a start that is not after
today, and a training longer than the policy allows, are refused on step 2 with what is allowed,
and no warning about the dates on file is left beside dates just typed."""

from __future__ import annotations

import datetime as dt
import html
from typing import Any

import pytest
import time_machine
from django.test import Client
from tests.addresses import page_path
from tests.conftest import TRAINING_STEP
from tests.personas import APPLICANT, EMPLOYER

pytestmark = pytest.mark.django_db

TRAINING = "/employer/apply/training/"


@pytest.fixture
def employer(demo: None) -> Client:
    client = Client()
    client.force_login(EMPLOYER.get())
    form = {"lead": str(APPLICANT.get().pk), "partner-TOTAL_FORMS": "0", "action": "next"}
    assert client.post("/en/employer/apply/organizations/", form).status_code == 302
    return client


def refused(client: Client, lang: str = "en", **typed: str) -> str:
    response = client.post(page_path(lang, TRAINING), {**TRAINING_STEP, "action": "next", **typed})
    assert response.status_code == 422, response.status_code
    return html.unescape(response.content.decode())


def field_error(page: str, field: str) -> str:
    start = page.index(f'id="{field}-error"')
    return page[start : page.index("</", start)]


@pytest.mark.parametrize("start", ["2026-11-02", "2026-11-29"])  # the clock says 2026-11-29
def test_a_start_not_after_today_is_refused_on_the_training_step(
    employer: Client, start: str
) -> None:
    page = refused(employer, start_date=start)
    assert 'href="#start_date"' in page
    error = field_error(page, "start_date")
    assert "is today" in error if start == "2026-11-29" else "is in the past" in error
    assert "training must start after you apply, on November 30, 2026 or later" in error


def test_the_past_start_is_said_in_french_with_a_french_date(employer: Client) -> None:
    page = refused(employer, lang="fr", start_date="2026-11-02")
    error = field_error(page, "start_date")
    assert "2 novembre 2026" in error and "30 novembre 2026" in error


@pytest.mark.parametrize("end", ["9999-12-31", "2028-01-11"])
def test_a_training_longer_than_the_policy_allows_is_refused_naming_the_end_date(
    employer: Client, end: str
) -> None:
    page = refused(employer, end_date=end)
    assert 'href="#end_date"' in page
    error = field_error(page, "end_date")
    assert "at most 365 days" in error
    assert "it must end by January 10, 2028" in error


def test_a_training_of_365_days_is_accepted(employer: Client) -> None:
    typed = {**TRAINING_STEP, "action": "next", "end_date": "2028-01-10"}
    assert employer.post(page_path("en", TRAINING), typed).status_code == 302


def test_no_warning_about_the_dates_on_file_is_left_beside_dates_just_typed(
    employer: Client, settings: Any
) -> None:
    week = 30 * 86400  # the session outlives the week this test moves the clock on
    settings.SESSION_COOKIE_AGE = settings.SESSION_EMPLOYER_IDLE_SECONDS = week
    settings.SESSION_ABSOLUTE_SECONDS = week
    # Typed on November 29 with a start on December 1; a week later that start has passed, and
    # the training on file is not eligible.
    typed = {**TRAINING_STEP, "action": "next", "start_date": "2026-12-01"}
    assert employer.post(page_path("en", TRAINING), typed).status_code == 302
    bn = APPLICANT.get().business_number
    costs = {
        "trainee-TOTAL_FORMS": "1",
        "trainee-0-employer": bn,
        "trainee-0-status": "existing-employee",
        "trainee-0-tuition": "15000.00",
        "action": "next",
    }
    assert employer.post("/en/employer/apply/trainees/", costs).status_code == 302
    with time_machine.travel(dt.datetime(2026, 12, 7, 15, 0, tzinfo=dt.UTC)):
        costs_page = employer.get("/en/employer/apply/trainees/")
        assert costs_page.status_code == 302  # the training on file no longer passes step 2
        on_file = html.unescape(employer.get(costs_page["Location"]).content.decode())
        page = refused(employer, start_date="2027-01-11", hours="")
    assert "December 1, 2026, is in the past" in field_error(on_file, "start_date")
    assert "December 8, 2026 or later" in on_file
    assert "Not eligible:" not in on_file
    assert "Not eligible:" not in page
    assert "December 1, 2026" not in page


@pytest.mark.parametrize(
    ("lang", "typed", "said"),
    [
        (
            "en",
            {"end_date": "2027-02-30"},
            "Training end date: 2027-02-30 is not a day of the calendar; February 2027 has 28 "
            "days.",
        ),
        (
            "fr",
            {"end_date": "2028-02-30"},
            "Date de fin de la formation : 2028-02-30 n'est pas un jour du calendrier; février "
            "2028 compte 29 jours.",
        ),
        (
            "en",
            {"start_date": "2027-13-01"},
            "Training start date: 2027-13-01 has no month 13; the months go from 01 to 12.",
        ),
        (
            "en",
            {"start_date": "2027-01-11", "end_date": "2027-01-12", "hours": "49"},
            "Hours of training: a training of 2 days has at most 48 hours.",
        ),
        (
            "fr",
            {"start_date": "2027-01-11", "end_date": "2027-01-11", "hours": "25"},
            "Heures de formation : une formation de 1 jour compte au plus 24 heures.",
        ),
    ],
)
def test_date_and_hour_errors_say_what_is_allowed(
    employer: Client, lang: str, typed: dict[str, str], said: str
) -> None:
    page = refused(employer, lang=lang, **typed).replace("\u00a0", " ")
    field = next(iter(typed)) if "hours" not in typed else "hours"
    assert said in field_error(page, field)
    assert f'href="#{field}"' in page
