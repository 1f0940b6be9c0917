"""The ranking's pages in the axe pass of test_accessibility.py: the officer's review of a file
below its intake's cut-off (its rank, score and reasons, the override form, and the form sent
empty), the program manager's overrides awaiting a sign-off, one override (and its answer sent
without the confirmation), the report of decisions out of rank, and the program manager's
ranking by hand of a closed intake the worker has not ranked (its confirmation, and the refusal
for an intake ranked already)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

REASON = "The employer's plant closes in March: the training must start now."


def ranked_intake(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """Ontario's intake ranked under on-2017 with two files, the second below the cut-off (an
    intake budget for one $5,000 share per funder), and an override asked for on it."""
    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.models.applications import (
        Intake,
        IntakeState,
        Selection,
        Stream,
    )
    from jobgrant.service.grants.ranking import actions as ranking_actions

    Stream.objects.filter(program__jurisdiction="ON").update(
        selection=Selection.RANKED, scoring="on-2017"
    )
    employer = User.objects.get(username="demo-employer")
    officer = User.objects.get(username="demo-officer-on-1")
    files = []
    for _ in range(2):
        application = actions.create_application(employer, make_body())
        submitted = actions.submit_application(employer, application)
        submitted.refresh_from_db()
        files.append(submitted)
    # The intake the two files went to (the demonstration's first-come one open now), not its
    # closed, ranked intake of the second stream.
    intake = Intake.objects.get(pk=files[0].intake_id)
    assert files[1].intake_id == intake.pk
    Intake.objects.filter(pk=intake.pk).update(
        state=IntakeState.CLOSED, federal_budget_cents=500_000, provincial_budget_cents=500_000
    )
    intake.refresh_from_db()
    ranking_actions.rank_intake(intake)
    below = files[1]
    actions.recommend_application(officer, below)
    other = files[0]
    override = ranking_actions.request_override(officer, below, "approve", REASON)
    return {"below": below.pk, "above": other.pk, "override": override.pk, "intake": intake.pk}


def intake_to_rank(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """Ontario's open intake, its stream ranked under on-2017, with two files, closed and not
    ranked yet; and the demonstration's ranked intake, ranked already."""
    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.models.applications import (
        Intake,
        IntakeState,
        Selection,
        Stream,
    )

    employer = User.objects.get(username="demo-employer")
    files = [
        actions.submit_application(employer, actions.create_application(employer, make_body()))
        for _ in range(2)
    ]
    intake = Intake.objects.get(pk=files[0].intake_id)
    Stream.objects.filter(pk=intake.stream_id).update(selection=Selection.RANKED, scoring="on-2017")
    Intake.objects.filter(pk=intake.pk).update(state=IntakeState.CLOSED)
    ranked = Intake.objects.get(stream__program__jurisdiction="ON", state=IntakeState.RANKED)
    return {"waiting": intake.pk, "ranked": ranked.pk}


def ranking_groups(group: Any, visit: Any, click: Any, fill_and_click: Any) -> tuple[Any, ...]:
    Group, Visit = group, visit  # noqa: N806 - read as the classes they are
    return (
        Group(
            "officer ranking",
            "demo-officer-on-2",
            (
                Visit(
                    "web:officer-review",
                    kwargs=lambda made: {"application_id": made["above"]},
                    label="ranked, with the override form",
                    error=click("#override-button"),
                ),
                Visit("web:manager-out-of-rank"),
            ),
            setup=ranked_intake,
        ),
        Group(
            "program manager",
            "demo-program-manager-on",
            (
                Visit("web:manager-overrides"),
                Visit(
                    "web:manager-override",
                    kwargs=lambda made: {"override_id": made["override"]},
                    error=click("#answer-button"),
                ),
            ),
            setup=ranked_intake,
        ),
        Group(
            "program manager ranking by hand",
            "demo-program-manager-on",
            (
                Visit(
                    "web:program-intake",
                    kwargs=lambda made: {"intake_id": made["waiting"]},
                    label="closed, waiting for its ranking",
                ),
                Visit(
                    "web:program-intake-rank",
                    kwargs=lambda made: {"intake_id": made["waiting"]},
                    label="the confirmation",
                ),
                Visit(
                    "web:program-intake-rank",
                    kwargs=lambda made: {"intake_id": made["ranked"]},
                    status=409,
                    label="ranked already: the refusal",
                ),
            ),
            setup=intake_to_rank,
        ),
    )


RANKING_EXCLUDED: dict[str, str] = {
    "web:officer-override": "POST only (Ask for the override); it redirects to the review, "
    "checked as officer-review (its error state shows the form sent empty)",
    "web:manager-override-answer": "POST only (Send my answer); it redirects to the overrides, "
    "checked as manager-override (its error state shows the answer sent unconfirmed)",
    "web:manager-out-of-rank-csv": "a CSV download, not a page",
}
