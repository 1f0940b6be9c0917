"""Registration, invitations, an organization's people, partner requests and staff accounts in
the axe pass of test_accessibility.py (T16), each page empty and in its error state."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

LINK = re.compile(r"https?://[^/\s]+(/\S+)")


def _parts(kind: str, to: str) -> list[str]:
    from jobgrant.service.notifications.models import Message

    body = Message.objects.filter(kind=kind, recipient=to).latest("pk").body
    found = LINK.search(body)
    assert found, body
    return [part for part in found[1].split("/") if part]


def links_sent(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """A registration waiting for its confirmation, an invitation, a new staff account: the
    pages their links open."""
    from jobgrant.service.accounts.models import User
    from jobgrant.service.people import organizations as organization_actions
    from jobgrant.service.people import staff as staff_actions
    from jobgrant.service.registry.models import Employer

    organization_actions.register_organization(
        {
            "name": "Northern Lights Welding",
            "business_number": "123456782",
            "street_address": "12 Elm Street",
            "city": "Sudbury",
            "jurisdiction": "ON",
            "postal_code": "P3E 1A1",
            "phone": "705-555-0131",
            "naics": "332710",
            "employees": 25,
            "first_name": "Ada",
            "last_name": "Tremblay",
            "email": "ada@example.com",
            "password": "welding-sparks-over-sudbury",
            "password_again": "welding-sparks-over-sudbury",
        },
        language="en",
    )
    token = _parts("email_verification", "ada@example.com")[-1]
    employer = User.objects.get(username="demo-employer")
    acme = Employer.objects.get(name="Acme Precision Machining")
    organization_actions.invite_colleague(
        employer, acme, {"email": "bo@example.com", "role": "member", "language": "en"}
    )
    admin = User.objects.get(username="demo-admin")
    staff_actions.create_staff(
        admin,
        {
            "username": "e2e-officer",
            "email": "e2e-officer@example.com",
            "role": "officer",
            "jurisdiction": "ON",
            "language": "en",
        },
    )
    from jobgrant.service.people import email_change

    email_change.request_email_change(employer, "demo-employer.new@example.com")
    _attempt_on(acme.business_number, "rosa@example.com")
    return {
        "dispute": _parts("registration_organization_exists", "rosa@example.com")[-1],
        "token": token,
        "email_change": _parts("email_change_confirm", "demo-employer.new@example.com")[-1],
        "invitation": _parts("organization_invitation", "bo@example.com")[-1],
        "setup_token": _parts("staff_account_setup", "e2e-officer@example.com")[-1],
    }


def _attempt_on(business_number: str, email: str) -> None:
    """Someone registering a number already registered: the message with the dispute link."""
    from jobgrant.service.people import organizations as organization_actions

    organization_actions.register_organization(
        {
            "name": "Rosa's Real Business",
            "business_number": business_number,
            "street_address": "1 Main Street",
            "city": "Hamilton",
            "jurisdiction": "ON",
            "postal_code": "L8N 1A1",
            "phone": "905-555-0132",
            "naics": "332710",
            "employees": 10,
            "first_name": "Rosa",
            "last_name": "Birch",
            "email": email,
            "password": "a-real-business-of-my-own",
            "password_again": "a-real-business-of-my-own",
        },
        language="en",
    )


def organizations_to_verify(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """The demonstration's organization waiting (its document uploaded), and Lakeshore
    disputed by someone who says it is theirs."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from jobgrant.service.demo import seed_awaiting_verification
    from jobgrant.service.demo_history.receipt import one_page_pdf
    from jobgrant.service.people import organization_verification as verification
    from jobgrant.service.registry.models import Employer
    from jobgrant.service.uploads import checked

    waiting = seed_awaiting_verification()
    assert waiting is not None
    lakeshore = Employer.objects.get(name="Lakeshore Logistics")
    _attempt_on(lakeshore.business_number, "rosa@example.com")
    token = _parts("registration_organization_exists", "rosa@example.com")[-1]
    letter = SimpleUploadedFile("cra-letter.pdf", one_page_pdf("CRA letter"))
    verification.file_dispute(
        token,
        {"name": "Rosa Birch", "phone": "905 555 0199", "statement": "I own Lakeshore."},
        checked(letter, "file", default="document"),
    )
    return {"waiting": waiting.pk, "disputed": lakeshore.pk}


def people_and_a_request(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """Acme with a second person, and an application by someone acting for Acme alone that
    names Lakeshore (which demo-employer administers): a request waiting for its answer."""
    from jobgrant.service.accounts.models import Membership, Role, User
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.models.partners import PartnerConsent
    from jobgrant.service.people import organizations as organization_actions
    from jobgrant.service.registry.models import Employer

    acme = Employer.objects.get(name="Acme Precision Machining")
    lakeshore = Employer.objects.get(name="Lakeshore Logistics")
    colleague = User.objects.create_user(
        "e2e-colleague",
        email="e2e-colleague@example.com",
        role=Role.EMPLOYER,
        first_name="Sam",
        last_name="Lee",
    )
    membership = Membership.objects.create(user=colleague, employer=acme, role="member")
    body = make_body()
    body["employers"] = [
        {"id": "acme", "business_number": acme.business_number},
        {"id": "lakeshore", "business_number": lakeshore.business_number},
    ]
    body["trainees"].append({**body["trainees"][0], "employer_id": "lakeshore"})
    application = actions.create_application(colleague, body)
    consent = PartnerConsent.objects.get(link__application=application)
    demo_employer = User.objects.get(username="demo-employer")
    invitation = organization_actions.invite_colleague(
        demo_employer, acme, {"email": "not-yet@example.com", "role": "member", "language": "en"}
    )
    return {
        "acme": acme.pk,
        "membership": membership.pk,
        "consent": consent.pk,
        "invitation": invitation.pk,
    }


def staff_to_manage(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    from jobgrant.service.accounts.models import User

    return {"officer": User.objects.get(username="demo-officer-on-1").pk}


def org_groups(group: Any, visit: Any, click: Any, fill_and_click: Any) -> tuple[Any, ...]:
    """The groups, made with test_accessibility's Group, Visit and actions."""
    Group, Visit = group, visit  # noqa: N806 - read as the classes they are
    return (
        Group(
            "registration",
            None,
            (
                Visit("web:register", error=click("#register")),
                Visit(
                    "web:register",
                    error=fill_and_click(
                        {"#business_number": "123456789", "#postal_code": "V6B 1A1"}, "#register"
                    ),
                    label="a wrong check digit and a postal code of another province",
                ),
                Visit("web:register-sent"),
                Visit(
                    "web:verify-email",
                    kwargs=lambda made: {"token": made["token"]},
                ),
                Visit(
                    "web:verify-email",
                    kwargs=lambda made: {"token": "1-x"},
                    status=404,
                    label="a link that does not work",
                ),
                Visit("web:verify-email-done"),
                Visit(
                    "web:invitation",
                    kwargs=lambda made: {"token": made["invitation"]},
                    error=click("#create-account"),
                ),
                Visit(
                    "web:account-setup",
                    kwargs=lambda made: {"token": made["setup_token"]},
                    error=fill_and_click({"#password": "short"}, "#set-password"),
                ),
                Visit(
                    "web:account-email-confirm",
                    kwargs=lambda made: {"token": made["email_change"]},
                ),
                Visit(
                    "web:dispute",
                    kwargs=lambda made: {"token": made["dispute"]},
                    error=click("#file-dispute"),
                ),
                Visit("web:dispute-filed"),
                Visit(
                    "web:account-email-confirm",
                    kwargs=lambda made: {"token": "1-x"},
                    status=404,
                    label="a link that does not work",
                ),
            ),
            setup=links_sent,
        ),
        Group(
            "organizations",
            "demo-employer",
            (
                Visit("web:organization-list"),
                Visit(
                    "web:organization-members",
                    kwargs=lambda made: {"employer_id": made["acme"]},
                    error=click("#send-invitation"),
                ),
                Visit(
                    "web:organization-member-remove",
                    kwargs=lambda made: {
                        "employer_id": made["acme"],
                        "membership_id": made["membership"],
                    },
                ),
                Visit(
                    "web:organization-invitation-revoke",
                    kwargs=lambda made: {
                        "employer_id": made["acme"],
                        "invitation_id": made["invitation"],
                    },
                ),
                Visit("web:partner-requests"),
                Visit("web:partner-request", kwargs=lambda made: {"consent_id": made["consent"]}),
                Visit(
                    "web:partner-request-decline",
                    kwargs=lambda made: {"consent_id": made["consent"]},
                ),
            ),
            setup=people_and_a_request,
        ),
        Group(
            "organizations to verify",
            "demo-officer-on-1",
            (
                Visit("web:officer-organizations"),
                Visit(
                    "web:officer-organization",
                    kwargs=lambda made: {"employer_id": made["waiting"]},
                    error=click("#verify"),
                ),
                Visit(
                    "web:officer-organization",
                    kwargs=lambda made: {"employer_id": made["disputed"]},
                    error=click("#resolve"),
                    label="a disputed organization",
                ),
            ),
            setup=organizations_to_verify,
        ),
        Group(
            "an organization not verified yet",
            "demo-employer-new",
            (
                Visit("web:organization-list"),
                Visit(
                    "web:organization-members",
                    kwargs=lambda made: {"employer_id": made["waiting"]},
                    error=click("#upload-proof"),
                ),
            ),
            setup=organizations_to_verify,
        ),
        Group(
            "staff accounts",
            "demo-admin",
            (
                Visit("web:staff-list"),
                Visit("web:staff-new", error=click("#save-account")),
                Visit(
                    "web:staff-edit",
                    kwargs=lambda made: {"user_id": made["officer"]},
                    error=fill_and_click({"#affiliations": "123456789"}, "#save-account"),
                ),
                Visit("web:staff-deactivate", kwargs=lambda made: {"user_id": made["officer"]}),
            ),
            setup=staff_to_manage,
        ),
    )


ORG_EXCLUDED: dict[str, str] = {
    "web:organization-proof": "POST only (Send the document to an officer), redirects to the "
    "organization's page; its error state is checked as organization-members",
    "web:officer-organization-decide": "POST only (verify, refuse, resolve), redirects to the "
    "officer's organization page; its error states are checked as officer-organization",
    "web:officer-organization-document": "a download (the document's own bytes), not a page",
    "web:organization-member-role": "POST only (Change the role), redirects to the members "
    "page, checked as organization-members",
    "web:staff-reactivate": "POST only (Reactivate), redirects to the staff list, checked as "
    "staff-list",
}
