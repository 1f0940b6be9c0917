"""The application being written: kept as a draft step by step (over sign-out), listed on the
dashboard, resumed, deleted or cancelled only after confirmation, kept over a language switch."""

from __future__ import annotations

import html

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.conftest import TRAINING_STEP, applications, declare
from tests.personas import APPLICANT, EMPLOYER, OFFICER

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import FormDraft
from jobgrant.service.web.views.employer_apply import DRAFT_KEY

pytestmark = pytest.mark.django_db

TRAINING = TRAINING_STEP  # read only: each use copies it


def signed_in(username: str = EMPLOYER.username) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


@pytest.fixture
def employer(demo: None) -> Client:
    return signed_in()


def two_steps_done(client: Client) -> FormDraft:
    organizations = {"lead": str(APPLICANT.get().pk), "partner-TOTAL_FORMS": "0", "action": "next"}
    assert client.post("/en/employer/apply/organizations/", organizations).status_code == 302
    training = {**TRAINING, "action": "next"}
    assert client.post("/en/employer/apply/training/", training).status_code == 302
    return FormDraft.objects.get()


def test_each_completed_step_is_saved_in_a_draft_of_the_user(employer: Client) -> None:
    draft = two_steps_done(employer)
    assert draft.owner.username == EMPLOYER.username
    assert draft.lead == APPLICANT.get()
    assert draft.step == "training"
    assert draft.data["organizations"] == {"lead": str(APPLICANT.get().pk), "partners": []}
    assert draft.data["training"]["provider_name"] == "Mohawk College"
    assert applications().count() == 0  # a draft is not an application


def test_a_step_in_error_saves_nothing(employer: Client) -> None:
    response = employer.post(
        "/en/employer/apply/organizations/",
        {"lead": "", "partner-TOTAL_FORMS": "0", "action": "next"},
    )
    assert response.status_code == 422
    assert not FormDraft.objects.exists()


def test_the_draft_outlives_sign_out_and_is_resumed_from_the_dashboard(employer: Client) -> None:
    draft = two_steps_done(employer)
    employer.post("/en/sign-out/")
    again = signed_in()
    page = html.unescape(again.get("/en/employer/").content.decode())
    row = page[page.index(f'id="draft-{draft.pk}"') :]
    row = row[: row.index("</tr>")]
    assert APPLICANT.name in row and "Training and provider" in row
    resumed = again.post(f"/en/employer/drafts/{draft.pk}/resume/")
    assert resumed.status_code == 302
    assert again.get(resumed["Location"])["Location"] == "/en/employer/apply/trainees/"
    page = again.get("/en/employer/apply/training/").content.decode()
    assert 'value="Mohawk College"' in page


def test_deleting_a_draft_asks_first(employer: Client) -> None:
    draft = two_steps_done(employer)
    url = f"/fr/employeur/brouillons/{draft.pk}/supprimer/"
    asked = employer.get(url)
    assert asked.status_code == 200
    page = html.unescape(asked.content.decode())
    assert "Supprimer ce brouillon?" in page and 'id="confirm-delete"' in page
    assert FormDraft.objects.filter(pk=draft.pk).exists()  # asking deletes nothing
    deleted = employer.post(url)
    assert deleted.status_code == 302 and deleted["Location"] == "/fr/employeur/"
    assert not FormDraft.objects.exists()
    assert DRAFT_KEY not in employer.session
    notice = html.unescape(employer.get("/fr/employeur/").content.decode())
    assert "La demande que vous aviez commencée a été abandonnée." in notice


def test_nobody_else_sees_resumes_or_deletes_a_draft(employer: Client) -> None:
    draft = two_steps_done(employer)
    other = User.objects.create_user(username="other-clerk", role=Role.EMPLOYER)
    other.employers.set([APPLICANT.get()])  # even someone acting for the same employer
    client = signed_in("other-clerk")
    assert f'id="draft-{draft.pk}"' not in client.get("/en/employer/").content.decode()
    assert client.post(f"/en/employer/drafts/{draft.pk}/resume/").status_code == 404
    assert client.get(f"/en/employer/drafts/{draft.pk}/delete/").status_code == 404
    assert client.post(f"/en/employer/drafts/{draft.pk}/delete/").status_code == 404
    assert FormDraft.objects.filter(pk=draft.pk).exists()
    refusals = AuditEntry.objects.filter(actor="other-clerk", action__startswith="refused.")
    assert {(e.object_type, e.object_id) for e in refusals} == {("formdraft", str(draft.pk))}
    assert {e.summary["status"] for e in refusals} == {404}


def test_cancelling_the_application_asks_first(employer: Client) -> None:
    two_steps_done(employer)
    trainees = employer.get("/en/employer/apply/trainees/").content.decode()
    assert 'href="/en/employer/apply/cancel/" id="cancel-application"' in trainees  # a link
    asked = employer.get("/en/employer/apply/cancel/")
    assert asked.status_code == 200
    assert "Cancel this application?" in asked.content.decode()
    assert FormDraft.objects.count() == 1
    assert employer.post("/en/employer/apply/cancel/").status_code == 302
    assert not FormDraft.objects.exists()


@pytest.mark.parametrize(("lang", "other"), [("en", "fr"), ("fr", "en")])
def test_the_language_button_keeps_what_was_typed_even_unchecked(
    employer: Client, lang: str, other: str
) -> None:
    organizations = {"lead": str(APPLICANT.get().pk), "partner-TOTAL_FORMS": "0", "action": "next"}
    employer.post(page_path(lang, "/employer/apply/organizations/"), organizations)
    typed = {**TRAINING, "hours": "douze", "provider_name": "Collège Boréal"}
    step = html.unescape(
        employer.get(page_path(lang, "/employer/apply/training/")).content.decode()
    )
    assert (
        f'formaction="{page_path(other, "/employer/apply/training/")}"' in step
    )  # the button's target
    response = employer.post(
        page_path(other, "/employer/apply/training/"), {**typed, "switch-language": "yes"}
    )
    assert response.status_code == 302
    assert response["Location"] == page_path(other, "/employer/apply/training/")
    page = html.unescape(employer.get(response["Location"]).content.decode())
    assert f'<html lang="{other}">' in page
    assert 'value="douze"' in page and 'value="Collège Boréal"' in page
    assert "<gcds-error-summary" not in page  # switching is not submitting


def test_the_language_button_keeps_the_trainee_rows(employer: Client) -> None:
    two_steps_done(employer)
    bn = APPLICANT.get().business_number
    rows = {
        "trainee-TOTAL_FORMS": "2",
        "trainee-0-employer": bn,
        "trainee-0-tuition": "900",
        "trainee-1-employer": bn,
        "trainee-1-tuition": "12,5",
        "switch-language": "yes",
    }
    response = employer.post("/fr/employeur/demander/personnes-en-formation/", rows)
    assert response["Location"] == "/fr/employeur/demander/personnes-en-formation/"
    page = employer.get(response["Location"]).content.decode()
    assert 'id="trainee-1-tuition" name="trainee-1-tuition" value="12,5"' in page


def test_a_draft_is_deleted_when_it_is_submitted(employer: Client) -> None:
    two_steps_done(employer)
    bn = APPLICANT.get().business_number
    rows = {
        "trainee-TOTAL_FORMS": "1",
        "trainee-0-employer": bn,
        "trainee-0-status": "existing-employee",
        "trainee-0-tuition": "9000",
    }
    assert employer.post("/en/employer/apply/trainees/", rows).status_code == 302
    declare(employer)
    assert employer.post("/en/employer/apply/review/", {"confirm": "yes"}).status_code == 302
    assert applications().get().state == "submitted"
    assert not FormDraft.objects.exists()


def test_drafts_are_written_by_the_action_only_for_employers(demo: None) -> None:
    from jobgrant.service.errors import ServiceError

    officer = OFFICER.get()
    with pytest.raises(ServiceError):
        actions.save_form_draft(officer, None, "organizations", {})
    assert not FormDraft.objects.exists()


def test_applying_again_starts_a_new_application_and_keeps_the_open_draft(
    employer: Client,
) -> None:
    draft = two_steps_done(employer)
    response = employer.get("/en/employer/apply/?new=1")
    assert response["Location"] == "/en/employer/apply/organizations/"
    assert DRAFT_KEY not in employer.session
    assert FormDraft.objects.filter(pk=draft.pk).exists()
