"""Who may do what: scope, conflicts of interest, delivery modes, visibility."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings
from tests.conftest import applications
from tests.personas import APPLICANT, EMPLOYER, FEDERAL_OFFICER, OFFICER, PARTNER

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.demo import DemoRefused, seed
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import Application, Program
from jobgrant.service.ledger.models import BudgetAccount
from jobgrant.service.registry.models import Employer

pytestmark = pytest.mark.django_db


def submitted(as_user: Any, body: dict[str, Any]) -> int:
    created = as_user(EMPLOYER).post("/applications", body)
    assert created.status_code == 201, created.content
    application_id = int(created.json()["id"])
    assert as_user(EMPLOYER).post(f"/applications/{application_id}/submit").status_code == 200
    return application_id


def test_an_officer_affiliated_with_the_employer_is_refused_and_audited(as_user, make_body) -> None:
    acme = APPLICANT.get()
    OFFICER.get().employers.add(acme)
    application_id = submitted(as_user, make_body())
    refused = as_user(OFFICER).post(f"/applications/{application_id}/recommend")
    assert refused.status_code == 403
    assert refused.json()["code"] == "CONFLICT_OF_INTEREST"
    assert AuditEntry.objects.filter(action="refused.recommend_application").exists()


def test_officers_of_another_jurisdiction_do_not_see_the_file(as_user, make_body) -> None:
    User.objects.create_user("bc-officer", password="x" * 12, role=Role.OFFICER, jurisdiction="BC")
    application_id = submitted(as_user, make_body())
    assert (
        as_user("bc-officer").post(f"/applications/{application_id}/recommend").status_code == 404
    )
    assert as_user("bc-officer").get("/applications").json()["count"] == 0


def test_federal_direct_files_go_to_federal_officers_and_leave_the_provincial_budget(
    as_user, make_body
) -> None:
    Program.objects.filter(jurisdiction="ON").update(delivery="federal-direct")
    application_id = submitted(as_user, make_body())
    assert as_user(OFFICER).post(f"/applications/{application_id}/recommend").status_code == 404
    User.objects.create_user("fed-2", password="x" * 12, role=Role.OFFICER, federal=True)
    assert (
        as_user(FEDERAL_OFFICER).post(f"/applications/{application_id}/recommend").status_code
        == 200
    )
    approved = as_user("fed-2").post(f"/applications/{application_id}/approve")
    assert approved.status_code == 200, approved.content
    application = Application.objects.get(pk=application_id)
    assert (application.federal_cents, application.provincial_cents) == (500_000, 0)  # no P/T third
    provincial = BudgetAccount.objects.get(
        funder="provincial", jurisdiction="ON", fiscal_year="2026-27"
    )
    assert provincial.committed_cents == 0


def test_an_employer_cannot_read_another_employers_application(as_user, make_body) -> None:
    application_id = submitted(as_user, make_body())
    User.objects.create_user("other-employer", password="x" * 12, role=Role.EMPLOYER)
    assert as_user("other-employer").get(f"/applications/{application_id}").status_code == 404
    assert (
        as_user("other-employer").post(f"/applications/{application_id}/withdraw").status_code
        == 404
    )


def test_an_employer_cannot_apply_for_an_organization_it_does_not_act_for(
    as_user, make_body
) -> None:
    stranger = Employer.objects.create(
        business_number="300000007", name="Stranger Inc.", employees=5, jurisdiction="ON"
    )
    body = make_body(employers=[{"id": "acme", "business_number": stranger.business_number}])
    refused = as_user(EMPLOYER).post("/applications", body)
    assert refused.status_code == 403
    assert refused.json()["code"] == "NOT_YOUR_ORGANIZATION"
    assert applications().count() == 0


def test_officers_cannot_apply_and_employers_cannot_decide(as_user, make_body) -> None:
    assert as_user(OFFICER).post("/applications", make_body()).status_code == 403
    application_id = submitted(as_user, make_body())
    assert as_user(EMPLOYER).post(f"/applications/{application_id}/recommend").status_code == 403


def test_denial_needs_a_reason(as_user, make_body) -> None:
    application_id = submitted(as_user, make_body())
    refused = as_user(OFFICER).post(f"/applications/{application_id}/deny", {})
    assert refused.status_code == 422
    assert refused.json()["errors"][0]["field"] == "reason"
    denied = as_user(OFFICER).post(
        f"/applications/{application_id}/deny", {"reason": "Training already under way."}
    )
    assert denied.json()["state"] == "denied"


def test_the_list_filters_and_paginates(as_user, make_body) -> None:
    from jobgrant.service.demo_ranking import demo_files

    # the demonstration's ranked intake's undecided files are submitted too (eight)
    seeded = demo_files().filter(state="submitted").count()
    for _ in range(3):
        submitted(as_user, make_body())
    page = as_user(OFFICER).get("/applications", state="submitted", limit=2).json()
    assert page["count"] == 3 + seeded
    assert len(page["items"]) == 2
    rest = as_user(OFFICER).get("/applications", state="submitted", offset=2).json()
    assert len(rest["items"]) == 1 + seeded
    assert as_user(OFFICER).get("/applications", limit=0).status_code == 422


def test_a_wrong_password_gets_no_token(as_user) -> None:
    response = as_user(None).post(
        "/auth/token", {"username": EMPLOYER.username, "password": "nope"}
    )
    assert response.status_code == 401
    assert response.json()["code"] == "BAD_CREDENTIALS"


def test_employers_lists_only_the_organizations_the_caller_acts_for(as_user) -> None:
    names = {e["name"] for e in as_user(EMPLOYER).get("/employers").json()}
    assert names == {APPLICANT.name, PARTNER.name}
    assert as_user(OFFICER).get("/employers").json() == []


@override_settings(PRODUCTION=True)
def test_production_refuses_the_demonstration_accounts_and_data(as_user) -> None:
    response = as_user(None).post(
        "/auth/token", {"username": "demo-employer", "password": "jobgrant-demo"}
    )
    assert response.status_code == 401
    with pytest.raises(DemoRefused):
        seed()


def test_can_see_agrees_with_the_visible_applications_for_every_user_and_file(
    as_user, make_body
) -> None:
    """get_visible_application decides on the row it read (access.can_see); the list pages use the
    queryset (access.visible_applications): both must give the same answer everywhere."""
    ids = [submitted(as_user, make_body()) for _ in range(3)]
    Application.objects.filter(pk=ids[1]).update(delivery="federal-direct")
    Application.objects.filter(pk=ids[2]).update(delivery="federal-direct", jurisdiction="BC")
    lakeshore = PARTNER.get()
    for name, fields in {
        "fed-anywhere": {"role": Role.OFFICER, "federal": True},
        "fed-bc": {"role": Role.OFFICER, "federal": True, "jurisdiction": "BC"},
        "bc-officer": {"role": Role.OFFICER, "jurisdiction": "BC"},
        "no-employer": {"role": Role.EMPLOYER},
        "lakeshore-only": {"role": Role.EMPLOYER},
    }.items():
        User.objects.create_user(name, password="x" * 12, **fields)
    User.objects.get(username="lakeshore-only").employers.add(lakeshore)
    checked = 0
    for user in User.objects.all():
        for application in applications():
            expected = access.visible_applications(user).filter(pk=application.pk).exists()
            assert access.can_see(user, application) == expected, (user.username, application.pk)
            if expected:
                found = access.get_visible_application(
                    user, application.pk, without=("explanation",)
                )
                assert found.pk == application.pk
                checked += 1
            else:
                with pytest.raises(ServiceError) as refused:
                    access.get_visible_application(user, application.pk, without=("explanation",))
                assert refused.value.status == 404
    assert checked > 0
