"""Approve, then the employer reads the agreement, downloads it and accepts it, in Chromium:
the typed name and title, the three confirmations, the confirmation step; then the page shows
who accepted and the fingerprint accepted is the version's."""

from __future__ import annotations

from typing import Any

import pytest
from tests.addresses import page_path

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.models.agreements import Agreement, AgreementVersion

ACCEPTED = {"en": "The agreement is accepted.", "fr": "L'entente est acceptée."}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_approve_then_the_employer_reads_and_accepts_the_agreement(
    web: Any, make_body: Any, language: str
) -> None:
    from tests.e2e.test_accessibility import an_agreement_offered

    application_id = an_agreement_offered(make_body)["approved"]
    page = web.page
    web.sign_in("demo-employer", language)
    web.goto(page_path(language, f"/employer/applications/{application_id}/"))
    with page.expect_navigation():
        page.click("#read-agreement")
    web.settle()
    web.assert_lang(language)
    version = AgreementVersion.objects.get(agreement__application_id=application_id)
    assert page.locator("#agreement-sha256").inner_text() == version.content_sha256
    assert page.locator("#agreement-cost-lines tbody tr").count() == 1
    with page.expect_download() as download:
        page.click(f"#pdf-{language}")
    assert download.value.suggested_filename.endswith(f"-{language}.pdf")

    with page.expect_navigation():
        page.click("#accept-agreement")
    web.settle()
    page.fill("#id_signatory", "Ada Tremblay")
    page.fill("#id_title", "Owner")
    for name in ("agreement", "cost_schedule", "general_terms"):
        page.check(f"#id_{name}")
    with page.expect_navigation():
        page.click("#accept-continue")
    web.settle()
    assert page.locator("#confirm-signatory").inner_text() == "Ada Tremblay"
    assert Agreement.objects.get(application_id=application_id).state == "issued"
    with page.expect_navigation():
        page.click("#confirm-accept")
    web.settle()
    assert ACCEPTED[language] in page.locator("#notice").inner_text()
    assert "Ada Tremblay" in page.locator("#agreement-accepted").inner_text()
    version.refresh_from_db()
    assert version.accepted_sha256 == version.content_sha256
    assert version.accepted_by == User.objects.get(username="demo-employer")
    web.assert_accessible()
