"""Who may open the back-office pages: each its own role; anyone else gets a 403 page in their
language, anonymous visitors go to sign in; `home` sends each role to its own page."""

from __future__ import annotations

import html

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.personas import ANALYST, AUDITOR, EMPLOYER, FEDERAL_OFFICER, FINANCE, OFFICER

from jobgrant.service.accounts.models import User

pytestmark = pytest.mark.django_db

PAGES = {  # path (after /{lang}/), the role it serves, the method
    "officer/": (OFFICER.username, "get"),
    "officer/applications/1/": (OFFICER.username, "get"),
    "officer/applications/1/decision/": (OFFICER.username, "post"),
    "finance/budgets/": (FINANCE.username, "get"),
    "finance/budgets.csv": (FINANCE.username, "get"),
    "analyst/scenarios/": (ANALYST.username, "get"),
    "analyst/scenarios/chart.svg": (ANALYST.username, "get"),
    "auditor/trail/": (AUDITOR.username, "get"),
    "auditor/trail/verify/": (AUDITOR.username, "post"),
}
PEOPLE = (EMPLOYER.username, OFFICER.username, FINANCE.username, ANALYST.username, AUDITOR.username)
HOMES = {
    OFFICER.username: "officer/",
    FEDERAL_OFFICER.username: "officer/",
    FINANCE.username: "finance/budgets/",
    ANALYST.username: "analyst/scenarios/",
    AUDITOR.username: "auditor/trail/",
}


def signed_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("path", PAGES)
def test_anonymous_visitors_are_sent_to_sign_in(demo: None, path: str, language: str) -> None:
    _, method = PAGES[path]
    page = page_path(language, f"/{path}")
    response = getattr(Client(), method)(page)
    assert response.status_code == 302
    assert response["Location"] == f"{page_path(language, '/sign-in/')}?next={page}"


@pytest.mark.parametrize("path", PAGES)
def test_every_other_role_is_refused_with_a_403_page_in_its_language(demo: None, path: str) -> None:
    owner, method = PAGES[path]
    for person in PEOPLE:
        if person == owner:
            continue
        client = signed_in(person)
        for language, words in (
            ("en", "You cannot open this page"),
            ("fr", "Vous ne pouvez pas ouvrir cette page"),
        ):
            response = getattr(client, method)(page_path(language, f"/{path}"))
            assert response.status_code == 403, (person, path)
            page = html.unescape(response.content.decode())
            assert f'<html lang="{language}">' in page
            assert words in page
            assert "no-store" in response["Cache-Control"]


def test_the_refusal_names_the_pages_role_and_the_persons(demo: None) -> None:
    page = html.unescape(
        signed_in(FINANCE.username).get("/fr/verificateur/piste/").content.decode()
    )
    assert "Cette page est réservée à ces rôles\u00a0: vérificateur." in page
    assert "dont le rôle est\u00a0: agent des finances." in page


@pytest.mark.parametrize("person", HOMES)
@pytest.mark.parametrize("language", ["en", "fr"])
def test_home_sends_each_back_office_role_to_its_page(
    demo: None, person: str, language: str
) -> None:
    client = signed_in(person)
    response = client.get(page_path(language, "/home/"))
    assert response.status_code == 302
    assert response["Location"] == page_path(language, f"/{HOMES[person]}")
    assert client.get(response["Location"]).status_code == 200


def test_the_pages_are_not_cached(demo: None) -> None:
    for path, (owner, method) in PAGES.items():
        if method == "get" and "applications" not in path:
            response = signed_in(owner).get(f"/en/{path}")
            assert response.status_code == 200, path
            assert "no-store" in response["Cache-Control"], path
