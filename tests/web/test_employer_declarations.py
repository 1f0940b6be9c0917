"""The declarations on the application: the wizard's step (help on every question, errors that
name their field in both languages, nothing written on bad input), the review, the employer's
and the officer's pages, and applications made before declarations were asked."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.conftest import DECLARATIONS_STEP, applications
from tests.personas import APPLICANT, EMPLOYER, OFFICER
from tests.web.test_employer_apply import rows_written, through_training, trainee, trainees_form

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import FormDraft
from jobgrant.service.grants.models.declarations import ApplicationDeclaration

pytestmark = pytest.mark.django_db

STEP = "/employer/apply/declarations/"
CONSULTANT = {
    **DECLARATIONS_STEP,
    "provider_public_institution": "no",
    "provider_business_number": "123 456 782",
    "provider_phone": "(905) 555-0101",
    "provider_postal_code": "l9c1e9",
    "prepared_by": "consultant",
    "preparer_name": "Grant Ready Consulting",
    "preparer_fee": "1 500,00 $",
    "related_to_provider": "yes",
    "relations": ["shared_address", "owners"],
    "other_funding": "yes",
    "other_funding_program": "Ontario wage subsidy",
    "other_funding_amount": "2000",
}


@pytest.fixture
def employer(demo: None) -> Client:
    client = Client()
    client.force_login(EMPLOYER.get())
    return client


def to_declarations(client: Client, lang: str = "en") -> None:
    through_training(client, lang)
    rows = trainees_form(trainee(0, APPLICANT.get().business_number))
    answer = client.post(page_path(lang, "/employer/apply/trainees/"), rows)
    assert answer["Location"] == page_path(lang, STEP)


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def draft_declarations() -> Any:
    return FormDraft.objects.get().data.get("declarations")


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ("Who prepared this application?", "British Columbia", "share an address")),
        ("fr", ("Qui a préparé cette demande?", "Colombie-Britannique", "partagent une adresse")),
    ],
)
def test_the_step_asks_each_question_with_its_help(
    employer: Client, lang: str, words: tuple[str, ...]
) -> None:
    to_declarations(employer, lang)
    page = text(employer.get(page_path(lang, STEP)))
    for phrase in words:
        assert phrase in page
    for name in ("prepared_by", "related_to_provider", "other_funding", "trainer_name"):
        assert f'id="{name}-hint"' in page, name
    assert "Mohawk College" in page  # the provider the training step named


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "Say who prepared this application."),
        ("fr", "Indiquez qui a préparé cette demande."),
    ],
)
def test_an_empty_step_names_every_question_and_writes_nothing(
    employer: Client, lang: str, message: str
) -> None:
    to_declarations(employer, lang)
    before = rows_written()
    answer = employer.post(page_path(lang, STEP), {"action": "next"})
    page = text(answer)
    assert answer.status_code == 422
    assert page.index("<gcds-error-summary") < page.index("<h1")
    assert message in page
    for anchor in ("prepared_by-employer", "provider_street_address", "trainer_name"):
        assert f'href="#{anchor}"' in page, anchor
    assert 'id="employer_attests_no_conflict-error"' in page
    assert rows_written() == before
    assert draft_declarations() is None  # not kept half


@pytest.mark.parametrize(
    ("lang", "fee", "ties"),
    [
        (
            "en",
            "Enter the fee paid to the consultant or provider who prepared the application",
            "Tick how your organization and the provider are related.",
        ),
        (
            "fr",
            "Entrez les honoraires payés au consultant ou au fournisseur",
            "Cochez les liens entre votre organisation et le fournisseur.",
        ),
    ],
)
def test_a_consultant_needs_a_fee_and_related_needs_how(
    employer: Client, lang: str, fee: str, ties: str
) -> None:
    to_declarations(employer, lang)
    typed = {**CONSULTANT, "preparer_fee": "", "relations": [], "action": "next"}
    answer = employer.post(page_path(lang, STEP), typed)
    page = text(answer)
    assert answer.status_code == 422
    assert fee in page and ties in page
    assert 'href="#preparer_fee"' in page and 'href="#relations-owners"' in page
    assert draft_declarations() is None


def test_a_bad_business_number_phone_and_amount_are_each_named(employer: Client) -> None:
    to_declarations(employer)
    typed = {
        **CONSULTANT,
        "provider_business_number": "123456789",
        "provider_phone": "555-0100",
        "other_funding_amount": "deux mille",
        "action": "next",
    }
    page = text(employer.post(page_path("en", STEP), typed))
    assert "Provider's business number: must be a business number of 9 digits" in page
    assert "Provider's telephone number: must be a telephone number of 10 digits" in page
    assert "Amount of the other funding: enter an amount in dollars" in page


def test_a_private_provider_gives_its_business_number(employer: Client) -> None:
    to_declarations(employer, "fr")
    typed = {**DECLARATIONS_STEP, "provider_public_institution": "no", "action": "next"}
    page = text(employer.post(page_path("fr", STEP), typed))
    assert "Entrez le numéro d'entreprise du fournisseur" in page


def test_the_review_waits_for_the_declarations(employer: Client) -> None:
    to_declarations(employer)
    answer = employer.get(page_path("en", "/employer/apply/review/"))
    assert answer["Location"] == page_path("en", STEP) + "?check=1"


def test_a_consultants_declarations_go_through_to_the_officer(employer: Client) -> None:
    to_declarations(employer)
    # the relations are a list: posted as two values of one field
    answer = employer.post(page_path("en", STEP), {**CONSULTANT, "action": "next"})
    assert answer["Location"] == page_path("en", "/employer/apply/review/")
    review = text(employer.get(answer["Location"]))
    assert "A consultant paid by the employer: Grant Ready Consulting, paid $1,500.00" in review
    assert "Yes: Owners in common, The same address" in review
    assert "Yes: Ontario wage subsidy, $2,000.00" in review
    assert 'id="change-declarations"' in review
    submitted = employer.post(answer["Location"], {"confirm": "yes", "action": "submit"})
    application = applications().get()
    assert application.state == "submitted"
    made = ApplicationDeclaration.objects.get(application=application)
    assert (made.prepared_by, made.preparer_fee_cents) == ("consultant", 150_000)
    assert made.relations == ["owners", "shared_address"]
    assert (made.other_funding_cents, made.provider_business_number) == (200_000, "123456782")
    assert (made.provider_phone, made.provider_postal_code) == ("905-555-0101", "L9C 1E9")
    assert made.declared_by == EMPLOYER.get() and made.employer_attests_no_conflict
    entry = AuditEntry.objects.get(action="application.declare", object_id=str(application.pk))
    assert entry.summary["preparer_fee_cents"] == 150_000
    assert "Grant Ready Consulting" not in str(entry.summary)  # names stay out of the trail
    detail = text(employer.get(submitted["Location"]))
    assert "Grant Ready Consulting" in detail and 'id="declarations-summary"' in detail
    officer = Client()
    officer.force_login(OFFICER.get())
    page = text(officer.get(page_path("fr", f"/officer/applications/{application.pk}/")))
    assert "Un consultant payé par l'employeur\u00a0: Grant Ready Consulting" in page
    assert "Oui\u00a0: Des propriétaires communs, La même adresse" in page


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", "Not asked when this application was made"),
        ("fr", "Non demandées lorsque cette demande a été faite"),
    ],
)
def test_an_application_made_before_declarations_says_so(
    demo: None, make_body: Any, lang: str, words: str
) -> None:
    application = actions.create_application(EMPLOYER.get(), make_body())
    actions.submit_application(EMPLOYER.get(), application)
    ApplicationDeclaration.objects.filter(application=application).delete()  # as before them
    for persona, path in (
        (OFFICER, f"/officer/applications/{application.pk}/"),
        (EMPLOYER, f"/employer/applications/{application.pk}/"),
    ):
        client = Client()
        client.force_login(persona.get())
        answer = client.get(page_path(lang, path))
        assert answer.status_code == 200
        assert words in text(answer)


def test_a_draft_without_declarations_says_so_and_is_not_submitted(
    employer: Client, make_body: Any
) -> None:
    body = make_body()
    del body["declarations"]
    application = actions.create_application(EMPLOYER.get(), body)
    path = page_path("en", f"/employer/applications/{application.pk}/")
    assert "Not made yet: they are required to submit" in text(employer.get(path))
    answer = employer.post(page_path("en", f"/employer/applications/{application.pk}/submit/"))
    assert "The declarations are required to submit" in text(employer.get(answer["Location"]))
    application.refresh_from_db()
    assert application.state == "draft"
