"""The language button on the forms of accounts, invitations and the employer's other forms
(without JavaScript): what was typed is shown back in the other language, nothing is checked or
written, and a password is never shown back (ADR 0039)."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client
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
    return f'id="switch-language" class="jg-link-button" formaction="/fr{action}"'


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
    page = switched_page(client.post(f"/fr{path}", {"note": "Projet reporté.", **SWITCH}))
    assert "Projet reporté.</textarea>" in page
    assert Application.objects.get(pk=application.pk).state == "submitted"
    assert changes_audited() == entries
