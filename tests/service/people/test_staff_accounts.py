"""Staff accounts (grants.staff_actions and the /staff/ pages): the administrator creates,
changes and deactivates officers, finance officers, analysts and auditors; every change is
audited; nobody changes their own account or grants the administrator role."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from tests.conftest import application_body, token_for
from tests.personas import ADMIN, APPLICANT, EMPLOYER, OFFICER

from jobgrant.service.accounts.models import ApiToken, Role, User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.core import access
from jobgrant.service.notifications.models import Message
from jobgrant.service.people import staff as staff_actions

pytestmark = pytest.mark.django_db
LINK = re.compile(r"https?://\S+")


def officer_data(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "username": "new-officer",
        "email": "new.officer@example.com",
        "first_name": "Noor",
        "last_name": "Haddad",
        "role": "officer",
        "jurisdiction": "ON",
        "federal": False,
        "may_view_sin": False,
        "affiliations": [],
        "language": "en",
    }
    data.update(changes)
    return data


def test_an_administrator_creates_an_officer_who_chooses_a_password_by_the_link(
    demo: None,
) -> None:
    created = staff_actions.create_staff(ADMIN.get(), officer_data())
    assert (created.role, created.jurisdiction, created.has_usable_password()) == (
        "officer",
        "ON",
        False,
    )
    message = Message.objects.get(kind="staff_account_setup", recipient="new.officer@example.com")
    token = [p for p in LINK.search(message.body)[0].split("/") if p][-1]  # type: ignore[index]
    client = Client()
    page = client.get(f"/en/account/setup/{token}/")
    assert page.status_code == 200
    done = client.post(
        f"/en/account/setup/{token}/",
        {"password": "a-good-long-passphrase", "password_again": "a-good-long-passphrase"},
    )
    assert done.status_code == 200 and "Your password is set" in done.content.decode()
    assert client.get(f"/en/account/setup/{token}/").status_code == 404  # used
    assert client.login(username="new-officer", password="a-good-long-passphrase")
    entry = AuditEntry.objects.filter(action="staff.create").latest("pk")
    assert (entry.actor, entry.summary["role"]) == (ADMIN.username, "officer")


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"role": "admin"}, "role"),  # nobody grants the administrator role here
        ({"role": "employer"}, "role"),
        ({"jurisdiction": ""}, "jurisdiction"),  # a provincial officer needs one
        ({"jurisdiction": "ZZ"}, "jurisdiction"),
        ({"affiliations": ["123456789"]}, "affiliations"),
        ({"username": "officer-on"}, "username"),  # taken
        ({"email": "nope"}, "email"),
        ({"email": "Officer-ON@Example.com"}, "email"),  # another account's, in other case
    ],
)
def test_bad_staff_input_is_named(demo: None, changes: dict[str, object], field: str) -> None:
    with pytest.raises(ServiceError) as refused:
        staff_actions.create_staff(ADMIN.get(), officer_data(**changes))
    assert refused.value.status == 422
    assert field in {p["field"] for p in refused.value.problems}
    assert not User.objects.filter(username="new-officer").exists()


def test_only_an_administrator_manages_staff_and_the_refusal_is_audited(demo: None) -> None:
    with pytest.raises(ServiceError) as refused:
        staff_actions.create_staff(OFFICER.get(), officer_data())
    assert refused.value.status == 403
    entry = AuditEntry.objects.latest("pk")
    assert (entry.actor, entry.action) == (OFFICER.username, "refused.staff.create")


def test_nobody_changes_their_own_account(demo: None) -> None:
    admin = ADMIN.get()
    for attempt in (
        lambda: staff_actions.change_staff(admin, admin, officer_data()),
        lambda: staff_actions.deactivate_staff(admin, admin),
    ):
        with pytest.raises(ServiceError) as refused:
            attempt()
        assert refused.value.code == "OWN_ACCOUNT"
    admin.refresh_from_db()
    assert admin.role == Role.ADMIN and admin.is_active


def test_an_affiliation_is_a_conflict_of_interest(demo: None) -> None:
    officer = OFFICER.get()
    staff_actions.change_staff(
        ADMIN.get(), officer, officer_data(affiliations=[APPLICANT.business_number])
    )
    application = actions.create_application(EMPLOYER.get(), application_body())
    actions.submit_application(EMPLOYER.get(), application)
    with pytest.raises(ServiceError) as refused:
        access.check_officer(User.objects.get(pk=officer.pk), application)
    assert refused.value.code == "CONFLICT_OF_INTEREST"
    change = AuditEntry.objects.filter(action="staff.change").latest("pk")
    assert change.summary["before"]["affiliations"] == []
    assert change.summary["after"]["affiliations"] == [APPLICANT.get().pk]


def test_a_deactivated_officers_session_and_token_stop_working_at_once(demo: None) -> None:
    officer = OFFICER.get()
    token = token_for(OFFICER)
    client, api = Client(), Client()
    client.force_login(officer)
    headers = {"Authorization": f"Bearer {token}"}
    assert client.get("/en/officer/").status_code == 200
    assert api.get("/api/v1/applications", headers=headers).status_code == 200
    staff_actions.deactivate_staff(ADMIN.get(), officer)
    assert client.get("/en/officer/").status_code == 302  # to the sign-in page
    assert api.get("/api/v1/applications", headers=headers).status_code == 401
    assert not Client().login(username=OFFICER.username, password="persona-password")
    staff_actions.reactivate_staff(ADMIN.get(), officer)
    # Reactivated, the account signs in afresh: the old session and token stay dead for good.
    assert client.get("/en/officer/").status_code == 302
    assert api.get("/api/v1/applications", headers=headers).status_code == 401
    assert not ApiToken.objects.filter(user=officer).exists()
    deactivation = AuditEntry.objects.get(object_id=str(officer.pk), action="staff.deactivate")
    assert deactivation.summary["tokens_revoked"] == 1
    actions_seen = list(
        AuditEntry.objects.filter(object_id=str(officer.pk), action__startswith="staff.")
        .order_by("pk")
        .values_list("action", flat=True)
    )
    assert actions_seen == ["staff.deactivate", "staff.reactivate"]


def test_the_staff_pages_create_and_deactivate_after_confirmation(demo: None) -> None:
    client = Client()
    client.force_login(ADMIN.get())
    assert client.get("/fr/personnel/").status_code == 200
    created = client.post(
        "/en/staff/new/",
        {
            "username": "new-auditor",
            "email": "new.auditor@example.com",
            "role": "auditor",
            "jurisdiction": "",
            "language": "fr",
        },
    )
    assert created.status_code == 302
    auditor = User.objects.get(username="new-auditor")
    assert auditor.role == Role.AUDITOR and auditor.preferred_language == "fr"
    refused = client.post("/en/staff/new/", {"username": "", "role": "admin"})
    assert refused.status_code == 422 and "gcds-error-summary" in refused.content.decode()
    asked = client.get(f"/en/staff/{auditor.pk}/deactivate/")
    assert asked.status_code == 200
    assert User.objects.get(pk=auditor.pk).is_active  # asking changes nothing
    client.post(f"/en/staff/{auditor.pk}/deactivate/")
    assert not User.objects.get(pk=auditor.pk).is_active
    edited = client.post(
        f"/en/staff/{auditor.pk}/",
        {"role": "analyst", "jurisdiction": "", "affiliations": APPLICANT.business_number},
    )
    assert edited.status_code == 302
    assert User.objects.get(pk=auditor.pk).role == Role.ANALYST


def test_other_roles_cannot_open_the_staff_pages(demo: None) -> None:
    client = Client()
    client.force_login(OFFICER.get())
    assert client.get("/en/staff/").status_code == 403
    assert client.get(f"/en/staff/{OFFICER.get().pk}/").status_code == 403


def test_every_problem_of_a_staff_account_is_named_at_once(demo: None) -> None:
    """The identity, the role and the affiliations are checked together: one answer names them
    all, and the role's problem names the roles in words."""
    bad = officer_data(username="", email="nope", role="boss", affiliations=["999999999"])
    with pytest.raises(ServiceError) as caught:
        staff_actions.create_staff(ADMIN.get(), bad)
    problems = {p["field"]: p["message_en"] for p in caught.value.problems}
    assert {"username", "email", "role", "affiliations"} <= set(problems)
    assert "finance, analyst" not in problems["role"]  # the codes, as the message listed them
