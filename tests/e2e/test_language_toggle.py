"""The header's language toggle keeps what was typed, in Chromium, on every form that has the
language button (web/switch_language.html; the wizard's steps are in test_flows.py): the
trainee's participant form, the agreement's acceptance, the completion report and the officer's
decision (a page of several forms: the toggle keeps the one typed into). Each is typed
into, the toggle is pressed, and the page in the other language shows every value typed (the
SIN aside: it is never shown back, and the page says so)."""

from __future__ import annotations

from typing import Any

import time_machine
from tests.e2e.outcome_catalogue import AFTER_TRAINING, _confirmed_file
from tests.e2e.test_accessibility import an_agreement_offered, officer_applications
from tests.e2e.test_participants_flow import ANSWERS, CHOICES, approved, link_in_outbox
from tests.participants import OTHER_SIN

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.completion import report as completion_actions
from jobgrant.service.grants.participants import actions as participant_actions


def toggle(web: Any, to: str) -> None:
    """Press the header's language toggle, as a person would, and wait for the other page."""
    with web.page.expect_navigation():
        web.page.locator("gcds-header gcds-lang-toggle a").click()
    web.settle()
    web.assert_lang(to)


def test_the_participant_form_keeps_the_answers_through_the_toggle(
    web: Any, make_body: Any
) -> None:
    application = approved(make_body)
    employer = User.objects.get(username="demo-employer")
    body = {"trainee": 0, "email": "amelie@example.com", "language": "en"}
    participant_actions.invite_participant(employer, application, body)
    page = web.page
    web.goto(link_in_outbox())
    typed = {key: value for key, value in ANSWERS.items() if key != "#sin"}
    for selector, value in ANSWERS.items():
        page.fill(selector, value)
    page.select_option("#province", "ON")
    for name, value in CHOICES.items():
        page.check(f"input[name={name}][value={value}]")
    page.check("#consent")
    toggle(web, "fr")
    for selector, value in typed.items():
        assert page.input_value(selector) == value, selector
    assert page.input_value("#province") == "ON"
    for name, value in CHOICES.items():
        assert page.is_checked(f"input[name={name}][value={value}]"), name
    assert page.is_checked("#consent")
    assert page.input_value("#sin") == ""
    assert "n'est pas réaffiché" in page.locator("#sin-hint").inner_text()
    toggle(web, "en")  # and back
    assert page.input_value("#given_name") == ANSWERS["#given_name"]
    web.assert_accessible("the participant form after the toggle")


def test_the_acceptance_keeps_the_signatory_and_the_boxes_through_the_toggle(
    web: Any, make_body: Any
) -> None:
    application_id = an_agreement_offered(make_body)["approved"]
    page = web.page
    web.sign_in("demo-employer", "en")
    web.goto(f"/en/employer/applications/{application_id}/agreement/accept/")
    page.fill("#id_signatory", "Ada Tremblay")
    page.fill("#id_title", "Owner")
    page.check("#id_cost_schedule")
    toggle(web, "fr")
    assert page.input_value("#id_signatory") == "Ada Tremblay"
    assert page.input_value("#id_title") == "Owner"
    assert page.is_checked("#id_cost_schedule") and not page.is_checked("#id_agreement")
    assert page.locator("gcds-error-summary").count() == 0  # switching is not submitting
    web.assert_accessible("the acceptance after the toggle")


def test_the_completion_report_keeps_the_outcomes_through_the_toggle(
    web: Any, make_body: Any
) -> None:
    application, slot = _confirmed_file(make_body, OTHER_SIN)
    employer = User.objects.get(username="demo-employer")
    with time_machine.travel(AFTER_TRAINING, tick=True):
        completion_actions.start_completion_report(application, by=employer)
    page = web.page
    web.sign_in("demo-employer", "en")
    web.goto(f"/en/employer/applications/{application.pk}/completion-report/")
    page.check(f"input[name=t{slot.pk}-completed][value=yes]")
    page.fill(f"#t{slot.pk}-noc", "72410")
    page.fill(f"#t{slot.pk}-hourly_wage_before", "24.50")
    page.fill("#feedback", "Useful training.")
    toggle(web, "fr")
    assert page.is_checked(f"input[name=t{slot.pk}-completed][value=yes]")
    assert page.input_value(f"#t{slot.pk}-noc") == "72410"
    assert page.input_value(f"#t{slot.pk}-hourly_wage_before") == "24.50"
    assert page.input_value("#feedback") == "Useful training."
    web.assert_accessible("the completion report after the toggle")


def test_the_officers_denial_keeps_its_reason_through_the_toggle(web: Any, make_body: Any) -> None:
    """The review has two forms (recommend or approve with a note, deny with a reason): the
    header's toggle presses the language button of the one typed into."""
    application_id = officer_applications(make_body)["to_approve"]
    page = web.page
    web.sign_in("demo-officer-on-1", "en")
    web.goto(f"/en/officer/applications/{application_id}/")
    page.fill("#id_reason", "Outside the program's rules.")
    toggle(web, "fr")
    assert page.input_value("#id_reason") == "Outside the program's rules."
    assert page.input_value("#id_note") == ""
    assert page.locator("gcds-error-summary").count() == 0  # switching is not submitting
    assert page.url.endswith(f"/fr/agent/demandes/{application_id}/decision/")
    toggle(web, "en")  # and back, from the page the button answered
    assert page.input_value("#id_reason") == "Outside the program's rules."
    web.assert_accessible("the officer's review after the toggle")
