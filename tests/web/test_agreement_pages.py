"""The agreement's pages: the employer reads it, downloads it, accepts it after a confirmation
step or declines it; the officer reads it, sees the offers expiring soon and withdraws one.
Both languages; bad input writes nothing."""

from __future__ import annotations

import pytest
from django.test import Client
from tests import canonical
from tests.addresses import page_path
from tests.conftest import changes_audited
from tests.personas import EMPLOYER, OFFICER, OUTSIDER_EMPLOYER
from tests.service.grants.agreement_helpers import approved, committed

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.models.agreements import Agreement, AgreementVersion

pytestmark = pytest.mark.django_db
ACCEPT = {
    "signatory": "Ada Tremblay",
    "title": "Owner",
    "agreement": "yes",
    "cost_schedule": "yes",
    "general_terms": "yes",
}


def signed_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


def url(
    agreement: Agreement, rest: str = "", language: str = "en", section: str = "employer"
) -> str:
    return page_path(
        language, f"/{section}/applications/{agreement.application_id}/agreement/{rest}"
    )


def test_the_approved_application_leads_to_the_agreement(demo) -> None:
    agreement = canonical.put("approved").agreement
    page = signed_in(EMPLOYER.username).get(
        f"/en/employer/applications/{agreement.application_id}/"
    )
    assert 'id="read-agreement"' in page.content.decode()
    assert url(agreement) in page.content.decode()


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "Schedule of approved costs"), ("fr", "Tableau des coûts approuvés")],
)
def test_the_agreement_page_shows_the_stored_document_in_the_page_language(
    demo, language, words
) -> None:
    agreement = canonical.put("approved").agreement
    page = signed_in(EMPLOYER.username).get(url(agreement, language=language))
    text = page.content.decode()
    assert page.status_code == 200
    assert words in text
    assert AgreementVersion.objects.get(agreement=agreement).content_sha256 in text
    assert 'id="accept-agreement"' in text and 'id="decline-agreement"' in text
    assert page["Cache-Control"].startswith("max-age=0") or "no-store" in page["Cache-Control"]


@pytest.mark.parametrize(("person", "section"), [(EMPLOYER, "employer"), (OFFICER, "officer")])
def test_the_pdf_downloads_in_both_languages(demo, person, section) -> None:
    agreement = canonical.put("approved").agreement
    client = signed_in(person.username)
    for language in ("en", "fr"):
        answer = client.get(url(agreement, f"{language}.pdf", section=section))
        assert answer.status_code == 200 and answer["Content-Type"] == "application/pdf"
        assert answer.content.startswith(b"%PDF")
    assert client.get(url(agreement, "de.pdf", section=section)).status_code == 404


def test_accepting_takes_a_confirmation_step_then_records_the_acceptance(demo) -> None:
    agreement = canonical.put("approved").agreement
    client = signed_in(EMPLOYER.username)
    step = client.post(url(agreement, "accept/"), ACCEPT)
    assert step.status_code == 200 and 'id="confirm-accept"' in step.content.decode()
    assert Agreement.objects.get(pk=agreement.pk).state == "issued"  # nothing written yet
    shown = AgreementVersion.objects.get(agreement=agreement).content_sha256
    assert f'name="sha256" value="{shown}"' in step.content.decode()  # the hash it showed
    done = client.post(url(agreement, "accept/"), {**ACCEPT, "confirm": "yes", "sha256": shown})
    assert done.status_code == 302
    assert Agreement.objects.get(pk=agreement.pk).state == "accepted"
    version = AgreementVersion.objects.get(agreement=agreement)
    assert version.signatory_name == "Ada Tremblay" and version.accepted_sha256 == shown
    page = client.get(url(agreement)).content.decode()
    assert 'id="agreement-accepted"' in page and 'id="accept-agreement"' not in page


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "whose text is not the one you read"), ("fr", "pas celui que vous avez lu")],
)
def test_an_acceptance_of_a_text_no_longer_offered_is_refused(demo, language, words) -> None:
    agreement = approved()
    client = signed_in(EMPLOYER.username)
    client.get(url(agreement, language=language))
    entries = changes_audited()
    answer = client.post(
        url(agreement, "accept/", language), {**ACCEPT, "confirm": "yes", "sha256": "a" * 64}
    )
    assert answer.status_code == 422
    assert words in answer.content.decode()
    assert Agreement.objects.get(pk=agreement.pk).state == "issued"
    assert changes_audited() == entries


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "Confirm that you accept the general terms."),
        ("fr", "Confirmez que vous acceptez les conditions générales."),
    ],
)
def test_a_missing_confirmation_is_named_and_nothing_is_written(demo, language, message) -> None:
    agreement = canonical.put("approved").agreement
    employer = signed_in(EMPLOYER.username)
    employer.get(url(agreement, language=language))  # read first: its text is written then
    entries = changes_audited()
    body = {k: v for k, v in ACCEPT.items() if k != "general_terms"} | {"confirm": "yes"}
    answer = employer.post(url(agreement, "accept/", language), body)
    assert answer.status_code == 422
    text = answer.content.decode()
    assert "gcds-error-summary" in text and message in text
    assert Agreement.objects.get(pk=agreement.pk).state == "issued"
    assert changes_audited() == entries


def test_declining_asks_for_a_reason_then_releases_the_commitment(demo) -> None:
    before = committed("federal")
    agreement = canonical.put("approved").agreement
    client = signed_in(EMPLOYER.username)
    assert client.get(url(agreement, "decline/")).status_code == 200
    assert client.post(url(agreement, "decline/"), {"reason": ""}).status_code == 422
    assert (
        client.post(url(agreement, "decline/"), {"reason": "Course cancelled."}).status_code == 302
    )
    assert Agreement.objects.get(pk=agreement.pk).state == "declined"
    assert committed("federal") == before
    page = client.get(url(agreement)).content.decode()
    assert 'id="accept-agreement"' not in page


def test_an_outsider_cannot_read_the_agreement(demo) -> None:
    agreement = canonical.put("approved").agreement
    assert signed_in(OUTSIDER_EMPLOYER.username).get(url(agreement)).status_code == 404


def test_the_officer_sees_the_offer_expiring_and_withdraws_it_with_a_reason(demo) -> None:
    agreement = canonical.put("approved").agreement
    client = signed_in(OFFICER.username)
    queue = client.get("/fr/agent/ententes/")
    assert queue.status_code == 200
    assert f"/fr/agent/demandes/{agreement.application_id}/entente/" in queue.content.decode()
    page = client.get(url(agreement, section="officer")).content.decode()
    assert 'id="withdraw-offer"' in page and 'id="accept-agreement"' not in page
    withdraw = url(agreement, "withdraw/", section="officer")
    assert client.post(withdraw, {"reason": ""}).status_code == 422
    assert client.post(withdraw, {"reason": "Provider closed."}).status_code == 302
    assert Agreement.objects.get(pk=agreement.pk).state == "withdrawn"
    accepted_queue = client.get("/en/officer/agreements/?state=withdrawn").content.decode()
    assert f"/en/officer/applications/{agreement.application_id}/agreement/" in accepted_queue


@pytest.mark.parametrize(
    ("typed", "language", "shown"),
    [
        ("120.00", "en", "120"),
        ("120.00", "fr", "120"),
        ("7.50", "en", "7.5"),
        ("7.50", "fr", "7,5"),
    ],
)
def test_the_hours_are_written_as_the_language_writes_them(demo, typed, language, shown) -> None:
    """The wizard stores hours as "120.00": the document writes "120", and "7,5" in French."""
    training = {
        "setting": "off-site",
        "start_date": "2027-01-11",
        "end_date": "2027-03-26",
        "hours": typed,
        "provider": {"name": "Mohawk College", "third_party": True},
    }
    agreement = approved(training=training)
    text = signed_in(EMPLOYER.username).get(url(agreement, language=language)).content.decode()
    hours = "Hours of training" if language == "en" else "Heures de formation"
    assert f"<dt>{hours}</dt><dd>{shown}</dd>" in text


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_cost_tables_are_the_services_tables_each_in_its_scrolling_box(demo, language) -> None:
    """Styled as the other tables (jg-table) and each in a box that scrolls it, named by its
    caption, so that a narrow window scrolls the table, not the page; the stored text, hashed
    and accepted, is not changed."""
    agreement = canonical.put("approved").agreement
    text = (
        signed_in(OFFICER.username)
        .get(url(agreement, language=language, section="officer"))
        .content.decode()
    )
    for table in ("agreement-cost-lines", "agreement-shares"):
        box = (
            f'<div class="jg-scroll" role="region" tabindex="0" aria-labelledby="{table}-caption">'
            f'<table id="{table}" class="jg-table jg-table--wraps">\n<caption id="{table}-caption">'
        )
        assert box in text
    assert text.count("</table></div>") == 2
    version = AgreementVersion.objects.get(agreement=agreement)
    assert 'class="jg-table' not in version.content_en + version.content_fr
