"""The demonstration's mailbox (/demo/mail/) in Chromium: axe in both languages, with messages
in both languages on it (checked here, not in test_accessibility's catalogue, because the page
exists only with JOBGRANT_DEMO_MAIL on)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_mailbox_passes_axe_with_messages_in_both_languages(
    web: Any, settings: Any, language: str
) -> None:
    from jobgrant.service.accounts.models import User
    from jobgrant.service.notifications.outbox import enqueue

    settings.JOBGRANT_DEMO_MAIL = True
    employer = User.objects.get(username="demo-employer")
    context = {"reference": "3", "employer": "Acme", "submitted_on": "x", "link": "http://x/"}
    with transaction.atomic():
        for recipient, in_language in (("en@example.com", "en"), ("fr@example.com", "fr")):
            enqueue(
                "application_received",
                subject=employer,
                to=recipient,
                language=in_language,
                context=context,
            )
    web.sign_in("demo-employer", language)
    web.goto(f"/{language}/demo/mail/")
    web.settle()
    web.assert_lang(language)
    web.assert_accessible(f"/{language}/demo/mail/")
    assert web.page.locator("section.jg-demo-message").count() == 2
