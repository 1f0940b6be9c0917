"""The public landing page: its next step depends on whether the reader is signed in."""

from __future__ import annotations

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.personas import EMPLOYER
from tests.web.reading import signed_in, text

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "Go to your start page"), ("fr", "Aller à votre page d'accueil")],
)
def test_a_signed_in_reader_is_sent_to_their_start_page_not_to_sign_in(
    demo: None, language: str, words: str
) -> None:
    page = text(signed_in(EMPLOYER).get(page_path(language, "/")))
    assert 'id="to-home"' in page and words in page
    assert 'id="register-organization"' not in page


def test_a_reader_not_signed_in_is_asked_to_sign_in_or_register(demo: None) -> None:
    page = text(Client().get(page_path("en", "/")))
    assert "Sign in to apply" in page and 'id="register-organization"' in page
    assert 'id="to-home"' not in page
