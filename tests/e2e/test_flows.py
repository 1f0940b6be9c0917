"""The main flows in Chromium, end to end against the live server (T16).

An employer applies with a consortium partner and submits; officer A recommends; officer B
approves; the finance officer's budget page shows the commitment. In English and in French, with
the mouse; then the apply and the recommend/approve flows with the keyboard alone (Tab, Shift+Tab,
Enter, Space, arrows and typing). A failed submit moves the focus to the error summary, whose
links move it to the field in error.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from tests.addresses import page_path
from tests.conftest import DECLARATIONS_STEP
from tests.e2e.conftest import SIGN_OUT_BUTTON

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.ledger.models import BudgetAccount

LANGUAGES = ("en", "fr")
#: Tuition of $9,000 (Acme's trainee) and $6,000 (Lakeshore's): cjg-2013 pays a third each from
#: the federal and the provincial budget, $5,000 and $5,000; the employers pay $5,000.
COMMITTED = {"en": "$5,000.00", "fr": "5 000,00 $"}
APPROVED_NOTICE = {"en": "You approved application", "fr": "Vous avez approuvé la demande"}


def committed_cents(funder: str) -> int:
    account = BudgetAccount.objects.get(funder=funder, jurisdiction="ON", fiscal_year="2026-27")
    return int(account.committed_cents)


def spaces(text: str) -> str:
    """Text with its no-break and narrow no-break spaces (French numbers) as plain spaces."""
    return re.sub(r"[\u00a0\u202f]", " ", text).strip()


def application_in(url: str) -> Application:
    found = re.search(r"/(?:applications|demandes)/(\d+)/", url)  # en or fr
    assert found, f"no application number in {url}"
    return Application.objects.get(pk=int(found[1]))


def open_from_queue(web: Any, application: Application) -> None:
    """The officer finds the application in the queue and opens it."""
    link = web.page.locator(f"#open-{application.pk}")
    with web.page.expect_navigation():
        link.click()
    web.settle()


@pytest.mark.parametrize("language", LANGUAGES)
def test_apply_with_a_partner_recommend_approve_and_the_budget_shows_it(
    web: Any, language: str
) -> None:
    page = web.page
    federal_before, provincial_before = committed_cents("federal"), committed_cents("provincial")

    # The employer applies for Acme with Lakeshore as consortium partner.
    web.sign_in("demo-employer", language)
    assert page.url.endswith(page_path(language, "/employer/")), page.url
    web.assert_lang(language)
    with page.expect_navigation():
        page.click("#start-application")
    apply = web.apply(language)
    apply.organizations()
    apply.training()
    apply.trainees(go_on=False)
    status = spaces(apply.wait_for_quote())
    assert COMMITTED[language] in status, f"the live quote says {status!r}"
    quote = spaces(page.locator("#live-quote").inner_text())
    assert "Lakeshore Logistics" in quote, "the live quote shows no share for the partner"
    apply.next()
    apply.declarations()
    page.check("#confirm")
    apply.next("#submit-application")
    application = application_in(page.url)
    assert application.state == State.SUBMITTED
    assert [link.employer.name for link in application.employers.order_by("position")] == [
        "Acme Precision Machining",
        "Lakeshore Logistics",
    ]
    assert page.locator("#notice").count() == 1  # "Application N was submitted."
    web.assert_lang(language)
    web.sign_out()

    # Officer A recommends.
    web.sign_in("demo-officer-on-1", language)
    open_from_queue(web, application)
    page.fill("#id_note", "Training plan and costs checked.")
    with page.expect_navigation():
        page.click("#recommend-button")
    web.settle()
    page.locator("#notice").wait_for()
    application.refresh_from_db()
    assert application.state == State.RECOMMENDED
    assert application.recommended_by is not None
    assert application.recommended_by.username == "demo-officer-on-1"
    web.sign_out()

    # Officer B approves: the government shares are committed.
    web.sign_in("demo-officer-on-2", language)
    open_from_queue(web, application)
    with page.expect_navigation():
        page.click("#approve-button")
    web.settle()
    # Approving is confirmed on a page of its own, which shows the figures.
    assert page.locator("#confirm-government").inner_text()
    with page.expect_navigation():
        page.click("#confirm-approve-button")
    web.settle()
    assert APPROVED_NOTICE[language] in page.locator("#notice").inner_text()
    application.refresh_from_db()
    assert application.state == State.APPROVED
    assert application.decided_by is not None
    assert application.decided_by.username == "demo-officer-on-2"
    assert committed_cents("federal") == federal_before + 500_000
    assert committed_cents("provincial") == provincial_before + 500_000
    web.sign_out()

    # The finance officer sees the commitment on the budget page.
    web.sign_in("demo-finance", language)
    web.goto(page_path(language, "/finance/budgets/?fiscal_year=2026-27&jurisdiction=ON"))
    for funder in ("federal", "provincial"):
        row = page.locator(f"tr[id^='budget-2026-27-ON-{funder}']")
        assert row.count() == 1, f"no {funder} budget row for Ontario 2026-27"
        committed = spaces(row.locator("td").nth(5).inner_text())
        assert committed == COMMITTED[language], f"{funder}: committed shows {committed!r}"
    web.assert_lang(language)


def keyboard_sign_in(web: Any, keyboard: Any, username: str, language: str = "en") -> None:
    web.goto(f"/{language}/")
    keyboard.tab_to(f"a[href$='{page_path(language, '/sign-in/')}']")
    keyboard.press("Enter", navigates=True)
    keyboard.tab_to("#id_username")
    keyboard.type(username)
    keyboard.press("Tab")
    assert keyboard.is_on("#id_password")
    keyboard.type("jobgrant-demo")
    keyboard.press("Enter", navigates=True)
    if page_path(language, "/sign-in/code/") in web.page.url:  # staff: their app's code
        from tests.personas import totp_code

        keyboard.tab_to("#id_code")
        keyboard.type(totp_code(username))
        keyboard.press("Enter", navigates=True)
    assert page_path(language, "/sign-in/") not in web.page.url, f"{username} not signed in"


def keyboard_sign_out(web: Any, keyboard: Any) -> None:
    keyboard.tab_to(SIGN_OUT_BUTTON, backwards=True)
    keyboard.press("Enter", navigates=True)


def test_the_keyboard_alone_applies_with_a_partner(web: Any, keyboard: Any) -> None:
    page = web.page
    keyboard_sign_in(web, keyboard, "demo-employer")
    keyboard.tab_to("#start-application")
    keyboard.press("Enter", navigates=True)
    assert page.url.endswith("/en/employer/apply/organizations/"), page.url

    # A failed submit: the focus goes to the error summary, whose link leads to the field.
    keyboard.tab_to("#continue")
    keyboard.press("Enter", navigates=True)
    assert web.wait_for_focus_on("gcds-error-summary"), f"focus on {keyboard.active()}"
    keyboard.press("Tab")  # into the summary: its first link
    focused = web.focused()
    assert focused.get("host", "").startswith("gcds-error-summary"), focused
    keyboard.press("Enter")
    page.wait_for_function("document.activeElement && document.activeElement.id === 'lead'")

    keyboard.choose("#lead", "Acme")
    keyboard.tab_to("#add-partner")
    keyboard.press("Enter", navigates=True)
    assert keyboard.is_on("#partner-0"), (
        f"after adding a partner the focus is on {keyboard.active()}"
    )
    keyboard.type(_business_number("Lakeshore Logistics"))
    keyboard.tab_to("#continue")
    keyboard.press("Enter", navigates=True)
    assert page.url.endswith("/en/employer/apply/training/"), page.url

    # Training: the course typed, radios with the arrows, dates typed segment by segment.
    keyboard.tab_to("#course")
    keyboard.type("CNC machining certificate")
    keyboard.tab_to("input[name=setting]")
    keyboard.press("Space")
    while not keyboard.is_on("#setting-off-site"):
        keyboard.press("ArrowDown")
    assert page.is_checked("#setting-off-site")
    keyboard.tab_to("#start_date")
    keyboard.date("#start_date", "2027-01-11")
    keyboard.tab_to("#end_date")
    keyboard.date("#end_date", "2027-03-26")
    keyboard.tab_to("#hours")
    keyboard.type("120")
    keyboard.tab_to("#provider_name")
    keyboard.type("Mohawk College")
    keyboard.tab_to("#third_party-yes")
    keyboard.press("Space")
    assert page.is_checked("#third_party-yes")
    keyboard.tab_to("#continue")
    keyboard.press("Enter", navigates=True)
    assert page.url.endswith("/en/employer/apply/trainees/"), page.url

    # Trainees and costs; the grant appears as the costs are typed.
    keyboard.tab_to("#trainee-0-employer")
    keyboard.choose("#trainee-0-employer", "Acme")
    keyboard.tab_to("#trainee-0-status")
    keyboard.choose("#trainee-0-status", "Existing")
    keyboard.tab_to("#trainee-0-tuition")
    keyboard.type("9000")
    keyboard.tab_to("#add-trainee")
    keyboard.press("Enter", navigates=True)
    assert keyboard.is_on("#trainee-1-employer"), f"the focus is on {keyboard.active()}"
    keyboard.choose("#trainee-1-employer", "Lakeshore")
    keyboard.tab_to("#trainee-1-status")
    keyboard.choose("#trainee-1-status", "New")
    keyboard.tab_to("#trainee-1-tuition")
    keyboard.type("6000")
    status = spaces(web.apply().wait_for_quote())
    assert "$5,000.00" in status, status
    keyboard.tab_to("#continue")
    keyboard.press("Enter", navigates=True)
    assert page.url.endswith("/en/employer/apply/declarations/"), page.url

    # Declarations: a radio button chosen with the arrows, a tick with Space, answers typed.
    for key, value in DECLARATIONS_STEP.items():
        options = page.locator(f"input[type=radio][name={key}]").evaluate_all(
            "(found) => found.map((option) => option.value)"
        )
        if options:
            keyboard.tab_to(f"#{key}-{options[0]}")
            for _ in range(options.index(value)):
                keyboard.press("ArrowDown")
            keyboard.press("Space")
            assert page.is_checked(f"#{key}-{value}"), key
        elif key.endswith("attests_no_conflict"):
            keyboard.tab_to(f"#{key}")
            keyboard.press("Space")
        else:
            keyboard.tab_to(f"#{key}")
            keyboard.type(value)
    keyboard.tab_to("#continue")
    keyboard.press("Enter", navigates=True)
    assert page.url.endswith("/en/employer/apply/review/"), page.url

    # Review: confirm with Space, submit with Enter.
    keyboard.tab_to("#confirm")
    keyboard.press("Space")
    keyboard.tab_to("#submit-application")
    keyboard.press("Enter", navigates=True)
    application = application_in(page.url)
    assert application.state == State.SUBMITTED
    assert application.employers.count() == 2
    assert application.federal_cents == 500_000


def _business_number(name: str) -> str:
    from jobgrant.service.registry.models import Employer

    return str(Employer.objects.get(name=name).business_number)


def test_the_keyboard_alone_recommends_then_approves(
    web: Any, keyboard: Any, make_body: Any
) -> None:
    employer = User.objects.get(username="demo-employer")
    application = actions.create_application(employer, make_body())
    actions.submit_application(employer, application)
    federal_before = committed_cents("federal")

    keyboard_sign_in(web, keyboard, "demo-officer-on-1")
    assert web.page.url.endswith("/en/officer/"), web.page.url
    keyboard.tab_to(f"#open-{application.pk}")
    keyboard.press("Enter", navigates=True)
    # Deny without a reason: refused, and the focus goes to the error summary.
    keyboard.tab_to("#deny-button")
    keyboard.press("Enter", navigates=True)
    assert web.wait_for_focus_on("gcds-error-summary"), f"focus on {keyboard.active()}"
    application.refresh_from_db()
    assert application.state == State.SUBMITTED
    keyboard.tab_to("#id_note")
    keyboard.type("Costs checked against the quotes.")
    keyboard.tab_to("#recommend-button")
    keyboard.press("Enter", navigates=True)
    application.refresh_from_db()
    assert application.state == State.RECOMMENDED
    keyboard_sign_out(web, keyboard)

    keyboard_sign_in(web, keyboard, "demo-officer-on-2")
    keyboard.tab_to(f"#open-{application.pk}")
    keyboard.press("Enter", navigates=True)
    keyboard.tab_to("#approve-button")
    keyboard.press("Space", navigates=True)
    keyboard.tab_to("#confirm-approve-button")
    keyboard.press("Enter", navigates=True)
    application.refresh_from_db()
    assert application.state == State.APPROVED
    assert committed_cents("federal") == federal_before + 500_000
    web.page.locator("#notice").wait_for()


def page_width(web: Any) -> int:
    return int(web.page.evaluate("document.documentElement.scrollWidth"))


def test_at_390_px_a_draft_survives_sign_out_and_a_language_switch_then_is_submitted(
    web: Any,
) -> None:
    """On a phone-sized window (390 px, WCAG 1.4.10: no sideways scrolling on any step): the
    employer fills in two steps, signs out, finds the draft on the dashboard, resumes it, types
    the costs, switches to French with the form's language button (what was typed is kept), and
    submits."""
    page = web.page
    page.set_viewport_size({"width": 390, "height": 844})
    web.sign_in("demo-employer", "en")
    apply = web.apply("en")
    apply.organizations()
    assert page_width(web) <= 390, "the training step scrolls sideways"
    apply.training()
    keyboard_free_sign_out(web)

    web.sign_in("demo-employer", "en")
    assert page_width(web) <= 390, "the dashboard scrolls sideways"
    with page.expect_navigation():
        page.locator("[id^=resume-draft-]").first.click()
    web.settle()
    assert page.url.endswith(apply.url("trainees")), page.url
    apply.trainee(0, tuition="9000")
    assert page_width(web) <= 390, "the trainees step scrolls sideways"
    apply.next("#switch-language")
    assert page.url.endswith("/fr/employeur/demander/personnes-en-formation/"), page.url
    web.assert_lang("fr")
    assert page.input_value("#trainee-0-tuition") == "9000", "the typed cost was lost"
    apply.next()
    assert page.url.endswith("/fr/employeur/demander/declarations/"), page.url
    assert page_width(web) <= 390, "the declarations step scrolls sideways"
    web.apply("fr").declarations()
    assert page.url.endswith("/fr/employeur/demander/verification/"), page.url
    assert page_width(web) <= 390, "the review scrolls sideways"
    page.check("#confirm")
    apply.next("#submit-application")
    assert application_in(page.url).state == State.SUBMITTED
    assert page_width(web) <= 390, "the application's page scrolls sideways"


def keyboard_free_sign_out(web: Any) -> None:
    with web.page.expect_navigation():
        web.page.click("gcds-header .jg-nav button[type=submit]")
    web.settle()


def test_the_header_language_toggle_keeps_what_was_typed_on_a_step(web: Any) -> None:
    """With JavaScript, the header's toggle on a wizard step saves the typed input first."""
    page = web.page
    web.sign_in("demo-employer", "en")
    apply = web.apply("en")
    apply.organizations()
    page.fill("#provider_name", "Collège Boréal")
    with page.expect_navigation():
        page.locator("gcds-header gcds-lang-toggle a").click()
    web.settle()
    assert page.url.endswith("/fr/employeur/demander/formation/"), page.url
    assert page.input_value("#provider_name") == "Collège Boréal"


def test_the_header_menu_lines_up_with_the_content(web: Any) -> None:
    """The menu's first link starts where the page's heading does, not at the window's edge."""
    web.sign_in("demo-employer", "en")
    menu = web.page.locator(".jg-nav li").first.bounding_box()
    heading = web.page.locator("main h1").bounding_box()
    assert menu is not None and heading is not None
    assert menu["x"] > 0
    assert abs(menu["x"] - heading["x"]) <= 2, (menu["x"], heading["x"])
