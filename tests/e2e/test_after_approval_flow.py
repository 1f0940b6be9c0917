"""The grant's second half in one run, in Chromium: an officer approves on the pages, the employer
accepts the agreement, invites a trainee, the trainee answers the form through the link from the
outbox (no account), and the employer sees the trainee confirmed. Each part is tested in depth in
its own flow (test_flows, test_agreement_flow, test_participants_flow); this one checks that they
lead into each other, and that each step's message reached the outbox."""

from __future__ import annotations

from typing import Any

from tests.conftest import application_body
from tests.e2e.test_flows import open_from_queue
from tests.e2e.test_participants_flow import ANSWERS, CHOICES, link_in_outbox

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.notifications.models import Message


def recommended(make_body: Any) -> Application:
    employer = User.objects.get(username="demo-employer")
    trainee = application_body()["trainees"][0]
    application = actions.create_application(employer, make_body(trainees=[trainee]))
    actions.submit_application(employer, application)
    actions.recommend_application(User.objects.get(username="demo-officer-on-1"), application)
    return application


def kinds_in_outbox() -> set[str]:
    return set(Message.objects.values_list("kind", flat=True))


def test_approve_accept_invite_the_trainee_answers_and_the_employer_sees_it_confirmed(
    web: Any, browser: Any, site: str, make_body: Any
) -> None:
    application = recommended(make_body)
    page = web.page

    web.sign_in("demo-officer-on-2", "en")
    open_from_queue(web, application)
    with page.expect_navigation():
        page.click("#approve-button")
    web.settle()
    with page.expect_navigation():
        page.click("#confirm-approve-button")
    web.settle()
    application.refresh_from_db()
    assert application.state == State.APPROVED
    assert Agreement.objects.get(application=application).state == "issued"
    web.sign_out()

    web.sign_in("demo-employer", "en")
    web.goto(f"/en/employer/applications/{application.pk}/")
    with page.expect_navigation():
        page.click("#read-agreement")
    web.settle()
    with page.expect_navigation():
        page.click("#accept-agreement")
    web.settle()
    page.fill("#id_signatory", "Ada Tremblay")
    page.fill("#id_title", "Owner")
    for name in ("agreement", "cost_schedule", "general_terms"):
        page.check(f"#id_{name}")
    with page.expect_navigation():
        page.click("#accept-continue")
    web.settle()
    with page.expect_navigation():
        page.click("#confirm-accept")
    web.settle()
    assert Agreement.objects.get(application=application).state == "accepted"

    web.goto(f"/en/employer/applications/{application.pk}/")
    with page.expect_navigation():
        page.click("#trainees-link a")
    web.settle()
    page.select_option("#invite-trainee", "0")
    page.fill("#invite-email", "amelie@example.com")
    page.check("input[name=language][value=fr]")
    with page.expect_navigation():
        page.click("#send-invitation")
    web.settle()
    assert "Invited" in page.locator("#trainee-1-state").inner_text()

    trainee = browser.new_context(base_url=site, locale="fr-CA")
    them = type(web)(trainee.new_page(), site)
    them.goto(link_in_outbox())
    for selector, value in ANSWERS.items():
        them.page.fill(selector, value)
    them.page.select_option("#province", "ON")
    for name, value in CHOICES.items():
        them.page.check(f"input[name={name}][value={value}]")
    them.page.check("#consent")
    with them.page.expect_navigation():
        them.page.click("#send-answers")
    them.settle()
    assert "vos réponses ont été reçues" in them.page.content()
    trainee.close()

    web.goto(f"/en/employer/applications/{application.pk}/trainees/")
    assert page.locator("#trainee-1-state").inner_text() == "Confirmed"
    assert {"agreement_issued", "agreement_accepted", "participant_invitation"} <= kinds_in_outbox()
    web.assert_accessible("the trainees page, the trainee confirmed")
