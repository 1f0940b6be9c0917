"""The canonical files (tests/canonical.py): one file at each stage in the seeded database, made
by the service's actions. Each, put into a test's database, is at its stage, and the ledger and
the audit chain hold (`jobgrant ledger verify`, `jobgrant audit verify`); a test that asks for
none sees none."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from typing import Any

import pytest
from tests import canonical
from tests.conftest import applications

from jobgrant.service import commands
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.claims import Claim
from jobgrant.service.grants.models.completion import CompletionReport
from jobgrant.service.grants.models.payments import PaymentRequest

pytestmark = pytest.mark.django_db

#: Each stage as the models say it: the agreement's state, the trainees' slots, the
#: claims' states and whether certified, the payment requests' states (one a funder), the
#: report's state.
CONFIRMED = ["confirmed", "confirmed"]
EXPECTED = {
    "approved": ("issued", [], [], [], None),
    "accepted": ("accepted", [], [], [], None),
    "claimable": ("accepted", CONFIRMED, [], [], None),
    "certified": ("active", CONFIRMED, [("approved", True)], [], None),
    "paid": ("active", CONFIRMED, [("approved", True)], ["paid", "paid"], None),
    "completed": (
        "completed",
        ["outcome_reported", "outcome_reported"],
        [("approved", True)],
        ["paid", "paid"],
        "submitted",
    ),
}


def stage_of(application: Application) -> tuple[Any, ...]:
    claims = Claim.objects.filter(application=application)
    report = CompletionReport.objects.filter(application=application).first()
    return (
        application.agreement.state,
        sorted(application.participants.values_list("state", flat=True)),
        [(claim.state, claim.certified_at is not None) for claim in claims],
        list(PaymentRequest.objects.filter(claim__in=claims).values_list("state", flat=True)),
        report.state if report else None,
    )


def verified() -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        codes = (commands.verify_ledger(), commands.verify_audit())
    assert codes == (0, 0), out.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("stage", canonical.STAGES)
def test_each_stage_is_there_made_by_the_actions_and_the_ledger_and_audit_verify(
    canonical_file: Any, stage: str
) -> None:
    application = canonical_file(stage)
    assert application.created_by.username == "employer" and application.state == "approved"
    assert stage_of(application) == EXPECTED[stage]
    assert applications().count() == 1  # this stage's file alone, beside the demonstration's
    report = verified()
    assert "ledger balanced" in report and "audit chain intact" in report


def test_a_test_that_asks_for_no_canonical_file_sees_none() -> None:
    assert not applications().exists()
    verified()


def test_one_stage_a_test_and_before_anything_audited(canonical_file: Any) -> None:
    canonical_file("approved")
    with pytest.raises(RuntimeError, match="one a test"):
        canonical_file("paid")


@pytest.mark.django_db(transaction=True)
def test_a_transactional_test_gets_it_committed_then_the_seeded_database_back(
    canonical_file: Any,
) -> None:
    application = canonical_file("completed")
    assert stage_of(application) == EXPECTED["completed"]
    verified()
