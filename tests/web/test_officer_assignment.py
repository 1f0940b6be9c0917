"""Assignment through the officer's pages: who holds a file on its review, "Assign to me" and
"Release" (POST, redirect, notice), refusals explained with nothing written, and the queue's
"Assigned to" filter and column, in both languages."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.utils import translation
from tests.addresses import page_path
from tests.conftest import changes_audited
from tests.personas import APPLICANT, EMPLOYER, FEDERAL_OFFICER, OFFICER, SECOND_OFFICER, Persona

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.applications.assignment import assign_application, release_application
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.web import audit_entries

pytestmark = pytest.mark.django_db
Body = Callable[..., dict[str, Any]]
ON_1, ON_2 = OFFICER.username, SECOND_OFFICER.username


def signed_in(who: str | Persona) -> Client:
    client = Client()
    username = who.username if isinstance(who, Persona) else who
    client.force_login(User.objects.get(username=username))
    return client


def text(response: Any) -> str:
    return html.unescape(response.content.decode()).replace("\u00a0", " ").replace("\u202f", " ")


def submitted(make_body: Body) -> Application:
    """A submitted application of the applicant persona's (named here, whatever employer
    make_body defaults to)."""
    employer = EMPLOYER.get()
    lead = [{"id": "acme", "business_number": APPLICANT.business_number}]
    application = actions.create_application(employer, make_body(employers=lead))
    return actions.submit_application(employer, application)


def assigned(application: Application, to: str) -> None:
    officer = User.objects.get(username=to)
    assign_application(officer, application, officer)


def press(client: Client, application: Application, language: str, button: str) -> Any:
    url = page_path(language, f"/officer/applications/{application.pk}/assignment/")
    return client.post(url, {"assignment": button})


def assignee(application: Application) -> str | None:
    found = Application.objects.select_related("assigned_to").get(pk=application.pk)
    return found.assigned_to.username if found.assigned_to else None


def cell(page: str, element_id: str) -> str:
    start = page.index(f'id="{element_id}"')
    return page[page.index(">", start) + 1 : page.index("</", start)]


# --- The review -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "nobody", "take", "notice", "you", "release"),
    [
        ("en", "Nobody", "Assign to me", "is assigned to you.", "You", "Release"),
        ("fr", "Personne", "M'attribuer", "vous est attribuée.", "Vous", "Libérer"),
    ],
)
def test_an_officer_takes_a_file_from_its_review_and_sees_it_is_theirs(
    make_body: Body, language: str, nobody: str, take: str, notice: str, you: str, release: str
) -> None:
    application = submitted(make_body)
    officer = signed_in(ON_1)
    review = page_path(language, f"/officer/applications/{application.pk}/")
    page = text(officer.get(review))
    assert cell(page, "application-assignee") == nobody
    assert f'id="take-button" class="jg-button">{take}<' in page
    assert 'id="release-button"' not in page

    response = press(officer, application, language, "take")
    assert response.status_code == 302 and response["Location"] == review
    assert assignee(application) == ON_1
    page = text(officer.get(review))
    assert 'id="notice"' in page and f"{application.pk} {notice}" in page
    assert cell(page, "application-assignee") == you
    assert f'id="release-button" class="jg-button jg-button--secondary">{release}<' in page
    assert 'id="take-button"' not in page


def test_the_officer_releases_their_file_and_it_is_assigned_to_nobody(make_body: Body) -> None:
    application = submitted(make_body)
    assigned(application, ON_1)
    officer = signed_in(ON_1)
    response = press(officer, application, "fr", "release")
    assert response.status_code == 302
    assert assignee(application) is None
    page = text(officer.get(response["Location"]))
    assert f"Vous avez libéré la demande {application.pk}" in page
    assert cell(page, "application-assignee") == "Personne"
    assert AuditEntry.objects.filter(action="application.release").count() == 1


def test_a_colleague_sees_who_holds_the_file_and_may_take_it_over(make_body: Body) -> None:
    application = submitted(make_body)
    assigned(application, ON_1)
    colleague = signed_in(ON_2)
    page = text(colleague.get(f"/en/officer/applications/{application.pk}/"))
    assert cell(page, "application-assignee") == ON_1
    assert f"Assigning it to you takes it from {ON_1}." in page
    assert press(colleague, application, "en", "take").status_code == 302
    assert assignee(application) == ON_2
    last = AuditEntry.objects.filter(action="application.assign").order_by("id").last()
    assert last is not None and last.summary["from"] == ON_1 and last.summary["to"] == ON_2


def test_releasing_a_file_held_by_someone_else_is_refused_and_writes_nothing(
    make_body: Body,
) -> None:
    application = submitted(make_body)
    assigned(application, ON_1)
    entries = changes_audited()
    response = press(signed_in(ON_2), application, "en", "release")
    assert response.status_code == 409
    page = text(response)
    assert 'id="refusal"' in page and "This application is not assigned to you" in page
    assert "Nothing was changed." in page
    assert assignee(application) == ON_1
    assert changes_audited() == entries


@pytest.mark.parametrize(
    ("language", "title"),
    [
        ("en", "This application cannot be assigned"),
        ("fr", "Cette demande ne peut pas être attribuée"),
    ],
)
def test_a_decided_file_offers_no_button_and_taking_it_is_refused(
    make_body: Body, language: str, title: str
) -> None:
    application = submitted(make_body)
    officer = User.objects.get(username=ON_1)
    actions.deny_application(officer, application, "Out of scope.")
    client = signed_in(ON_1)
    page = text(client.get(page_path(language, f"/officer/applications/{application.pk}/")))
    assert 'id="assignment-form"' not in page
    response = press(client, application, language, "take")
    assert response.status_code == 409
    assert title in text(response)
    assert assignee(application) is None


def test_an_unknown_button_is_explained_and_a_get_goes_back_to_the_review(make_body: Body) -> None:
    application = submitted(make_body)
    client = signed_in(ON_1)
    response = press(client, application, "en", "steal")
    assert response.status_code == 400
    assert "Use the button: assign to me or release." in text(response)
    assert assignee(application) is None
    toggle = client.get(f"/fr/agent/demandes/{application.pk}/attribution/")
    assert toggle.status_code == 302
    assert toggle["Location"] == f"/fr/agent/demandes/{application.pk}/"


def test_an_officer_of_another_government_cannot_reach_the_file(make_body: Body) -> None:
    application = submitted(make_body)
    response = press(signed_in(FEDERAL_OFFICER), application, "en", "take")
    assert response.status_code == 404
    assert assignee(application) is None


# --- The queue --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "heading", "nobody", "empty"),
    [
        ("en", "Assigned to", "Nobody", "No applications match these choices."),
        ("fr", "Attribuée à", "Personne", "Aucune demande ne correspond à ces choix."),
    ],
)
def test_the_queue_shows_who_holds_each_file_and_filters_on_it(
    make_body: Body, language: str, heading: str, nobody: str, empty: str
) -> None:
    mine, theirs, free = submitted(make_body), submitted(make_body), submitted(make_body)
    assigned(mine, ON_1)
    assigned(theirs, ON_2)
    officer = signed_in(ON_1)
    queue = page_path(language, "/officer/")

    page = text(officer.get(queue))
    assert f'<th scope="col">{heading}</th>' in page
    assert cell(page, f"assignee-{mine.pk}") == ON_1
    assert cell(page, f"assignee-{theirs.pk}") == ON_2
    assert nobody in page[page.index(f'id="assignee-{free.pk}"') :][:80]

    def listed(assigned: str) -> set[int]:
        found = text(officer.get(queue, {"assigned": assigned}))
        return {a.pk for a in (mine, theirs, free) if f'id="open-{a.pk}"' in found}

    assert listed("") == {mine.pk, theirs.pk, free.pk}
    assert listed("me") == {mine.pk}
    assert listed("nobody") == {free.pk}
    assert 'id="id_assigned"' in page

    release_application(User.objects.get(username=ON_1), mine)
    page = text(officer.get(queue, {"assigned": "me"}))
    assert f'id="queue-empty">{empty}<' in page


def test_the_queue_refuses_an_unknown_assignment_filter(make_body: Body) -> None:
    submitted(make_body)
    response = signed_in(ON_1).get("/en/officer/", {"assigned": "everyone-else"})
    assert response.status_code == 200
    page = text(response)
    assert '<gcds-error-summary id="error-summary"' in page
    assert 'id="queue-table"' not in page


# --- The audit trail in words -----------------------------------------------------------------


def test_the_auditor_reads_an_assignment_in_words_in_both_languages(make_body: Body) -> None:
    application = submitted(make_body)
    assigned(application, ON_1)
    first, second = User.objects.get(username=ON_1), User.objects.get(username=ON_2)
    assign_application(first, application, second)
    entry = AuditEntry.objects.filter(action="application.assign").order_by("id").last()
    assert entry is not None
    with translation.override("en"):
        assert audit_entries.action_label(entry.action) == "Application assigned"
        assert ("Assigned to", ON_2) in audit_entries.details(entry)
        assert ("Previously assigned to", ON_1) in audit_entries.details(entry)
    with translation.override("fr"):
        assert audit_entries.action_label("application.release") == "Demande libérée"
        assert ("Attribuée à", ON_2) in audit_entries.details(entry)
        assert ("État", "Soumise") in audit_entries.details(entry)
