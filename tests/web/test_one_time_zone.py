"""One time zone, Ottawa time (settings.TIME_ZONE, America/Toronto), named the same way
everywhere: a moment stored in UTC is dated and timed in Ottawa on every page, in the annual
report and in the audit trail's file; no page says "UTC" or "Toronto time"."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import translation
from tests.participants import OTHER_SIN
from tests.personas import EMPLOYER, OFFICER
from tests.service.grants.claim_helpers import (
    approved_file,
    assign,
    confirm,
    during_training,
    pdf_bytes,
)

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.models.claims import Claim
from jobgrant.service.language import long_date
from jobgrant.service.outcomes.kpis import compute
from jobgrant.service.outcomes.report.content import view
from jobgrant.service.web.templatetags.backoffice import moment
from jobgrant.service.web.templatetags.jobgrant import longdate

SERVICE = Path(__file__).parents[2] / "src" / "jobgrant" / "service"
#: 1:30 a.m. on December 2 in UTC: 8:30 p.m. on December 1 in Ottawa.
EVENING = dt.datetime(2026, 12, 2, 1, 30, tzinfo=dt.UTC)


def test_the_service_has_one_zone() -> None:
    assert settings.TIME_ZONE == "America/Toronto"


@pytest.mark.parametrize(
    ("lang", "day", "when"),
    [
        ("en", "December 1, 2026", "December 1, 2026, 8:30\u202fp.m."),
        ("fr", "1er décembre 2026", "1er décembre 2026, 20 h 30"),
    ],
)
def test_a_moment_is_dated_and_timed_in_ottawa(lang: str, day: str, when: str) -> None:
    with translation.override(lang):
        assert longdate(EVENING) == day  # claims, change requests, officer pages
        assert long_date(EVENING, lang) == day  # messages and documents
        assert moment(EVENING) == when


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "made"),
    [
        ("en", "December 1, 2026, 8:30\u202fp.m. (Ottawa time)"),
        ("fr", "1er décembre 2026, 20 h 30 (heure d'Ottawa)"),
    ],
)
def test_the_annual_report_is_made_in_ottawa_time(lang: str, made: str) -> None:
    report = compute("NS", "2030-31", suppress=True)
    with translation.override(lang):
        assert view(report, EVENING).made == made


def test_no_page_names_another_zone() -> None:
    """Every text a person reads names the zone "Ottawa time" ("heure d'Ottawa"), never UTC or
    Toronto."""
    texts = [*SERVICE.rglob("*.html"), *SERVICE.rglob("*.txt"), *SERVICE.rglob("django.po")]
    other = re.compile(r"\bUTC\b|Toronto time|heure de Toronto|\(Eastern\)")
    found = [
        f"{path.relative_to(SERVICE)}:{number}"
        for path in texts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if other.search(line)
    ]
    assert found == []


@pytest.mark.django_db
def test_the_officers_claims_queue_dates_an_evening_claim_on_its_ottawa_day(demo: None) -> None:
    application = approved_file()
    confirm(application, 0)
    confirm(application, 1, OTHER_SIN)
    assign(application)
    with during_training():
        employer, officer = Client(), Client()
        employer.force_login(User.objects.get(username=EMPLOYER.username))
        employer.post(f"/en/employer/applications/{application.pk}/claims/")
        claim = Claim.objects.get(application=application)
        files = [SimpleUploadedFile("invoice.pdf", pdf_bytes(), "application/pdf")]
        saved = employer.post(f"/en/employer/claims/{claim.pk}/", {"file": files})  # its one form
        assert saved.status_code == 302
        done = employer.post(f"/en/employer/claims/{claim.pk}/submit/", {"confirm": "yes"})
        assert done.status_code == 302
        # Submitted at 8:30 p.m. in Ottawa on January 31: February 1 in UTC.
        evening = dt.datetime(2027, 2, 1, 1, 30, tzinfo=dt.UTC)
        Claim.objects.filter(pk=claim.pk).update(submitted_at=evening)
        officer.force_login(User.objects.get(username=OFFICER.username))
        queue = officer.get("/en/officer/claims/").content.decode()
    row = queue[queue.index(f'id="open-claim-{claim.pk}"') :][:600]
    assert "January 31, 2027" in row and "February 1, 2027" not in row
