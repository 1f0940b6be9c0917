"""The demonstration's mailbox (/demo/mail/) in Chromium: axe in both languages, at 1280 and
390 px, with messages in both languages on it, their long links wrapped (checked here, not in
test_accessibility's catalogue, because the page exists only with JOBGRANT_DEMO_MAIL on)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction
from tests.addresses import page_path


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_mailbox_passes_axe_with_messages_in_both_languages(
    web: Any, settings: Any, language: str
) -> None:
    from jobgrant.service.accounts.models import User
    from jobgrant.service.notifications.outbox import enqueue

    settings.JOBGRANT_DEMO_MAIL = True
    employer = User.objects.get(username="demo-employer")
    link = "http://127.0.0.1:8000/en/employer/applications/3/" + "a" * 120
    context = {"reference": "3", "employer": "Acme", "submitted_on": "x", "link": link}
    with transaction.atomic():
        for in_language in ("en", "fr"):  # both to the employer's own address
            enqueue(
                "application_received",
                subject=employer,
                milestone=in_language,
                to=employer.email,
                language=in_language,
                context=context,
            )
    web.sign_in("demo-employer", language)
    web.goto(page_path(language, "/demo/mail/"))
    web.settle()
    web.assert_lang(language)
    web.assert_accessible(page_path(language, "/demo/mail/"))
    assert web.page.locator("section.jg-demo-message").count() == 2
    assert web.page.locator("pre.jg-demo-body a").count() == 2  # links that can be followed
    web.page.set_viewport_size({"width": 390, "height": 844})
    web.settle()
    assert web.page.evaluate("document.documentElement.scrollWidth") <= 390
    web.assert_accessible(page_path(language, "/demo/mail/") + " at 390 px")
