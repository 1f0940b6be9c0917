"""The outcome pages in the axe pass of test_accessibility.py (T16): the employer's completion
report (the start, a draft with a bad NOC code, its confirmation step, a submitted report), the
employer's follow-up (with an answer missing), the trainee's follow-up by link (nothing
answered), and the officer's outcomes with the offer to raise a receivable.

The reports are made after the training and the follow-ups sent at 3 months (the clock moved
for the setup only): the pages show them whatever the day, and the trainee's link lives until
the survey would lapse, after the day the tests run."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

AFTER_TRAINING = dt.datetime(2027, 4, 2, 15, 0, tzinfo=dt.UTC)
THREE_MONTHS = dt.datetime(2027, 6, 26, 15, 0, tzinfo=dt.UTC)
APPLICATION = "application_id"


def _confirmed_file(make_body: Callable[..., dict[str, Any]], sin: str) -> Any:
    """An approved, accepted file of the demonstration employer, its trainee confirmed."""
    from tests.participants import answers

    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.agreements.actions import accept_agreement
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.models.agreements import Agreement
    from jobgrant.service.grants.participants import actions as participant_actions
    from jobgrant.service.notifications.models import Message

    employer = User.objects.get(username="demo-employer")
    first, second = (User.objects.get(username=f"demo-officer-on-{n}") for n in (1, 2))
    application = actions.create_application(employer, make_body())
    actions.submit_application(employer, application)
    actions.recommend_application(first, application)
    actions.approve_application(second, application)
    agreement = Agreement.objects.get(application=application)
    confirmed = ["agreement", "cost_schedule", "general_terms"]
    accept_agreement(employer, agreement, "Pat Birch", "Owner", confirmed)
    body = {"trainee": 0, "email": "trainee@example.com", "language": "en"}
    slot = participant_actions.invite_participant(employer, application, body)
    message = Message.objects.filter(subject_id=str(slot.pk)).order_by("-id").first()
    assert message is not None
    token = message.body.split("/participate/", 1)[1].split("/", 1)[0]
    participant_actions.submit_participant_form(token, answers(sin=sin))
    return application, slot


def reports_and_follow_ups(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """Three files: one whose report is not started, one with a draft, one submitted (its
    trainee did not complete) whose follow-ups at 3 months were sent."""
    import time_machine
    from tests.participants import OTHER_SIN, SIN

    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.completion import follow_ups as follow_up_actions
    from jobgrant.service.grants.completion import report as completion_actions
    from jobgrant.service.grants.models.completion import LIKERT_ITEMS
    from jobgrant.service.notifications.models import Message

    employer = User.objects.get(username="demo-employer")
    not_started, _ = _confirmed_file(make_body, SIN)
    draft_file, draft_slot = _confirmed_file(make_body, OTHER_SIN)
    done_file, done_slot = _confirmed_file(make_body, SIN)  # funded twice: a flag, no refusal
    with time_machine.travel(AFTER_TRAINING, tick=True):
        draft = completion_actions.start_completion_report(draft_file, by=employer)
        completion_actions.save_completion_report(
            draft,
            trainees=[{"participant": draft_slot.pk, "completed": True, "employed_at_end": False}],
            ratings={},
            feedback="",
            by=employer,
        )
        done = completion_actions.start_completion_report(done_file, by=employer)
        lead = done_file.employers.first().employer_id
        completion_actions.save_completion_report(
            done,
            trainees=[
                {
                    "participant": done_slot.pk,
                    "completed": False,
                    "not_completed_reason": "dropped-out",
                    "employed_at_end": False,
                }
            ],
            ratings={(lead, item): 4 for item in LIKERT_ITEMS},
            feedback="Useful.",
            by=employer,
        )
        completion_actions.submit_completion_report(done, by=employer)
    with time_machine.travel(THREE_MONTHS, tick=True):
        follow_up_actions.send_due_follow_ups()
    message = Message.objects.filter(kind="follow_up_trainee").order_by("-id").first()
    assert message is not None
    token = message.body.split("/follow-up/", 1)[1].split("/", 1)[0]
    return {
        "not_started": not_started.pk,
        "draft": draft_file.pk,
        "done": done_file.pk,
        "token": token,
    }


def comparison_questions(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """A file refused for lack of budget, in the comparison group, asked at 3 months."""
    import contextlib

    import time_machine
    from django.db.models import F

    from jobgrant.service.accounts.models import User
    from jobgrant.service.errors import ServiceError
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.completion import comparison
    from jobgrant.service.ledger.models import BudgetAccount
    from jobgrant.service.notifications.models import Message

    employer = User.objects.get(username="demo-employer")
    first, second = (User.objects.get(username=f"demo-officer-on-{n}") for n in (1, 2))
    application = actions.create_application(employer, make_body())
    actions.submit_application(employer, application)
    actions.recommend_application(first, application)
    pools = BudgetAccount.objects.filter(
        jurisdiction=application.jurisdiction, fiscal_year=application.fiscal_year
    )
    # Nothing left outside what is committed or earmarked (the demonstration's ranked intake
    # keeps its earmark: the allocation cannot go below it).
    pools.update(allocated_cents=F("committed_cents") + F("earmarked_cents"))
    with contextlib.suppress(ServiceError):  # refused for lack of budget: it joins the group
        actions.approve_application(second, application)
    comparison.enrol_comparison_group()
    with time_machine.travel(THREE_MONTHS, tick=True):
        comparison.send_due_comparison()
    message = Message.objects.filter(kind="comparison_questions").order_by("-id").first()
    assert message is not None
    return {"token": message.body.split("/comparison/", 1)[1].split("/", 1)[0]}


def outcome_groups(group: Any, visit: Any, click: Any, fill_and_click: Any) -> tuple[Any, ...]:
    Group, Visit = group, visit  # noqa: N806 - read as the classes they are

    def bad_noc(web: Any) -> None:
        web.page.locator("input[id$='-employed_at_end-yes']").first.check()
        web.page.locator("input[id$='-noc']").first.fill("12")
        click("#save-draft")(web)

    def employed_only(web: Any) -> None:
        web.page.locator("input[id$='employed-yes']").first.check()
        click("#send-answers")(web)

    return (
        Group(
            "employer outcomes",
            "demo-employer",
            (
                Visit(
                    "web:employer-completion-report",
                    kwargs=lambda made: {APPLICATION: made["not_started"]},
                    label="not started",
                ),
                Visit(
                    "web:employer-completion-report",
                    kwargs=lambda made: {APPLICATION: made["draft"]},
                    label="draft",
                    error=bad_noc,
                    states=(("confirmation before submitting", click("#review-report")),),
                ),
                Visit(
                    "web:employer-completion-report",
                    kwargs=lambda made: {APPLICATION: made["done"]},
                    label="submitted",
                ),
                Visit(
                    "web:employer-follow-up",
                    kwargs=lambda made: {APPLICATION: made["done"], "milestone": 3},
                    error=employed_only,
                ),
            ),
            setup=reports_and_follow_ups,
        ),
        Group(
            "trainee follow-up",
            None,
            (
                Visit(
                    "web:trainee-follow-up",
                    kwargs=lambda made: {"token": made["token"]},
                    error=click("#send-answers"),
                ),
            ),
            setup=reports_and_follow_ups,
        ),
        Group(
            "comparison group's questions",
            None,
            (
                Visit(
                    "web:comparison-follow-up",
                    kwargs=lambda made: {"token": made["token"]},
                    error=click("#send-answers"),
                ),
            ),
            setup=comparison_questions,
        ),
        Group(
            "officer outcomes",
            "demo-officer-on-1",
            (Visit("web:officer-outcomes", kwargs=lambda made: {APPLICATION: made["done"]}),),
            setup=reports_and_follow_ups,
        ),
    )


OUTCOME_EXCLUDED: dict[str, str] = {
    "web:analyst-kpis-evaluation-csv": "a CSV download, not a page; its link is on the KPI page",
    "web:officer-outcomes-receivable": "POST only (Raise a receivable); it redirects to the "
    "officer's outcomes page, checked as officer-outcomes",
}
