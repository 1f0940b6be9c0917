"""The policy analyst works on aggregates only (the KPIs, the annual report, the simulations):
no file, trainee, claim or receipt opens to them, on the API or the pages, and each attempt is
refused as for anyone who may not see the file (404, audited)."""

from __future__ import annotations

import pytest
from django.test import Client
from tests.personas import ANALYST, AUDITOR
from tests.service.grants.payment_helpers import accepted_file, certified_claim

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.claims.access import visible_claims
from jobgrant.service.grants.core import access

pytestmark = pytest.mark.django_db


def test_an_analyst_reads_no_file_claim_or_trainee(as_user, demo: None) -> None:
    application = accepted_file()
    claim = certified_claim(application, federal=100_000)
    analyst = ANALYST.get()
    assert not access.visible_applications(analyst).exists()
    assert not visible_claims(analyst).exists()
    api = as_user(ANALYST)
    assert api.get("/applications").json()["items"] == [] or api.get(
        "/applications"
    ).status_code in (403, 404)
    for path in (
        f"/applications/{application.pk}",
        f"/applications/{application.pk}/participants",
        f"/claims/{claim.pk}",
    ):
        assert api.get(path).status_code in (403, 404), path
    assert AuditEntry.objects.filter(actor=analyst.username, action__startswith="refused.").exists()
    # The auditor still reads them (the control is the analyst's, not everyone's).
    assert as_user(AUDITOR).get(f"/applications/{application.pk}").status_code == 200


def test_the_analyst_s_own_pages_still_open(demo: None) -> None:
    client = Client()
    client.force_login(ANALYST.get())
    for page in ("/en/analyst/scenarios/", "/en/analyst/kpis/"):
        assert client.get(page).status_code == 200, page
