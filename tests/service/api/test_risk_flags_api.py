"""The risk flags through the API: per provider and per intake, on one file, and clearing one
(with a reason, by an officer of the file); each answer checked against the OpenAPI document."""

from __future__ import annotations

import pytest
from tests.conftest import application_body
from tests.personas import (
    ANALYST,
    APPLICANT,
    AUDITOR,
    EMPLOYER,
    OFFICER,
    OTHER_JURISDICTION_OFFICER,
    OUTSIDER,
    OUTSIDER_EMPLOYER,
)

from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.integrity.direct_deposit import set_bank_account
from jobgrant.service.grants.models.applications import Application, Intake
from jobgrant.service.grants.models.integrity import RiskFlag

pytestmark = pytest.mark.django_db
ACCOUNT = {"institution": "003", "transit": "01234", "account": "1234567"}


def flagged() -> tuple[Application, RiskFlag]:
    set_bank_account(EMPLOYER.get(), APPLICANT.get(), ACCOUNT)
    set_bank_account(OUTSIDER_EMPLOYER.get(), OUTSIDER.get(), ACCOUNT)
    application = actions.create_application(EMPLOYER.get(), application_body())
    actions.submit_application(EMPLOYER.get(), application)
    return application, RiskFlag.objects.get(application=application)


def test_an_officer_lists_a_providers_flags_with_why_in_both_languages(as_user) -> None:
    application, flag = flagged()
    answer = as_user(OFFICER).get("/risk-flags", provider="mohawk college")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["counts"] == [{"kind": "shared_bank_account", "total": 1, "open": 1}]
    assert body["providers"][0]["name"] == "Mohawk College"
    [listed] = body["flags"]
    assert listed["id"] == flag.pk and listed["application"] == application.pk
    assert OUTSIDER.name in listed["why_en"] and "Le compte" not in listed["why_en"]
    assert "est payé dans le compte" in listed["why_fr"]
    assert "1234567" not in answer.content.decode()


def test_an_analyst_gets_the_counts_only_and_an_officer_elsewhere_nothing(as_user) -> None:
    flagged()
    counts = as_user(ANALYST).get("/risk-flags").json()
    assert counts["counts"][0]["total"] == 1
    assert counts["flags"] == [] and counts["total"] == 0
    elsewhere = as_user(OTHER_JURISDICTION_OFFICER).get("/risk-flags").json()
    assert elsewhere["counts"] == [] and elsewhere["flags"] == []


def test_the_flags_of_an_intake_are_those_of_the_files_it_received(as_user) -> None:
    application, _flag = flagged()
    intake = Application.objects.get(pk=application.pk).intake
    assert intake is not None
    inside = as_user(AUDITOR).get("/risk-flags", intake=intake.pk).json()
    assert [f["application"] for f in inside["flags"]] == [application.pk]
    other = Intake.objects.create(
        stream=application.stream,
        opens_on=application.received_on.replace(year=2020),
        closes_on=application.received_on.replace(year=2020),
    )
    assert as_user(AUDITOR).get("/risk-flags", intake=other.pk).json()["flags"] == []
    assert as_user(AUDITOR).get("/risk-flags", intake=999_999).status_code == 404


def test_a_files_flags_and_clearing_one(as_user) -> None:
    application, flag = flagged()
    listed = as_user(OFFICER).get(f"/applications/{application.pk}/risk-flags")
    assert [f["state"] for f in listed.json()] == ["open"]
    missing = as_user(OFFICER).post(f"/risk-flags/{flag.pk}/clear", {"reason": ""})
    assert missing.status_code == 422
    assert missing.json()["code"] == "INVALID_INPUT"
    cleared = as_user(OFFICER).post(f"/risk-flags/{flag.pk}/clear", {"reason": "Checked."})
    assert cleared.status_code == 200, cleared.content
    assert cleared.json()["state"] == "cleared" and cleared.json()["cleared_by"] == "officer-on"
    again = as_user(OFFICER).post(f"/risk-flags/{flag.pk}/clear", {"reason": "Again."})
    assert again.status_code == 409
    recommended = as_user(OFFICER).post(f"/applications/{application.pk}/recommend")
    assert recommended.json()["state"] == "recommended"


def test_recommending_with_an_open_flag_answers_409(as_user) -> None:
    application, _flag = flagged()
    refused = as_user(OFFICER).post(f"/applications/{application.pk}/recommend")
    assert refused.status_code == 409
    assert refused.json()["code"] == "RISK_FLAGS_OPEN"


def test_an_employer_reads_no_flag_and_clears_none(as_user) -> None:
    application, flag = flagged()
    assert as_user(EMPLOYER).get(f"/applications/{application.pk}/risk-flags").json() == []
    assert (
        as_user(EMPLOYER).post(f"/risk-flags/{flag.pk}/clear", {"reason": "x"}).status_code == 404
    )
