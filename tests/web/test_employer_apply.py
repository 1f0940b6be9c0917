"""The employer's step-by-step application: each step's checks, the full flow, consortia."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.conftest import TRAINING_STEP, applications, changes_audited, declare
from tests.personas import APPLICANT, EMPLOYER, OFFICER, PARTNER

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.demo_support import business_number
from jobgrant.service.grants.models.applications import (
    Application,
    ApplicationEmployer,
    FormDraft,
    StateChange,
)
from jobgrant.service.registry.models import Employer
from jobgrant.service.web.views.employer_apply import DRAFT_KEY

pytestmark = pytest.mark.django_db

APPLY = "/employer/apply/"


def rows_written() -> tuple[int, int, int, int]:
    return (
        applications().count(),
        ApplicationEmployer.objects.count(),
        StateChange.objects.count(),
        changes_audited(),
    )


@pytest.fixture
def employer(demo: None) -> Client:
    client = Client()
    client.force_login(EMPLOYER.get())
    return client


def training_form(**changes: str) -> dict[str, str]:
    form = {**TRAINING_STEP, "action": "next"}
    form.update(changes)
    return form


def trainee(i: int, employer: str, tuition: str = "15000.00", **more: str) -> dict[str, str]:
    row = {
        f"trainee-{i}-employer": employer,
        f"trainee-{i}-status": "existing-employee",
        f"trainee-{i}-tuition": tuition,
        f"trainee-{i}-student_fees": "",
        f"trainee-{i}-materials": "",
        f"trainee-{i}-exam_fees": "",
        f"trainee-{i}-wages_in_kind": "",
    }
    row.update({f"trainee-{i}-{k}": v for k, v in more.items()})
    return row


def trainees_form(*rows: dict[str, str], action: str = "next") -> dict[str, str]:
    form: dict[str, str] = {"trainee-TOTAL_FORMS": str(len(rows)), "action": action}
    for row in rows:
        form.update(row)
    return form


def through_training(client: Client, lang: str = "en", partners: tuple[str, ...] = ()) -> None:
    form: dict[str, Any] = {
        "lead": str(APPLICANT.get().pk),
        "partner-TOTAL_FORMS": str(len(partners)),
    }
    form.update({f"partner-{i}": bn for i, bn in enumerate(partners)})
    form["action"] = "next"
    response = client.post(page_path(lang, f"{APPLY}organizations/"), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert response["Location"] == page_path(lang, f"{APPLY}training/")
    response = client.post(page_path(lang, f"{APPLY}training/"), training_form())
    assert response.status_code == 302, response.content.decode()[:2000]
    assert response["Location"] == page_path(lang, f"{APPLY}trainees/")


def choose_applicant(client: Client, lang: str = "en") -> None:
    """Step 1 with the applicant applying alone."""
    form = {"lead": str(APPLICANT.get().pk), "partner-TOTAL_FORMS": "0", "action": "next"}
    assert client.post(page_path(lang, "/employer/apply/organizations/"), form).status_code == 302


def assert_error_summary(response: Any, *fields: str) -> str:
    page = response.content.decode()
    assert response.status_code == 422
    assert "<gcds-error-summary" in page
    assert page.index("<gcds-error-summary") < page.index("<h1")
    for field in fields:
        assert f'href="#{field}"' in page, field
        assert f'id="{field}-error"' in page or field.startswith(("setting", "third_party"))
    return html.unescape(page)


# --- Step 1: organizations --------------------------------------------------------------------


def test_organizations_step_lists_the_employers_the_user_acts_for(employer: Client) -> None:
    response = employer.get("/en/employer/apply/organizations/")
    page = response.content.decode()
    assert response.status_code == 200
    assert '<html lang="en">' in page
    assert APPLICANT.name in page and PARTNER.name in page
    assert 'id="lead"' in page and 'id="add-partner"' in page


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_organizations_step_refuses_a_missing_lead_and_unknown_partners(
    employer: Client, lang: str
) -> None:
    before = rows_written()
    response = employer.post(
        page_path(lang, "/employer/apply/organizations/"),
        {
            "lead": "",
            "partner-TOTAL_FORMS": "3",
            "partner-0": "12345",
            "partner-1": "123456782",
            "partner-2": "",
            "action": "next",
        },
    )
    page = assert_error_summary(response, "lead", "partner-0", "partner-1")
    if lang == "fr":
        assert "Choisissez l'organisation qui présente la demande." in page
        assert "aucun employeur inscrit" in page
    else:
        assert "Choose the organization that applies." in page
        assert "no registered employer has the business number 123456782" in page
    assert rows_written() == before


def test_a_lead_the_user_does_not_act_for_is_refused(employer: Client) -> None:
    other = Employer.objects.create(
        business_number=business_number("30000000"),
        name="Other Co",
        employees=10,
        jurisdiction="ON",
    )
    response = employer.post(
        "/en/employer/apply/organizations/",
        {"lead": str(other.pk), "partner-TOTAL_FORMS": "0", "action": "next"},
    )
    assert_error_summary(response, "lead")


def test_a_partner_listed_twice_or_as_the_lead_is_refused(employer: Client) -> None:
    bn = PARTNER.get().business_number
    response = employer.post(
        "/en/employer/apply/organizations/",
        {
            "lead": str(APPLICANT.get().pk),
            "partner-TOTAL_FORMS": "3",
            "partner-0": bn,
            "partner-1": bn,
            "partner-2": APPLICANT.get().business_number,
            "action": "next",
        },
    )
    page = assert_error_summary(response, "partner-1", "partner-2")
    assert 'href="#partner-0"' not in page


def test_partner_rows_are_added_and_removed_without_javascript(employer: Client) -> None:
    url = "/en/employer/apply/organizations/"
    added = employer.post(
        url, {"lead": str(APPLICANT.get().pk), "partner-TOTAL_FORMS": "0", "action": "add-partner"}
    )
    assert added.status_code == 200
    assert 'id="partner-0"' in added.content.decode()
    assert "autofocus" in added.content.decode()
    removed = employer.post(
        url,
        {
            "lead": str(APPLICANT.get().pk),
            "partner-TOTAL_FORMS": "1",
            "partner-0": "x",
            "remove-partner": "0",
        },
    )
    assert removed.status_code == 200
    assert 'id="partner-0"' not in removed.content.decode()


# --- Step 2: training -------------------------------------------------------------------------


def test_training_step_needs_the_organizations_first(employer: Client) -> None:
    response = employer.get("/en/employer/apply/training/")
    assert response.status_code == 302
    assert response["Location"] == "/en/employer/apply/organizations/?check=1"
    checked = employer.get(response["Location"])
    assert checked.status_code == 422
    assert 'href="#lead"' in checked.content.decode()


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_training_step_checks_every_field(employer: Client, lang: str) -> None:
    choose_applicant(employer, lang)
    before = rows_written()
    response = employer.post(
        page_path(lang, "/employer/apply/training/"),
        {
            "course": "",
            "setting": "underwater",
            "start_date": "2027-02-30",
            "end_date": "",
            "hours": "-3",
            "provider_name": "",
            "third_party": "maybe",
            "action": "next",
        },
    )
    page = assert_error_summary(
        response,
        "course",
        "setting-on-site",
        "start_date",
        "end_date",
        "hours",
        "provider_name",
        "third_party-yes",
    )
    assert 'id="setting-error"' in page and 'id="third_party-error"' in page
    assert 'aria-invalid="true"' in page
    if lang == "fr":
        assert "2027-02-30 n'est pas un jour du calendrier; février 2027 compte 28 jours" in page
        assert "Indiquez le nom du cours ou du programme." in page
    else:
        assert "Enter the name of the course or program." in page
    assert rows_written() == before


@pytest.mark.parametrize(
    ("lang", "course", "message"),
    [
        ("en", "", "Enter the name of the course or program."),
        ("fr", "   ", "Indiquez le nom du cours ou du programme."),
        ("en", "x" * 201, "The course or program name must have at most 200 characters."),
        ("fr", "é" * 201, "Le nom du cours ou du programme doit compter au plus 200 caractères."),
        (
            "en",
            "CNC\tmachining",
            "The course or program name must hold only letters, digits, spaces and punctuation.",
        ),
        (
            "fr",
            "CNC\x00machining",
            "Le nom du cours ou du programme ne doit contenir que des lettres, des chiffres, des "
            "espaces et des signes de ponctuation.",
        ),
    ],
)
def test_the_training_step_requires_a_course_of_200_characters_at_most(
    employer: Client, lang: str, course: str, message: str
) -> None:
    choose_applicant(employer, lang)
    before = rows_written()
    response = employer.post(
        page_path(lang, "/employer/apply/training/"), training_form(course=course)
    )
    page = assert_error_summary(response, "course")
    error = page[page.index('id="course-error"') :]
    assert error[: error.index("</p>")].endswith(f"{message}</strong>")
    assert rows_written() == before


@pytest.mark.parametrize(
    ("lang", "label", "hint"),
    [
        ("en", "Course or program name", "for example CNC machining certificate."),
        ("fr", "Nom du cours ou du programme", "par exemple certificat en usinage CNC."),
    ],
)
def test_the_training_step_asks_for_the_course_first(
    employer: Client, lang: str, label: str, hint: str
) -> None:
    choose_applicant(employer, lang)
    page = html.unescape(
        employer.get(page_path(lang, "/employer/apply/training/")).content.decode()
    )
    assert f'<label for="course">{label}</label>' in page
    assert hint in page[page.index('id="course-hint"') :][:300]
    assert page.index('id="course"') < page.index('id="setting-on-site"')


def test_a_course_of_200_characters_is_kept_trimmed(employer: Client) -> None:
    choose_applicant(employer)
    course = "  " + "é" * 200 + " "
    response = employer.post("/en/employer/apply/training/", training_form(course=course))
    assert response.status_code == 302
    assert FormDraft.objects.get().data["training"]["course"] == course  # kept as typed
    page = employer.get("/en/employer/apply/trainees/").content.decode()
    assert f'<dd id="training-course">{"é" * 200}</dd>' in page


def test_the_end_date_must_not_precede_the_start(employer: Client) -> None:
    choose_applicant(employer)
    response = employer.post("/en/employer/apply/training/", training_form(end_date="2027-01-10"))
    page = assert_error_summary(response, "end_date")
    assert "must not be before its start date" in page


def test_training_in_a_year_without_an_open_intake_is_refused(employer: Client) -> None:
    choose_applicant(employer)
    response = employer.post(
        "/fr/employeur/demander/formation/",
        training_form(start_date="2028-05-01", end_date="2028-06-01"),
    )
    page = assert_error_summary(response, "start_date")
    assert "Aucun appel de demandes n'est ouvert pour une formation" in page
    assert "qui commence le 1er mai 2028 (Ontario)" in page


# --- Step 3: trainees and costs ---------------------------------------------------------------


def test_trainees_step_checks_rows_and_amounts(employer: Client) -> None:
    through_training(employer)
    before = rows_written()
    response = employer.post(
        "/en/employer/apply/trainees/",
        trainees_form(
            trainee(0, APPLICANT.get().business_number, tuition="12,50,0", status="boss"),
            trainee(1, "999999999", tuition="-5", exam_fees="1.234"),
        ),
    )
    page = assert_error_summary(
        response,
        "trainee-0-status",
        "trainee-0-tuition",
        "trainee-1-employer",
        "trainee-1-tuition",
        "trainee-1-exam_fees",
    )
    assert "Tuition or trainer fees, trainee 1: enter an amount in dollars" in page
    assert "Examination fees, trainee 2: use at most two decimals (cents)." in page
    assert rows_written() == before


def test_amounts_are_read_as_people_write_them(employer: Client) -> None:
    through_training(employer)
    bn = APPLICANT.get().business_number
    response = employer.post(
        "/fr/employeur/demander/personnes-en-formation/",
        trainees_form(
            trainee(0, bn, tuition="14 000,00 $", materials="1\u00a0000"), action="calculate"
        ),
    )
    page = response.content.decode()
    assert response.status_code == 200, page
    assert "5\u00a0000,00\u00a0$" in page  # 15 000 $ -> 5 000 $ each
    draft = FormDraft.objects.get(pk=employer.session[DRAFT_KEY])
    assert draft.data["trainees"][0]["tuition"] == "14 000,00 $"


def test_trainee_rows_are_added_and_removed_without_javascript(employer: Client) -> None:
    through_training(employer)
    bn = APPLICANT.get().business_number
    added = employer.post(
        "/en/employer/apply/trainees/", trainees_form(trainee(0, bn), action="add-trainee")
    )
    page = added.content.decode()
    assert added.status_code == 200
    assert 'id="trainee-1-tuition"' in page
    assert 'value="15000.00"' in page  # the first row is kept
    form = trainees_form(trainee(0, bn), trainee(1, bn, tuition="9"), action="")
    form["remove-trainee"] = "0"
    removed = employer.post("/en/employer/apply/trainees/", form)
    page = removed.content.decode()
    assert 'id="trainee-1-tuition"' not in page
    assert 'id="trainee-0-tuition" name="trainee-0-tuition" value="9"' in page


def test_ineligibility_reasons_appear_next_to_what_they_concern(employer: Client) -> None:
    choose_applicant(employer)
    # Training given in house: not an input error, a reason.
    in_house = training_form(third_party="no")
    assert employer.post("/en/employer/apply/training/", in_house).status_code == 302
    bn = APPLICANT.get().business_number
    response = employer.post(
        "/en/employer/apply/trainees/",
        trainees_form(trainee(0, bn), trainee(1, bn, tuition="0"), action="calculate"),
    )
    page = response.content.decode()
    assert response.status_code == 200
    provider_slot = page[page.index('id="reason-third_party"') :]
    assert provider_slot.index("Not eligible:") < 200
    assert "in-house training is not eligible" in provider_slot[:400]
    trainee_slot = page[page.index('id="reason-trainee-1"') :]
    assert "Trainee 2 has no eligible training costs." in trainee_slot[:300]
    assert 'aria-describedby="reason-trainee-1"' in page
    assert page.count("Not eligible as entered.") == 1  # in the status line, once


# --- Step 5 and the whole flow ----------------------------------------------------------------


def test_the_review_step_needs_the_confirmation(employer: Client) -> None:
    through_training(employer)
    bn = APPLICANT.get().business_number
    employer.post("/en/employer/apply/trainees/", trainees_form(trainee(0, bn)))
    declare(employer)
    before = rows_written()
    response = employer.post("/en/employer/apply/review/", {"action": "submit"})
    page = assert_error_summary(response, "confirm")
    assert "Confirm that the information is true and complete." in page
    assert rows_written() == before


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_an_employer_applies_step_by_step_and_submits(employer: Client, lang: str) -> None:
    through_training(employer, lang)
    bn = APPLICANT.get().business_number
    response = employer.post(
        page_path(lang, "/employer/apply/trainees/"), trainees_form(trainee(0, bn))
    )
    assert response.status_code == 302
    assert response["Location"] == page_path(lang, "/employer/apply/declarations/")
    response = declare(employer, lang)
    assert response["Location"] == page_path(lang, "/employer/apply/review/")
    assert applications().count() == 0  # nothing written before the submission
    review = employer.get(response["Location"]).content.decode()
    five = "5\u00a0000,00\u00a0$" if lang == "fr" else "$5,000.00"
    assert review.count(five) >= 3  # federal, provincial, employer
    course = "Cours ou programme" if lang == "fr" else "Course or program"
    assert f'<dt>{course}</dt><dd id="training-course">CNC machining certificate</dd>' in review
    submitted = employer.post(
        page_path(lang, "/employer/apply/review/"), {"confirm": "yes", "action": "submit"}
    )
    application = applications().get()
    assert submitted.status_code == 302
    assert submitted["Location"] == page_path(lang, f"/employer/applications/{application.pk}/")
    assert application.state == "submitted"
    assert (application.federal_cents, application.provincial_cents) == (500_000, 500_000)
    assert application.employer_cents == 500_000
    assert application.request["trainees"][0]["costs"]["tuition"] == "15000.00"
    assert application.request["training"]["course"] == "CNC machining certificate"
    assert DRAFT_KEY not in employer.session
    assert not FormDraft.objects.exists()  # the draft went with the submission
    detail = employer.get(submitted["Location"]).content.decode()
    assert f"{application.pk}" in detail
    assert "Soumise" in detail if lang == "fr" else "Submitted" in detail
    assert '<dd id="training-course">CNC machining certificate</dd>' in detail
    # A second submission of the same form finds no draft: it starts again, writing nothing.
    again = employer.post(page_path(lang, "/employer/apply/review/"), {"confirm": "yes"})
    assert again.status_code == 302
    assert applications().count() == 1


def test_a_consortium_application_shows_each_employers_share(employer: Client) -> None:
    partner = PARTNER.get().business_number
    through_training(employer, partners=(f"{partner[:3]} {partner[3:6]} {partner[6:]}",))
    lead = APPLICANT.get().business_number
    form = trainees_form(trainee(0, lead, tuition="15000"), trainee(1, partner, tuition="6000"))
    review = employer.post("/en/employer/apply/trainees/", form)
    assert review.status_code == 302
    declare(employer)
    page = employer.get("/en/employer/apply/review/").content.decode()
    # cjg-2013: a third each; the partner's $6,000 -> $2,000 federal, $2,000 provincial.
    partner_row = page[page.index(f'id="quote-employer-{partner}"') :]
    partner_row = partner_row[: partner_row.index("</tr>")]
    assert PARTNER.name in partner_row and "Partner" in partner_row
    assert partner_row.count("$2,000.00") == 3
    total = page[page.index('id="quote-total"') :]
    assert total[: total.index("</tr>")].count("$7,000.00") == 3
    employer.post("/en/employer/apply/review/", {"confirm": "yes"})
    application = applications().get()
    links = list(application.employers.order_by("position"))
    assert [link.employer.name for link in links] == [
        APPLICANT.name,
        PARTNER.name,
    ]
    assert [link.government_cents for link in links] == [1_000_000, 400_000]


def test_a_problem_the_service_finds_at_submission_is_shown_and_nothing_written(
    employer: Client,
) -> None:
    through_training(employer)
    employer.post(
        "/en/employer/apply/trainees/", trainees_form(trainee(0, APPLICANT.get().business_number))
    )
    declare(employer)
    User.objects.filter(username=EMPLOYER.username).update(role=Role.EMPLOYER)
    APPLICANT.get().users.clear()  # the user no longer acts for the lead employer
    before = rows_written()
    response = employer.post("/en/employer/apply/review/", {"confirm": "yes"})
    assert response.status_code == 302  # the draft no longer checks: back to step 1
    assert response["Location"] == "/en/employer/apply/organizations/?check=1"
    assert rows_written() == before


def test_cancelling_discards_the_draft(employer: Client) -> None:
    through_training(employer)
    response = employer.post("/en/employer/apply/cancel/")
    assert response.status_code == 302
    assert DRAFT_KEY not in employer.session
    assert not FormDraft.objects.exists()


def test_only_employers_may_apply(demo: None) -> None:
    client = Client()
    client.force_login(OFFICER.get())
    assert client.get("/en/employer/apply/organizations/").status_code == 403
    assert client.get("/en/employer/").status_code == 403
    anonymous = Client().get("/en/employer/apply/organizations/")
    assert anonymous.status_code == 302 and "/sign-in/" in anonymous["Location"]


def test_a_refusal_at_submission_names_its_field_and_links_to_its_step(
    employer: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the service still refuses at the end is shown on the review page, naming the
    field in the page's language, with a link to the part of the review to change."""
    from jobgrant.service.errors import bad_input, problem
    from jobgrant.service.grants.applications import actions

    def refuse(user: User, body: Any, **_: Any) -> Application:
        raise bad_input([problem("trainees[0].costs.tuition", "is refused", "est refusé")])

    monkeypatch.setattr(actions, "create_application", refuse)
    through_training(employer, "fr")
    employer.post(
        "/fr/employeur/demander/personnes-en-formation/",
        trainees_form(trainee(0, APPLICANT.get().business_number)),
    )
    declare(employer, "fr")
    before = rows_written()
    response = employer.post("/fr/employeur/demander/verification/", {"confirm": "yes"})
    page = assert_error_summary(response)
    assert 'href="#change-trainees"' in page
    assert (
        "Droits de scolarité ou honoraires du formateur, personne en formation 1\u00a0: est refusé"
        in page
    )
    assert rows_written() == before
    assert FormDraft.objects.filter(pk=employer.session[DRAFT_KEY]).exists()  # kept to correct


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("trainees[0].costs.tuition", "trainee-0-tuition"),
        ("trainees[3].wages_in_kind", "trainee-3-wages_in_kind"),
        ("trainees[1].employer_id", "trainee-1-employer"),
        ("trainees[2]", "trainee-2-employer"),
        ("employers[0].business_number", "lead"),
        ("employers[2].business_number", "partner-1"),
        ("training.start_date", "start_date"),
        ("training.course", "course"),
        ("training.provider.third_party", "third_party"),
        ("jurisdiction", "lead"),
    ],
)
def test_service_field_paths_map_to_form_fields(path: str, field: str) -> None:
    from jobgrant.service.web.forms.employer import field_for_path

    assert field_for_path(path) == field


@pytest.mark.parametrize(
    ("typed", "cents"),
    [
        ("", 0),
        ("1500", 150000),
        ("1 500,50 $", 150050),
        ("$1,500.50", 150050),
        ("1,500", 150000),
        ("12,5", 1250),
        ("1.500,25", 150025),
        ("0.5", 50),
    ],
)
def test_amounts_typed_in_either_language_are_read_to_the_cent(typed: str, cents: int) -> None:
    from jobgrant.service.web.forms.employer import parse_money

    assert parse_money(typed) == cents
