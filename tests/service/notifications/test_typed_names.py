"""Names typed by registrants, in messages to other people (an organization's administrators, a
colleague invited, a partner's administrators, a trainee): quoted as text, with no link in them
(outbox.quoted), so that a name cannot carry a phishing link under the service's letterhead."""

from __future__ import annotations

import pytest
from django.db import transaction
from tests.personas import EMPLOYER, PARTNER_EMPLOYER

from jobgrant.service.notifications.models import Message
from jobgrant.service.notifications.outbox import quoted
from jobgrant.service.people import organizations
from jobgrant.service.registry.models import Employer

pytestmark = pytest.mark.django_db
PHISHING = "Urgent: sign in at https://evil.example/login or www.evil.example/x and evil.example"


def test_quoted_strips_links_and_quotes_the_rest() -> None:
    assert quoted("Acme Precision Machining Ltd.") == "“Acme Precision Machining Ltd.”"
    text = quoted(PHISHING)
    assert "evil" not in text and "http" not in text and "www" not in text
    assert text.startswith("“Urgent: sign in at") and text.endswith("”")
    assert quoted("  ") == "“”"


def test_a_registrant_s_name_reaches_the_administrators_quoted_without_its_link(
    demo: None,
) -> None:
    employer = Employer.objects.filter(users=PARTNER_EMPLOYER.get()).first()
    assert employer is not None
    data = {
        "name": "Whatever",
        "business_number": employer.business_number,
        "street_address": "1 Main St",
        "city": "Sudbury",
        "jurisdiction": employer.jurisdiction,
        "postal_code": "P3E 1A1",
        "phone": "705-555-0131",
        "naics": "332710",
        "employees": 5,
        "first_name": "Visit http://evil.example/login",
        "last_name": "now",
        "email": "someone.new@example.org",
        "password": "welding-sparks-over-sudbury",
        "password_again": "welding-sparks-over-sudbury",
    }
    organizations.register_organization(data, language="en")
    told = Message.objects.filter(kind="registration_organization_asked")
    assert told.exists()
    for message in told:
        assert "evil.example" not in message.body and "http://evil" not in message.body
        assert "“Visit" in message.body


def test_an_invitation_quotes_the_inviter_and_the_organization(demo: None) -> None:
    admin = EMPLOYER.get()
    admin.first_name = "Click www.evil.example/pay"
    admin.save(update_fields=["first_name"])
    employer = Employer.objects.filter(users=admin).first()
    assert employer is not None
    with transaction.atomic():
        organizations.invite_colleague(
            admin, employer, {"email": "colleague@example.org", "role": "member", "language": "en"}
        )
    message = Message.objects.get(kind="organization_invitation", recipient="colleague@example.org")
    text = message.subject_line + message.body
    assert "evil.example" not in text and f"“{employer.name}”" in text
