"""The change requests' pages in the axe pass of test_accessibility.py (T16): the employer's
(what to change, each kind's form in its error state, the review, a request) and the officer's
(the queue, a request to decide, its confirmation)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ID = "application_id"


def accepted_with_a_change(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """The demonstration employer's approved, accepted agreement, and a provider change asked
    for on a second one (awaiting a decision)."""
    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.agreements.actions import accept_agreement
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.changes.actions import request_change
    from jobgrant.service.grants.models.agreements import Agreement

    employer = User.objects.get(username="demo-employer")
    first, second = (User.objects.get(username=f"demo-officer-on-{n}") for n in (1, 2))
    agreements = []
    for _ in range(2):
        application = actions.create_application(employer, make_body())
        actions.submit_application(employer, application)
        actions.recommend_application(first, application)
        actions.approve_application(second, application)
        agreement = Agreement.objects.get(application=application)
        confirmations = ["agreement", "cost_schedule", "general_terms"]
        accept_agreement(employer, agreement, "Pat Birch", "Owner", confirmations)
        agreements.append(agreement)
    provider = {"kind": "provider", "provider": {"name": "Niagara College", "third_party": True}}
    change = request_change(employer, agreements[1], "provider", provider)
    return {"open": agreements[0].application_id, "change": change.pk}


def kind(name: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda made: {ID: made["open"], "kind": name}


def change_groups(group: Any, visit: Any, click: Any, fill_and_click: Any) -> tuple[Any, ...]:
    """The groups, made with test_accessibility's Group, Visit and actions (passed in: that
    module imports this one)."""
    Group, Visit = group, visit  # noqa: N806 - read as the classes they are

    def reviewed(web: Any) -> None:
        fill_and_click({"#start_date": "2027-01-18"}, "#review-change")(web)

    return (
        Group(
            "employer changes",
            "demo-employer",
            (
                Visit("web:employer-changes", kwargs=lambda made: {ID: made["open"]}),
                Visit(
                    "web:employer-change-new",
                    kwargs=kind("dates"),
                    error=fill_and_click({"#end_date": "2027-04-02"}, "#review-change"),
                    states=(("review of the change", reviewed),),
                ),
                Visit(
                    "web:employer-change-new",
                    kwargs=kind("provider"),
                    error=click("#review-change"),
                ),
                Visit(
                    "web:employer-change-new",
                    kwargs=kind("trainees"),
                    error=click("#review-change"),
                ),
                Visit(
                    "web:employer-change-new",
                    kwargs=kind("cost_reallocation"),
                    error=click("#review-change"),
                ),
                Visit("web:employer-change", kwargs=lambda made: {"change_id": made["change"]}),
            ),
            setup=accepted_with_a_change,
        ),
        Group(
            "officer changes",
            "demo-officer-on-1",
            (
                Visit("web:officer-changes"),
                Visit(
                    "web:officer-change",
                    kwargs=lambda made: {"change_id": made["change"]},
                    error=click("#deny-button"),
                    states=(("confirmation of an approval", click("#approve-button")),),
                ),
            ),
            setup=accepted_with_a_change,
        ),
    )


CHANGE_EXCLUDED: dict[str, str] = {
    "web:officer-change-decide": "POST only; it renders the confirmation (checked as "
    "officer-change [confirmation of an approval]) and, on bad input, the request's page "
    "(checked as officer-change [error])",
}
