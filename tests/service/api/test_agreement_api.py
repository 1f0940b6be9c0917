"""The agreement through /api/v1: read it, download its PDF, accept, decline, withdraw; every
answer checked against the published OpenAPI document."""

from __future__ import annotations

import pytest
from tests import canonical
from tests.personas import EMPLOYER, OFFICER, OUTSIDER_EMPLOYER
from tests.service.grants.agreement_helpers import ALL_CONFIRMED, committed

from jobgrant.service.grants.models.agreements import Agreement

pytestmark = pytest.mark.django_db


def test_the_applicant_reads_the_agreement_with_its_terms_dates_and_hash(as_user) -> None:
    agreement = canonical.put("approved").agreement
    answer = as_user(EMPLOYER).get(f"/applications/{agreement.application_id}/agreement")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["state"] == "issued" and body["version"] == 1
    assert body["shares"] == {
        "eligible_cost": "15000.00",
        "federal": "5000.00",
        "provincial": "5000.00",
        "employer": "5000.00",
    }
    assert body["cost_lines"] == [
        {"trainee": 1, "employer_id": "acme", "category": "tuition", "amount": "15000.00"}
    ]
    assert body["due"]["participants_by"] == "2027-01-06"
    assert len(body["sha256"]) == 64 and body["accepted"] is None
    assert body["links"]["pdf_fr"].endswith("agreement.pdf?lang=fr")


def test_the_pdf_is_served_in_either_language(as_user) -> None:
    agreement = canonical.put("approved").agreement
    answer = as_user(EMPLOYER).get(
        f"/applications/{agreement.application_id}/agreement.pdf", lang="fr"
    )
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/pdf"
    assert answer.content.startswith(b"%PDF")
    assert answer["Cache-Control"] == "no-store"


def test_an_outsider_gets_404(as_user) -> None:
    agreement = canonical.put("approved").agreement
    answer = as_user(OUTSIDER_EMPLOYER).get(f"/applications/{agreement.application_id}/agreement")
    assert answer.status_code == 404


def test_accept_through_the_api_is_idempotent(as_user) -> None:
    agreement = canonical.put("approved").agreement
    client = as_user(EMPLOYER)
    body = {"signatory": "Ada Tremblay", "title": "Owner", "confirmations": ALL_CONFIRMED}
    path = f"/applications/{agreement.application_id}/agreement/accept"
    first = client.post(path, body, key="accept-1")
    again = client.post(path, body, key="accept-1")
    assert first.status_code == 200, first.content
    assert first.json() == {
        "application": agreement.application_id,
        "state": "accepted",
        "version": 1,
    }
    assert again.content == first.content
    read = client.get(f"/applications/{agreement.application_id}/agreement").json()
    assert read["accepted"]["signatory"] == "Ada Tremblay"
    assert read["accepted"]["sha256"] == read["sha256"]


def test_the_acceptance_checks_the_sha256_read_and_names_a_malformed_one(as_user) -> None:
    agreement = canonical.put("approved").agreement
    client = as_user(EMPLOYER)
    path = f"/applications/{agreement.application_id}/agreement"
    body = {"signatory": "Ada", "title": "Owner", "confirmations": ALL_CONFIRMED}
    malformed = client.post(f"{path}/accept", body | {"sha256": "ABC"})
    assert malformed.status_code == 422
    assert [e["field"] for e in malformed.json()["errors"]] == ["sha256"]
    other = client.post(f"{path}/accept", body | {"sha256": "0" * 64})
    assert other.status_code == 409 and other.json()["code"] == "AGREEMENT_CHANGED"
    assert Agreement.objects.get(pk=agreement.pk).state == "issued"
    read = client.get(path).json()
    accepted = client.post(f"{path}/accept", body | {"sha256": read["sha256"]})
    assert accepted.status_code == 200 and accepted.json()["state"] == "accepted"


def test_missing_confirmations_are_named_as_problems(as_user) -> None:
    agreement = canonical.put("approved").agreement
    path = f"/applications/{agreement.application_id}/agreement/accept"
    answer = as_user(EMPLOYER).post(
        path, {"signatory": "Ada", "title": "Owner", "confirmations": [{}]}
    )
    assert answer.status_code == 422
    assert answer["Content-Type"] == "application/problem+json"
    fields = [e["field"] for e in answer.json()["errors"]]
    assert fields == [f"confirmations.{c}" for c in ALL_CONFIRMED]


def test_decline_releases_and_a_second_answer_is_a_409(as_user) -> None:
    before = committed("federal")
    agreement = canonical.put("approved").agreement
    path = f"/applications/{agreement.application_id}/agreement"
    declined = as_user(EMPLOYER).post(f"{path}/decline", {"reason": "No longer needed."})
    assert declined.json()["state"] == "declined"
    assert committed("federal") == before
    again = as_user(EMPLOYER).post(
        f"{path}/accept", {"signatory": "A", "title": "B", "confirmations": ALL_CONFIRMED}
    )
    assert again.status_code == 409 and again.json()["code"] == "AGREEMENT_NOT_OPEN"


def test_only_an_officer_withdraws_the_offer(as_user) -> None:
    agreement = canonical.put("approved").agreement
    path = f"/applications/{agreement.application_id}/agreement/withdraw"
    assert as_user(EMPLOYER).post(path, {"reason": "x"}).status_code == 403
    withdrawn = as_user(OFFICER).post(path, {"reason": "The provider closed."})
    assert withdrawn.status_code == 200
    assert Agreement.objects.get(pk=agreement.pk).state == "withdrawn"
