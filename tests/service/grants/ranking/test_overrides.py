"""Decisions against the ranking: a written reason, a second person's sign-off, both audited;
without the sign-off the decision is refused (403, audited) and nothing is committed."""

from __future__ import annotations

import pytest
from tests.personas import ADMIN, OFFICER, PROGRAM_MANAGER, SECOND_OFFICER
from tests.service.grants.ranking_helpers import closed, ranked_stream, submitted_files

from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.grants.models.ranking import OverrideState, RankOverride
from jobgrant.service.grants.ranking.actions import (
    rank_intake,
    refuse_override,
    request_override,
    sign_off_override,
)
from jobgrant.service.ledger.models import BudgetAccount

pytestmark = pytest.mark.django_db
REASON = "The employer's plant closes in March: the training must start now or not at all."


@pytest.fixture
def files(demo: None) -> dict[str, Application]:
    intake = ranked_stream()
    submitted = submitted_files()
    rank_intake(closed(intake))
    for application in submitted.values():
        actions.recommend_application(OFFICER.get(), application)
    return submitted


def _committed() -> int:
    return sum(
        BudgetAccount.objects.filter(jurisdiction="ON").values_list("committed_cents", flat=True)
    )


def test_approving_below_the_cut_off_without_a_sign_off_is_refused_and_audited(files) -> None:
    before = _committed()
    with pytest.raises(ServiceError) as refused:
        actions.approve_application(SECOND_OFFICER.get(), files["D"])
    assert refused.value.status == 403 and refused.value.code == "OUT_OF_RANK_NOT_SIGNED_OFF"
    assert "ranked 4, below the cut-off" in refused.value.message_en
    assert "4e" in refused.value.message_fr or "4" in refused.value.message_fr
    entry = AuditEntry.objects.filter(action="refused.approve_application").latest("sequence")
    assert entry.summary["code"] == "OUT_OF_RANK_NOT_SIGNED_OFF"
    assert Application.objects.get(pk=files["D"].pk).state == State.RECOMMENDED
    assert _committed() == before


def test_an_override_asked_for_but_not_signed_off_still_refuses_the_decision(files) -> None:
    request_override(OFFICER.get(), files["D"], "approve", REASON)
    with pytest.raises(ServiceError) as refused:
        actions.approve_application(SECOND_OFFICER.get(), files["D"])
    assert refused.value.status == 403


def test_a_signed_off_override_lets_the_decision_through_and_both_signatures_are_audited(
    files,
) -> None:
    override = request_override(OFFICER.get(), files["D"], "approve", REASON)
    sign_off_override(PROGRAM_MANAGER.get(), override, "Agreed: the closure is documented.")
    approved = actions.approve_application(SECOND_OFFICER.get(), files["D"])
    assert approved.state == State.APPROVED
    override.refresh_from_db()
    assert override.state == OverrideState.APPLIED and override.applied_at is not None
    assert override.signed_off_by == PROGRAM_MANAGER.get()
    asked = AuditEntry.objects.get(action="rank_override.request", object_id=str(override.pk))
    signed = AuditEntry.objects.get(action="rank_override.sign_off", object_id=str(override.pk))
    assert asked.actor == OFFICER.username and asked.summary["reason"] == REASON
    assert signed.actor == PROGRAM_MANAGER.username
    approval = AuditEntry.objects.filter(
        action="application.approve", object_id=str(files["D"].pk)
    ).get()
    assert approval.summary["override"] == str(override.pk)
    assert verify().ok


def test_denying_above_the_cut_off_needs_a_signed_off_override_too(files) -> None:
    with pytest.raises(ServiceError) as refused:
        actions.deny_application(SECOND_OFFICER.get(), files["B"], "Not a priority.")
    assert refused.value.code == "OUT_OF_RANK_NOT_SIGNED_OFF"
    override = request_override(OFFICER.get(), files["B"], "deny", REASON)
    sign_off_override(ADMIN.get(), override)
    assert actions.deny_application(SECOND_OFFICER.get(), files["B"], "Plant closing.").state == (
        State.DENIED
    )


def test_a_decision_that_follows_the_ranking_needs_no_override(files) -> None:
    assert actions.approve_application(SECOND_OFFICER.get(), files["B"]).state == State.APPROVED
    assert actions.deny_application(
        SECOND_OFFICER.get(), files["D"], "Below the cut-off."
    ).state == (State.DENIED)
    with pytest.raises(ServiceError) as refused:
        request_override(OFFICER.get(), files["C"], "approve", REASON)
    assert refused.value.code == "IN_RANK"


def test_an_override_needs_a_written_reason(files) -> None:
    with pytest.raises(ServiceError) as refused:
        request_override(OFFICER.get(), files["D"], "approve", "   ")
    assert refused.value.status == 422
    assert not RankOverride.objects.filter(application=files["D"]).exists()


def test_only_a_program_manager_or_an_administrator_signs_off(files) -> None:
    override = request_override(OFFICER.get(), files["D"], "approve", REASON)
    for who in (OFFICER, SECOND_OFFICER):
        with pytest.raises(ServiceError) as refused:
            sign_off_override(who.get(), override)
        assert refused.value.status == 403
    assert AuditEntry.objects.filter(action="refused.sign_off_override").count() == 2
    override.refresh_from_db()
    assert override.state == OverrideState.REQUESTED


def test_a_refused_override_leaves_the_decision_refused_and_a_second_one_may_be_asked(
    files,
) -> None:
    override = request_override(OFFICER.get(), files["D"], "approve", REASON)
    with pytest.raises(ServiceError) as twice:
        request_override(OFFICER.get(), files["D"], "approve", REASON)
    assert twice.value.code == "OVERRIDE_ALREADY_OPEN"
    refuse_override(PROGRAM_MANAGER.get(), override, "The ranking stands.")
    with pytest.raises(ServiceError):
        actions.approve_application(SECOND_OFFICER.get(), files["D"])
    with pytest.raises(ServiceError) as settled:
        sign_off_override(PROGRAM_MANAGER.get(), override)
    assert settled.value.code == "OVERRIDE_NOT_AWAITING"
    assert request_override(OFFICER.get(), files["D"], "approve", REASON).pk != override.pk
