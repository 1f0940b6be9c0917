"""The trainee step asks which trainees belong to an under-represented group only where the
stream the application goes to ranks on it; the review shows the answer, the application keeps
it, and the officer's file page gives the count."""

from __future__ import annotations

import pytest
from django.test import Client
from tests.conftest import applications, declare
from tests.personas import APPLICANT, OFFICER
from tests.web.test_employer_apply import (
    employer,  # noqa: F401 - the fixture
    through_training,
    trainee,
    trainees_form,
)

from jobgrant.service.grants.models.applications import (
    Intake,
    IntakeState,
    Selection,
    Stream,
)

pytestmark = pytest.mark.django_db
LABEL = "Trainee 1 belongs to a group under-represented in the labour market"
LABEL_FR = (
    "La personne en formation 1 appartient à un groupe sous-représenté sur le marché du travail"
)


def ranked_under(scoring: str) -> None:
    """Ontario's open intake, the one the applicant's applications go to, ranked under
    `scoring`."""
    intake = Intake.objects.get(stream__program__jurisdiction="ON", state=IntakeState.OPEN)
    Stream.objects.filter(pk=intake.stream_id).update(selection=Selection.RANKED, scoring=scoring)


def two_rows(**first: str) -> dict[str, str]:
    bn = APPLICANT.get().business_number
    return trainees_form(trainee(0, bn, "4500.00", **first), trainee(1, bn, "4500.00"))


def test_asked_where_the_stream_scores_it_shown_on_review_kept_and_counted(
    employer: Client,  # noqa: F811
) -> None:
    ranked_under("bc-2016")
    through_training(employer, "fr")
    step = employer.get("/fr/employeur/demander/personnes-en-formation/").content.decode()
    assert LABEL_FR in step and "a accepté que ce soit déclaré" in step
    posted = employer.post("/en/employer/apply/trainees/", two_rows(under_represented="yes"))
    assert posted.status_code == 302
    english = employer.get("/en/employer/apply/trainees/").content.decode()
    assert LABEL in english and "used only to rank the application" in english
    assert (
        'id="trainee-0-under_represented" name="trainee-0-under_represented" value="yes"'
        " checked" in english
    )
    declare(employer)
    review = employer.get("/en/employer/apply/review/").content.decode()
    assert "Declared from a group under-represented in the labour market" in review
    assert "(used only to rank the application): Trainee 1</p>" in review
    employer.post("/en/employer/apply/review/", {"confirm": "yes", "action": "submit"})
    application = applications().get()
    first, second = application.request["trainees"]
    assert first["under_represented"] is True and "under_represented" not in second
    officer = Client()
    officer.force_login(OFFICER.get())
    page = officer.get(f"/en/officer/applications/{application.pk}/").content.decode()
    assert "1 of 2 trainees, as declared by the employer" in page
    french = officer.get(f"/fr/agent/demandes/{application.pk}/").content.decode()
    assert "1 sur 2 personnes en formation, selon la déclaration de l'employeur" in french


def test_not_asked_nor_sent_where_the_stream_does_not_score_it(employer: Client) -> None:  # noqa: F811
    ranked_under("on-2017")  # Ontario's 2017 set has no under-represented criterion
    through_training(employer)
    step = employer.get("/en/employer/apply/trainees/").content.decode()
    assert "under-represented" not in step
    posted = employer.post("/en/employer/apply/trainees/", two_rows(under_represented="yes"))
    assert posted.status_code == 302
    declare(employer)
    review = employer.get("/en/employer/apply/review/").content.decode()
    assert "under-represented" not in review
    employer.post("/en/employer/apply/review/", {"confirm": "yes", "action": "submit"})
    application = applications().get()
    assert all("under_represented" not in t for t in application.request["trainees"])
    officer = Client()
    officer.force_login(OFFICER.get())
    page = officer.get(f"/en/officer/applications/{application.pk}/").content.decode()
    assert "under-represented-count" not in page
