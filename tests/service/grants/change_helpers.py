"""Accepted agreements for the change-request tests, made as the personas make them."""

from __future__ import annotations

import copy
from typing import Any

from tests.conftest import changes_audited
from tests.personas import EMPLOYER
from tests.service.grants.agreement_helpers import ALL_CONFIRMED, approved

from jobgrant.service.grants.agreements.actions import accept_agreement
from jobgrant.service.grants.models.agreements import Agreement, AgreementVersion
from jobgrant.service.grants.models.changes import ChangeRequest
from jobgrant.service.notifications.models import Message

TRAINEE: dict[str, Any] = {
    "employer_id": "acme",
    "status": "existing-employee",
    "costs": {
        "tuition": "15000.00",
        "student_fees": "0.00",
        "materials": "0.00",
        "exam_fees": "0.00",
    },
}


def trainee(**costs: str) -> dict[str, Any]:
    made = copy.deepcopy(TRAINEE)
    made["costs"].update(costs)
    return made


def accepted(**changes: Any) -> Agreement:
    """An approved application's agreement, accepted by its applicant."""
    agreement = approved(**changes)
    accept_agreement(EMPLOYER.get(), agreement, "Pat Birch", "Owner", ALL_CONFIRMED)
    agreement.refresh_from_db()
    return agreement


def latest(agreement: Agreement) -> AgreementVersion:
    agreement.refresh_from_db()
    return AgreementVersion.objects.get(agreement=agreement, number=agreement.version)


def counts() -> tuple[int, int, int, int]:
    """What a refused request must leave alone: changes, versions, audit entries, messages."""
    return (
        ChangeRequest.objects.count(),
        AgreementVersion.objects.count(),
        changes_audited(),
        Message.objects.count(),
    )
