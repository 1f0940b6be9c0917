"""The demonstration's two flags to look at: raise_demo_flags on demonstration files."""

from __future__ import annotations

import pytest
from tests.conftest import application_body
from tests.service.grants.claim_helpers import trainee

from jobgrant.service.accounts.models import User
from jobgrant.service.demo_support import business_number, raise_demo_flags
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.integrity import RiskFlag

pytestmark = pytest.mark.django_db


def test_the_demonstration_files_get_a_shared_account_and_a_price_far_above_the_usual() -> None:
    employer = User.objects.get(username="demo-employer")
    acme = {"id": "acme", "business_number": business_number("10000000")}
    made = []
    for tuition in ("3000.00", "3000.00", "3000.00", "9000.00"):
        body = application_body(employers=[acme], trainees=[trainee(tuition)])
        application = actions.create_application(employer, body)
        made.append(actions.submit_application(employer, application).pk)
    flags = RiskFlag.objects.filter(pk__in=raise_demo_flags(made))
    dear = {flag.kind for flag in flags if flag.application_id == made[-1]}
    assert dear == {"shared_bank_account", "price_above_usual"}
