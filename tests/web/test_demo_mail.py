"""The demonstration's mailbox page (/demo/mail/): the outbox's messages, only in demo mode."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from tests.addresses import page_path
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


def test_a_visitor_who_has_not_registered_sees_no_message_and_is_asked_to_sign_in(
    demo: None, settings: Any
) -> None:
    settings.JOBGRANT_DEMO_MAIL = True
    with transaction.atomic():
        enqueue(
            "application_received",
            subject=User.objects.get(username=EMPLOYER.username),
            to="someone@example.com",
            language="fr",
            context={"reference": "41", "employer": "Acme", "submitted_on": "x", "link": "x"},
        )
    page = Client().get("/fr/demo/courriels/").content.decode()
    assert 'id="mail-nobody"' in page and "someone@example.com" not in page


@pytest.mark.parametrize(("language", "title"), [("en", "Messages sent"), ("fr", "Messages envoy")])
def test_the_page_lists_each_message_in_its_recipients_language(
    demo: None, settings: Any, language: str, title: str
) -> None:
    settings.JOBGRANT_DEMO_MAIL = True
    subject = User.objects.get(username=EMPLOYER.username)
    User.objects.filter(pk=subject.pk).update(email="a@example.com")
    context = {"reference": "41", "employer": "Acme", "submitted_on": "x", "link": "http://x/"}
    with transaction.atomic():
        for milestone, in_language in (("en", "en"), ("fr", "fr")):
            enqueue(
                "application_received",
                subject=subject,
                milestone=milestone,
                to="a@example.com",
                language=in_language,
                context=context,
            )
        enqueue(  # someone else's: not shown
            "application_received",
            subject=subject,
            to="b@example.com",
            language="en",
            context=context,
        )
    page = signed_in().get(page_path(language, "/demo/mail/")).content.decode()
    assert title in page
    assert "We received your Canada Job Grant application 41" in page
    assert "Nous avons reçu votre demande de Subvention canadienne pour l&#x27;emploi 41" in page
    assert "a@example.com" in page and "b@example.com" not in page
    assert '<a href="http://x/"' in page  # links in the messages can be followed
    assert f'<html lang="{language}">' in page and 'lang="fr"' in page
    assert f'href="{page_path(language, "/home/")}"' in page  # a way back


def test_a_registrant_is_told_where_to_look_and_reads_their_own_message_without_signing_in(
    demo: None, settings: Any
) -> None:
    """The "check your email" page names the address and, in the demonstration, links to the
    mailbox open to this browser for that address only: not before it registered, not another
    browser, not anyone else's."""
    settings.JOBGRANT_DEMO_MAIL = True
    with transaction.atomic():  # sent to that address before: not the registrant's to read
        enqueue(
            "application_received",
            subject=User.objects.get(username=EMPLOYER.username),
            to="marie@example.com",
            language="en",
            context={"reference": "7", "employer": "Old", "submitted_on": "x", "link": "x"},
        )
    browser = Client()
    answer = browser.post("/en/register/", registration())
    assert answer.status_code == 302
    sent = html.unescape(browser.get("/en/register/sent/").content.decode())
    assert "We sent a link to marie@example.com." in sent
    link = re.search(r'id="demo-mail-link"[^>]*|href="([^"]+)" id="demo-mail-link"', sent)
    assert link is not None and link[1] == "/en/demo/mail/?to=marie%40example.com"
    mailbox = html.unescape(browser.get(link[1]).content.decode())
    assert mailbox.count('class="jg-demo-message"') == 1
    assert re.search(r'<a href="http://[^"]+/en/register/verify/', mailbox)  # a link to follow
    assert "application 7" not in mailbox
    assert re.search(r'id="message-\d+-at">\w+ \d+, 20\d\d, ', mailbox)  # when it was written
    elsewhere = Client().get(link[1]).content.decode()
    assert 'id="mail-nobody"' in elsewhere and "register/verify" not in elsewhere


def registration(**changes: str) -> dict[str, str]:
    data = {
        "name": "Prairie Bakery Co-op",
        "business_number": "123456782",
        "street_address": "400 Broadway Avenue",
        "city": "Saskatoon",
        "jurisdiction": "SK",
        "postal_code": "S7N 1A1",
        "phone": "306-555-0130",
        "naics": "311811",
        "employees": "14",
        "first_name": "Marie",
        "last_name": "Gagnon",
        "email": "marie@example.com",
        "password": "flour-and-butter-at-dawn",
        "password_again": "flour-and-butter-at-dawn",
    }
    return data | changes


def test_the_check_your_email_page_outside_the_demonstration_names_the_address_only(
    demo: None,
) -> None:
    browser = Client()
    assert browser.post("/fr/inscription/", registration()).status_code == 302
    sent = html.unescape(browser.get("/fr/inscription/envoye/").content.decode())
    assert "marie@example.com" in sent and 'id="demo-mail-link"' not in sent


def test_the_mail_folder_exists_as_soon_as_the_file_backend_is_configured(tmp_path: Path) -> None:
    """The pages say messages go to var/mail/: it is there before the first message."""
    environment = {
        **os.environ,
        "JOBGRANT_VAR_DIR": str(tmp_path),
        "JOBGRANT_EMAIL_BACKEND": "file",
    }
    environment.pop("JOBGRANT_MAIL_DIR", None)
    subprocess.run(
        [sys.executable, "-c", "import jobgrant.service.settings"],
        env=environment,
        check=True,
        timeout=120,
    )
    assert (tmp_path / "mail").is_dir()
