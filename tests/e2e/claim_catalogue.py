"""The claims' pages in the axe pass of test_accessibility.py (T16): the employer's (the file's
claims, a draft claim empty and with a bad amount, its submission's confirmation, a submitted
claim) and the officer's (the claims to assess, a claim to assess with a reason missing, the
confirmation of an approval).

The claims are made during the training (the clock moved for the setup only): the pages
themselves show them whatever the day."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

CLAIM = "claim_id"
DURING_TRAINING = dt.datetime(2027, 1, 20, 15, 0, tzinfo=dt.UTC)


def claims_to_assess(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """Two approved, accepted files of the demonstration employer, their trainee confirmed and
    the file assigned to demo-officer-on-1: a draft claim on the first, a submitted one (with a
    real PDF receipt) on the second."""
    import time_machine
    from tests.participants import OTHER_SIN, SIN, answers
    from tests.service.grants.claim_helpers import pdf_bytes, upload

    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.agreements.actions import accept_agreement
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.applications.assignment import assign_application
    from jobgrant.service.grants.claims import actions as claim_actions
    from jobgrant.service.grants.claims.receipts import checked
    from jobgrant.service.grants.models.agreements import Agreement
    from jobgrant.service.grants.participants import actions as participant_actions
    from jobgrant.service.notifications.models import Message

    employer = User.objects.get(username="demo-employer")
    first, second = (User.objects.get(username=f"demo-officer-on-{n}") for n in (1, 2))
    claims = []
    for sin in (SIN, OTHER_SIN):
        application = actions.create_application(employer, make_body())
        actions.submit_application(employer, application)
        actions.recommend_application(first, application)
        actions.approve_application(second, application)
        agreement = Agreement.objects.get(application=application)
        accept_agreement(
            employer,
            agreement,
            "Pat Birch",
            "Owner",
            ["agreement", "cost_schedule", "general_terms"],
        )
        body = {"trainee": 0, "email": "trainee@example.com", "language": "en"}
        slot = participant_actions.invite_participant(employer, application, body)
        message = Message.objects.filter(subject_id=str(slot.pk)).order_by("-id").first()
        assert message is not None
        token = message.body.split("/participate/", 1)[1].split("/", 1)[0]
        participant_actions.submit_participant_form(token, answers(sin=sin))
        assign_application(first, application, first)
        with time_machine.travel(DURING_TRAINING, tick=True):
            claim = claim_actions.start_claim(employer, application, {})
            claim_actions.add_receipts(employer, claim, [checked(upload(pdf_bytes()))])
        claims.append(claim)
    with time_machine.travel(DURING_TRAINING, tick=True):
        claim_actions.submit_claim(employer, claims[1])
    return {
        "application": claims[0].application_id,
        "draft": claims[0].pk,
        "submitted": claims[1].pk,
    }


def claim_groups(group: Any, visit: Any, click: Any, fill_and_click: Any) -> tuple[Any, ...]:
    Group, Visit = group, visit  # noqa: N806 - read as the classes they are

    def bad_amount(web: Any) -> None:
        field = web.page.locator("#claim-lines input[type=text]").first
        field.fill("12.345")
        click("#save-lines")(web)

    return (
        Group(
            "employer claims",
            "demo-employer",
            (
                Visit(
                    "web:employer-claims",
                    kwargs=lambda made: {"application_id": made["application"]},
                ),
                Visit(
                    "web:employer-claim",
                    kwargs=lambda made: {CLAIM: made["draft"]},
                    error=bad_amount,
                ),
                Visit("web:employer-claim-submit", kwargs=lambda made: {CLAIM: made["draft"]}),
                Visit("web:employer-claim-discard", kwargs=lambda made: {CLAIM: made["draft"]}),
                Visit(
                    "web:employer-claim",
                    kwargs=lambda made: {CLAIM: made["submitted"]},
                    label="submitted",
                ),
            ),
            setup=claims_to_assess,
        ),
        Group(
            "officer claims",
            "demo-officer-on-1",
            (
                Visit("web:officer-claims"),
                Visit(
                    "web:officer-claim",
                    kwargs=lambda made: {CLAIM: made["submitted"]},
                    error=click("#deny-button"),
                    states=(("confirmation of an approval", click("#approve-button")),),
                ),
            ),
            setup=claims_to_assess,
        ),
    )


CLAIM_EXCLUDED: dict[str, str] = {
    "web:officer-claim-decide": "POST only; it renders the confirmation (checked as "
    "officer-claim [confirmation of an approval]) or the claim with its errors (officer-claim "
    "[error])",
    "web:employer-receipt": "a file (PDF, PNG or JPEG as an attachment), not a page",
    "web:officer-receipt": "a file (PDF, PNG or JPEG as an attachment), not a page",
}
