"""The demonstration's mailbox page (/demo/mail/): the outbox's messages, only in demo mode."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from tests.personas import EMPLOYER

from jobgrant.service.accounts.models import User
from jobgrant.service.notifications.outbox import enqueue

pytestmark = pytest.mark.django_db


def signed_in() -> Client:
    client = Client()
    client.force_login(User.objects.get(username=EMPLOYER.username))
    return client


def test_without_the_demo_setting_the_page_is_not_there(demo: None) -> None:
    assert signed_in().get("/en/demo/mail/").status_code == 404


def test_anonymous_visitors_are_sent_to_sign_in(demo: None, settings: Any) -> None:
    settings.JOBGRANT_DEMO_MAIL = True
    answer = Client().get("/fr/demo/mail/")
    assert answer.status_code == 302 and "/fr/sign-in/" in answer["Location"]


@pytest.mark.parametrize(("language", "title"), [("en", "Messages sent"), ("fr", "Messages envoy")])
def test_the_page_lists_each_message_in_its_recipients_language(
    demo: None, settings: Any, language: str, title: str
) -> None:
    settings.JOBGRANT_DEMO_MAIL = True
    subject = User.objects.get(username=EMPLOYER.username)
    context = {"reference": "41", "employer": "Acme", "submitted_on": "x", "link": "http://x/"}
    with transaction.atomic():
        enqueue(
            "application_received",
            subject=subject,
            to="a@example.com",
            language="en",
            context=context,
        )
        enqueue(
            "application_received",
            subject=subject,
            to="b@example.com",
            language="fr",
            context=context,
        )
    page = signed_in().get(f"/{language}/demo/mail/").content.decode()
    assert title in page
    assert "We received your Canada Job Grant application 41" in page
    assert "Nous avons reçu votre demande de Subvention canadienne pour l&#x27;emploi 41" in page
    assert "a@example.com" in page and "b@example.com" in page
    assert f'<html lang="{language}">' in page and 'lang="fr"' in page
    assert f'href="/{language}/home/"' in page  # a way back
