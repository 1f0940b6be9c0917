"""The demonstration's ranked intake, as the seed leaves it (service/demo_ranking.py): files
submitted while it was open, ranked when it closed, one approved against the ranking with both
signatures, and flags open to look at."""

from __future__ import annotations

import pytest

from jobgrant.service.demo_ranking import FILES, demo_files
from jobgrant.service.grants.models.applications import Intake, IntakeState, Selection
from jobgrant.service.grants.models.integrity import FlagState, RiskFlag
from jobgrant.service.grants.models.ranking import IntakeRank, OverrideState, RankOverride

pytestmark = pytest.mark.django_db


def spring() -> Intake:
    return Intake.objects.get(
        stream__program__jurisdiction="ON", stream__selection=Selection.RANKED
    )


def test_its_files_came_in_while_it_was_open_and_it_is_ranked(demo: None) -> None:
    intake = spring()
    files = list(demo_files().order_by("received_on"))
    assert len(files) == len(FILES) == 9
    assert intake.state == IntakeState.RANKED and intake.closed_on == intake.closes_on
    assert all(intake.opens_on <= f.received_on <= intake.closes_on for f in files)
    assert {f.intake_id for f in files} == {intake.pk}
    assert all(f.stream_id == intake.stream_id for f in files)


def test_the_ranking_leaves_two_below_the_cut_off_and_one_is_denied_with_two_signatures(
    demo: None,
) -> None:
    ranks = list(IntakeRank.objects.filter(intake=spring()).order_by("rank"))
    assert [r.rank for r in ranks] == list(range(1, 10))
    assert [r.within_budget for r in ranks] == [True] * 7 + [False] * 2
    assert ranks[6].federal_running_cents <= 50_000_000 < ranks[7].federal_running_cents
    [override] = RankOverride.objects.all()
    assert override.application_id == ranks[6].application_id  # the last within the budget
    assert (override.decision, override.state) == ("deny", OverrideState.APPLIED)
    assert override.requested_by.username == "demo-officer-on-1"
    assert override.signed_off_by.username == "demo-program-manager-on"
    assert override.application.decided_by.username == "demo-officer-on-2"
    assert override.application.state == "denied"


def test_two_flags_are_open_to_look_at(demo: None) -> None:
    open_flags = RiskFlag.objects.filter(application__in=demo_files(), state=FlagState.OPEN)
    found = {(f.application.request["training"]["course"], f.kind) for f in open_flags}
    assert found == {
        ("Robotics technician", "price_above_usual"),
        ("Quality management, ISO 9001", "prepared_by_provider"),
    }
