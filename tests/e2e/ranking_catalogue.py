"""The ranking's pages in the axe pass of test_accessibility.py: the officer's review of a file
below its intake's cut-off (its rank, score and reasons, the override form, and the form sent
empty), the program manager's overrides awaiting a sign-off, one override (and its answer sent
without the confirmation), the report of decisions out of rank, and the program manager's
ranking by hand of a closed intake the worker has not ranked (its confirmation, and the refusal
for an intake ranked already); and the employer's wizard where two streams take applications:
the training step asking which (and sent without a choice), and the trainee step of the ranked
stream, which scores under-represented trainees and so asks about them (ticked, and in error)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.conftest import TRAINING_STEP

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


def two_streams_open(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """Ontario's ranked stream scoring under-represented trainees (bc-2016), with a winter
    intake open from today beside the first-come grant open all year."""
    import datetime as dt

    from django.utils import timezone

    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.intakes.actions import create_intake
    from jobgrant.service.grants.models.applications import Selection, Stream

    stream = Stream.objects.get(program__jurisdiction="ON", selection=Selection.RANKED)
    Stream.objects.filter(pk=stream.pk).update(scoring="bc-2016")
    today = timezone.localdate()
    body = {
        "name_en": "Winter intake",
        "name_fr": "Appel d'hiver",
        "opens_on": today.isoformat(),
        "closes_on": (today + dt.timedelta(days=45)).isoformat(),
    }
    create_intake(User.objects.get(username="demo-program-manager-on"), stream, body)
    return {"ranked": stream.pk}


def _language(web: Any) -> str:
    return "fr" if "/fr/" in web.page.url else "en"


def organizations_done(web: Any) -> None:
    web.apply(_language(web)).organizations()


def ranked_stream_chosen(web: Any) -> None:
    """The organizations, then the training with the ranked stream chosen."""
    from jobgrant.service.grants.models.applications import Selection, Stream

    ranked = Stream.objects.get(program__jurisdiction="ON", selection=Selection.RANKED)
    apply = web.apply(_language(web))
    apply.organizations()
    web.goto(apply.url("training"))
    web.page.check(f"#stream-{ranked.pk}")
    for key, value in TRAINING_STEP.items():
        if key in ("setting", "third_party"):
            web.page.check(f"#{key}-{value}")
        else:
            web.page.fill(f"#{key}", value)
    apply.next()
    assert web.page.url.endswith(apply.url("trainees")), web.page.url
    web.page.locator("#trainee-0-under_represented").wait_for()


def under_represented_ticked(web: Any) -> None:
    web.page.check("#trainee-0-under_represented")


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
                    "web:program-intake",
                    kwargs=lambda made: {"intake_id": made["ranked"]},
                    label="ranked: its ranking",
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
        Group(
            "employer choosing a stream that scores under-represented trainees",
            "demo-employer",
            (
                Visit(
                    "web:employer-apply-training",
                    prepare=organizations_done,
                    label="two streams open: which one",
                    error=click("#continue"),
                ),
                Visit(
                    "web:employer-apply-trainees",
                    prepare=ranked_stream_chosen,
                    label="the ranked stream's: under-represented trainees asked",
                    error=fill_and_click({"#trainee-0-tuition": "12,34,5.6.7"}, "#continue"),
                    states=(("ticked", under_represented_ticked),),
                ),
            ),
            setup=two_streams_open,
        ),
    )


RANKING_EXCLUDED: dict[str, str] = {
    "web:officer-override": "POST only (Ask for the override); it redirects to the review, "
    "checked as officer-review (its error state shows the form sent empty)",
    "web:manager-override-answer": "POST only (Send my answer); it redirects to the overrides, "
    "checked as manager-override (its error state shows the answer sent unconfirmed)",
    "web:manager-out-of-rank-csv": "a CSV download, not a page",
}
