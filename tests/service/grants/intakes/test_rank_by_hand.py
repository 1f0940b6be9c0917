"""A program manager ranks by hand a closed intake the worker has not ranked (not yet, or its
ranking failed): the worker's ranking under their name, audited; a clear refusal, audited once,
for anyone else, for an intake not closed or ranked already, and without the confirmation;
through the API as through the action."""

from __future__ import annotations

import pytest
from tests.personas import OFFICER, PROGRAM_MANAGER
from tests.service.grants.ranking_helpers import ORDER, closed, ranked_stream, submitted_files

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.intakes.actions import open_and_close_due
from jobgrant.service.grants.intakes.ranking_handoff import rank_by_hand, waiting
from jobgrant.service.grants.models.applications import Intake, IntakeState
from jobgrant.service.grants.models.ranking import IntakeRank

pytestmark = pytest.mark.django_db


@pytest.fixture
def intake(demo: None) -> Intake:
    """The hand-worked intake (ranking_helpers), closed, its four files not ranked yet."""
    made = ranked_stream()
    submitted_files()
    return closed(made)


def refusals(who: str) -> int:
    return AuditEntry.objects.filter(action="refused.rank_intake", actor=who).count()


def test_the_program_manager_ranks_it_as_the_worker_would_have(intake) -> None:
    shown = waiting(PROGRAM_MANAGER.get(), intake)
    assert (shown.files, shown.federal_cents, shown.provincial_cents) == (4, 1_000_000, 1_200_000)
    ranks = rank_by_hand(PROGRAM_MANAGER.get(), intake, confirmed=True)
    applications = {r.rank: r.application_id for r in ranks}
    assert len(ranks) == 4 and applications[1] != applications[4]
    intake.refresh_from_db()
    assert intake.state == IntakeState.RANKED and intake.ranked_at is not None
    entry = AuditEntry.objects.get(action="intake.rank", object_id=str(intake.pk))
    assert entry.actor == PROGRAM_MANAGER.username and len(entry.summary["order"]) == len(ORDER)
    assert verify().ok
    assert open_and_close_due()["ranked"] == []  # the worker finds nothing left to rank


def test_a_second_ranking_is_refused_clearly_in_both_languages_and_audited(intake) -> None:
    rank_by_hand(PROGRAM_MANAGER.get(), intake, confirmed=True)
    with pytest.raises(ServiceError) as again:
        rank_by_hand(PROGRAM_MANAGER.get(), intake, confirmed=True)
    assert (again.value.status, again.value.code) == (409, "INTAKE_ALREADY_RANKED")
    assert "It was ranked on" in again.value.message_en
    assert "Il a été classé le" in again.value.message_fr
    assert refusals(PROGRAM_MANAGER.username) == 1
    assert IntakeRank.objects.filter(intake=intake).count() == 4
    intake.refresh_from_db()
    with pytest.raises(ServiceError):  # what the confirmation page shows instead of the button
        waiting(PROGRAM_MANAGER.get(), intake)
    assert refusals(PROGRAM_MANAGER.username) == 1  # the page's question is no attempt


def test_an_open_intake_is_refused_and_nothing_is_ranked(demo: None) -> None:
    intake = ranked_stream()
    with pytest.raises(ServiceError) as refused:
        rank_by_hand(PROGRAM_MANAGER.get(), intake, confirmed=True)
    assert (refused.value.status, refused.value.code) == (409, "INTAKE_NOT_RANKABLE")
    assert "Only a closed intake" in refused.value.message_en
    assert "Seul un appel de demandes fermé" in refused.value.message_fr
    assert not IntakeRank.objects.filter(intake=intake).exists()
    assert refusals(PROGRAM_MANAGER.username) == 1


def test_an_officer_or_another_jurisdiction_s_manager_is_refused_403_audited(intake) -> None:
    other = User.objects.create_user(
        "program-manager-bc", role=Role.PROGRAM_MANAGER, jurisdiction="BC"
    )
    for who in (OFFICER.get(), other):
        with pytest.raises(ServiceError) as refused:
            rank_by_hand(who, intake, confirmed=True)
        assert refused.value.status == 403
        assert refusals(who.username) == 1
    intake.refresh_from_db()
    assert intake.state == IntakeState.CLOSED


def test_without_the_confirmation_nothing_is_ranked_and_the_field_is_named(intake) -> None:
    with pytest.raises(ServiceError) as refused:
        rank_by_hand(PROGRAM_MANAGER.get(), intake, confirmed=None)
    assert refused.value.status == 422
    assert [p["field"] for p in refused.value.problems] == ["confirm"]
    assert "ne se refait jamais" in refused.value.problems[0]["message_fr"]
    assert not IntakeRank.objects.filter(intake=intake).exists()


def test_the_api_ranks_it_after_its_confirmation(intake, as_user) -> None:
    manager = as_user(PROGRAM_MANAGER)
    unconfirmed = manager.post(f"/intakes/{intake.pk}/rank", {}, key="a")
    assert unconfirmed.status_code == 422
    assert [e["field"] for e in unconfirmed.json()["errors"]] == ["confirm"]
    assert (
        as_user(OFFICER).post(f"/intakes/{intake.pk}/rank", {"confirm": True}, key="b").status_code
        == 403
    )
    ranked = manager.post(f"/intakes/{intake.pk}/rank", {"confirm": True}, key="c")
    assert ranked.status_code == 200 and ranked.json()["state"] == "ranked"
    assert len(manager.get(f"/intakes/{intake.pk}/ranking").json()["ranks"]) == 4
    again = manager.post(f"/intakes/{intake.pk}/rank", {"confirm": True}, key="d")
    assert again.status_code == 409 and again.json()["code"] == "INTAKE_ALREADY_RANKED"
