"""Ranking a closed intake: the hand-worked intake of ranking_helpers, its cut-off, and a
ranking made once."""

from __future__ import annotations

import pytest
from tests.personas import OFFICER, PROGRAM_MANAGER, SECOND_OFFICER
from tests.service.grants.ranking_helpers import (
    ORDER,
    SCORES,
    WITHIN,
    closed,
    ranked_stream,
    submitted_files,
)

from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import IntakeState, Selection, Stream
from jobgrant.service.grants.models.ranking import IntakeRank
from jobgrant.service.grants.ranking.actions import rank_intake

pytestmark = pytest.mark.django_db


def test_the_government_shares_are_those_the_hand_worked_intake_assumes(demo: None) -> None:
    ranked_stream()
    files = submitted_files()
    government = {name: f.federal_cents + f.provincial_cents for name, f in files.items()}
    assert government == {"A": 1_000_000, "B": 400_000, "C": 600_000, "D": 1_000_000}
    assert all(f.federal_cents == f.provincial_cents for f in files.values())


def test_a_closed_intake_is_ranked_by_score_then_submission_and_cut_where_its_budget_ends(
    demo: None,
) -> None:
    intake = ranked_stream()
    files = submitted_files()
    ranks = rank_intake(closed(intake))
    by_file = {name: IntakeRank.objects.get(application=f) for name, f in files.items()}
    assert sorted(by_file, key=lambda name: by_file[name].rank) == ORDER
    assert {name: r.score for name, r in by_file.items()} == SCORES
    assert {name: r.within_budget for name, r in by_file.items()} == WITHIN
    assert [r.federal_running_cents for r in ranks] == [200_000, 500_000, 1_000_000, 1_500_000]
    intake.refresh_from_db()
    assert intake.state == IntakeState.RANKED and intake.ranked_at is not None


def test_each_point_of_a_score_says_why_with_the_parameters_it_read(demo: None) -> None:
    intake = ranked_stream()
    files = submitted_files()
    rank_intake(closed(intake))
    points = IntakeRank.objects.get(application=files["B"]).points
    assert {c: p["points"] for c, p in points.items()} == {
        "small_business": 30,
        "new_hires": 25,
        "regional_priority": 10,
        "first_time": 10,
        "cost_per_trainee": 10,
        "total": 85,
    }
    cost = points["cost_per_trainee"]
    assert cost["inputs"]["cost_per_trainee"] == "4000.00"
    read = {p["name"]: p for p in points["small_business"]["parameters"]}
    assert read["ranking.small_business.points"]["layer"] == "on-2017"
    assert read["ranking.small_business.max_employees"]["value"] == "50"


def test_the_ranking_is_in_the_audit_chain_with_its_order(demo: None) -> None:
    intake = ranked_stream()
    files = submitted_files()
    rank_intake(closed(intake))
    entry = AuditEntry.objects.get(action="intake.rank", object_id=str(intake.pk))
    assert entry.actor == "worker"
    assert [row[0] for row in entry.summary["order"]] == [files[n].pk for n in ORDER]
    assert entry.summary["within_budget"] == 3
    assert verify().ok


def test_an_intake_is_ranked_once_and_a_second_ranking_is_refused_and_audited(demo: None) -> None:
    intake = ranked_stream()
    submitted_files()
    rank_intake(closed(intake))
    with pytest.raises(ServiceError) as refused:
        rank_intake(intake, by=PROGRAM_MANAGER.get())
    assert refused.value.status == 409 and refused.value.code == "INTAKE_ALREADY_RANKED"
    assert AuditEntry.objects.filter(
        action="refused.rank_intake", actor=PROGRAM_MANAGER.username
    ).exists()
    assert IntakeRank.objects.filter(intake=intake).count() == 4


def test_an_open_intake_or_a_first_come_stream_is_not_ranked(demo: None) -> None:
    intake = ranked_stream()
    with pytest.raises(ServiceError, match="closed intake"):
        rank_intake(intake)
    Stream.objects.filter(pk=intake.stream_id).update(selection=Selection.FIRST_COME)
    with pytest.raises(ServiceError):
        rank_intake(closed(intake))


def test_an_approval_before_the_ranking_is_refused(demo: None) -> None:
    intake = ranked_stream()
    files = submitted_files()
    closed(intake)
    officer = OFFICER.get()
    actions.recommend_application(officer, files["B"])
    with pytest.raises(ServiceError) as refused:
        actions.approve_application(PROGRAM_MANAGER.get(), files["B"])
    assert refused.value.status == 403  # a program manager does not approve files at all
    with pytest.raises(ServiceError) as refused:
        actions.approve_application(SECOND_OFFICER.get(), files["B"])
    assert refused.value.code == "INTAKE_NOT_RANKED"


def test_the_demonstration_ranks_an_intake_and_takes_one_decision_against_it(demo: None) -> None:
    from jobgrant.service.demo_ranking import rank_and_override

    intake = ranked_stream()
    files = submitted_files()
    shown = rank_and_override(
        closed(intake),
        officer=OFFICER.get(),
        second_officer=SECOND_OFFICER.get(),
        manager=PROGRAM_MANAGER.get(),
    )
    assert [r.rank for r in shown.ranks] == [1, 2, 3, 4]
    assert shown.override is not None and shown.override.application_id == files["D"].pk
    assert shown.override.state == "applied"
