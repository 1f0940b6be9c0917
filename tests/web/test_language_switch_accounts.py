"""The language button on the forms of accounts, invitations and the employer's other forms
(without JavaScript): what was typed is shown back in the other language, nothing is checked or
written, and a password is never shown back (ADR 0039)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.conftest import changes_audited
from tests.personas import EMPLOYER

from jobgrant.service.accounts.models import User

pytestmark = pytest.mark.django_db
SWITCH = {"switch-language": "yes"}


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def signed_in(username: str = EMPLOYER.username) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


def button(action: str) -> str:
    return f'id="switch-language" class="jg-link-button" formaction="{page_path("fr", action)}"'


def switched_page(response: Any) -> str:
    """A page answered to the language button: French, without an error."""
    assert response.status_code == 200
    page = text(response)
    assert '<html lang="fr">' in page and "<gcds-error-summary" not in page
    return page


def test_the_employers_withdrawal_keeps_its_reason(demo: None, make_body: Any) -> None:
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.models.applications import Application

    employer = EMPLOYER.get()
    application = actions.submit_application(
        employer, actions.create_application(employer, make_body())
    )
    path = f"/employer/applications/{application.pk}/withdraw/"
    client = signed_in()
    assert button(path) in text(client.get(f"/en{path}"))
    entries = changes_audited()
    page = switched_page(client.post(page_path("fr", path), {"note": "Projet reporté.", **SWITCH}))
    assert "Projet reporté.</textarea>" in page
    assert Application.objects.get(pk=application.pk).state == "submitted"
    assert changes_audited() == entries


def reauthenticated(user: User) -> Client:
    import time

    from jobgrant.service.accounts.actions import REAUTHENTICATED_AT

    client = Client()
    client.force_login(user)
    session = client.session
    session[REAUTHENTICATED_AT] = int(time.time())
    session.save()
    return client


def test_the_email_and_password_changes_keep_the_address_but_never_a_password(
    demo: None,
) -> None:
    from jobgrant.service.notifications.models import Message

    user = EMPLOYER.get()
    client = reauthenticated(user)
    assert button("/account/email/") in text(client.get("/en/account/email/"))
    assert button("/account/password/") in text(client.get("/en/account/password/"))
    entries, messages = changes_audited(), Message.objects.count()
    typed = {"email": "nouvelle@example.com"}
    page = switched_page(client.post("/fr/compte/courriel/", {**typed, **SWITCH}))
    assert 'value="nouvelle@example.com"' in page
    secret = {"new_password": "un-long-secret-42", "again": "un-long-secret-42"}
    page = switched_page(client.post("/fr/compte/mot-de-passe/", {**secret, **SWITCH}))
    assert "un-long-secret-42" not in page and 'id="passwords-not-kept"' in page
    user.refresh_from_db()
    assert user.check_password("un-long-secret-42") is False
    assert changes_audited() == entries and Message.objects.count() == messages


def test_the_password_reset_request_and_its_new_password_form(demo: None) -> None:
    from jobgrant.service.notifications.models import Message
    from jobgrant.service.people.password_reset import reset_link

    client = Client()
    assert button("/password-reset/") in text(client.get("/en/password-reset/"))
    messages = Message.objects.count()
    typed = {"email": "employer@example.com"}
    page = switched_page(client.post("/fr/mot-de-passe-oublie/", {**typed, **SWITCH}))
    assert 'value="employer@example.com"' in page
    assert Message.objects.count() == messages
    user = EMPLOYER.get()
    link = reset_link(user, "en")
    form_page = client.get(client.get(link)["Location"])
    assert button("/password-reset/set-password/") in text(form_page)
    secret = {"new_password": "un-long-secret-42", "again": "un-long-secret-42"}
    page = switched_page(client.post("/fr/mot-de-passe-oublie/set-password/", {**secret, **SWITCH}))
    assert "un-long-secret-42" not in page and 'id="passwords-not-kept"' in page
    user.refresh_from_db()
    assert user.check_password("un-long-secret-42") is False


def test_the_invitation_forms_keep_what_was_typed(demo: None) -> None:
    """Inviting a colleague, and the invited person's account form (its passwords never shown
    back)."""
    from tests.personas import APPLICANT
    from tests.service.people.test_organizations import invite

    from jobgrant.service.accounts.organization_models import OrganizationInvitation as Invitation

    employer = APPLICANT.get()
    client = signed_in()
    path = f"/employer/organizations/{employer.pk}/"
    assert button(path) in text(client.get(f"/en{path}"))
    invitations = Invitation.objects.count()
    typed = {"email": "collegue@example.com", "role": "admin", "language": "fr"}
    page = switched_page(client.post(page_path("fr", path), {**typed, **SWITCH}))
    assert 'value="collegue@example.com"' in page
    assert re.search(r'<option value="admin"[^>]*selected', page)
    assert Invitation.objects.count() == invitations
    token = invite(EMPLOYER.get(), employer, "nouvelle@example.com")
    visitor = Client()
    assert button(f"/invitation/{token}/") in text(visitor.get(f"/en/invitation/{token}/"))
    account = {"first_name": "Noémie", "last_name": "Roy", "password": "un-long-secret-42"}
    page = switched_page(visitor.post(f"/fr/invitation/{token}/", {**account, **SWITCH}))
    assert 'value="Noémie"' in page and 'value="Roy"' in page
    assert "un-long-secret-42" not in page
    assert not User.objects.filter(email="nouvelle@example.com").exists()


def test_the_trainees_invitation_keeps_what_was_typed(demo: None) -> None:
    from tests.participants import approved_application

    from jobgrant.service.grants.models.participants import Participant

    application = approved_application()
    path = f"/employer/applications/{application.pk}/trainees/"
    client = signed_in()
    assert button(path) in text(client.get(f"/en{path}"))
    typed = {"trainee": "1", "email": "amelie@example.com", "language": "fr"}
    page = switched_page(client.post(page_path("fr", path), {**typed, **SWITCH}))
    assert 'value="amelie@example.com"' in page
    assert re.search(r'<option value="1"[^>]*selected', page)
    assert re.search(r'value="fr"[^>]*checked', page)
    assert not Participant.objects.filter(email="amelie@example.com").exists()


def test_the_claim_keeps_its_amounts_and_names_the_files_to_choose_again(demo: None) -> None:
    """The employer's claim: the amounts typed are shown back; a chosen receipt cannot be, so
    the page names it. After an error, the header's toggle leads to the claim's page (it once
    led to an empty 405 page), and the language button keeps what was typed."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from tests.service.grants.claim_helpers import during_training, pdf_bytes
    from tests.web.test_claim_pages import ready, started, typed

    from jobgrant.service.grants.models.claims import Receipt

    application = ready()
    with during_training():
        client = signed_in()
        claim = started(client, application)
        path = f"/employer/claims/{claim.pk}/"
        assert button(path) in text(client.get(f"/en{path}"))
        amounts = typed(client, claim)
        first = sorted(amounts)[0]
        amounts[first] = "123,45"
        receipt = SimpleUploadedFile("facture-mai.pdf", pdf_bytes(), "application/pdf")
        sent = {**amounts, "file": [receipt], "then": "submit", **SWITCH}
        page = switched_page(client.post(page_path("fr", path), sent))
        assert f'name="{first}" value="123,45"' in page
        assert 'id="files-not-kept"' in page and "facture-mai.pdf" in page
        bad = client.post(f"/en{path}", {**amounts, first: "douze", "then": "stay"})
        assert bad.status_code == 422
        toggle = re.search(r'lang-href="([^"]+)"', text(bad))
        assert toggle and toggle.group(1) == page_path("fr", path)
        assert client.get(toggle.group(1)).status_code == 200
        assert button(path) in text(bad)
    claim.refresh_from_db()
    assert not Receipt.objects.filter(claim=claim).exists()
    assert claim.state == "draft" and not claim.lines.filter(claimed_cents=12_345).exists()
