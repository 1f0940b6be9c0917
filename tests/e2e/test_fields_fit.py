"""What is typed fits the field, and the landing page's button does not touch its link, in
Chromium at full width and at 390 px: a text field is as wide as the GC Design System makes
one (the whole column, up to 75 characters), a short one as wide as what it holds."""

from __future__ import annotations

from typing import Any

import pytest

LONG = "1234 boulevard de la Confédération-Canadienne Ouest, app. 12"
SHORT = {"#postal_code": "K1A 0B1", "#date_of_birth": "1990-04-12", "#sin": "130 692 544"}


def cut(page: Any, selector: str) -> bool:
    """Whether the field's text is wider than the field shows (it scrolls inside it)."""
    return bool(
        page.evaluate(
            "(s) => { const e = document.querySelector(s); return e.scrollWidth > e.clientWidth; }",
            selector,
        )
    )


def test_the_participant_form_shows_whole_what_was_typed(web: Any, make_body: Any) -> None:
    from tests.e2e.test_participants_flow import approved, link_in_outbox

    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.participants import actions as participant_actions

    application = approved(make_body)
    body = {"trainee": 0, "email": "amelie@example.com", "language": "en"}
    participant_actions.invite_participant(
        User.objects.get(username="demo-employer"), application, body
    )
    page = web.page
    web.goto(link_in_outbox())
    for selector in ("#street_address", "#city", "#contact_email", "#consent_name"):
        page.fill(
            selector, LONG if selector != "#contact_email" else "amelie.tremblay-gagnon@example.com"
        )
        assert not cut(page, selector), f"{selector} cuts what was typed"
    for selector, value in SHORT.items():
        page.fill(selector, value)
        assert not cut(page, selector), f"{selector} cuts {value!r}"


@pytest.mark.parametrize("width", [1280, 390])
def test_the_registration_form_shows_whole_what_was_typed(web: Any, width: int) -> None:
    page = web.page
    page.set_viewport_size({"width": width, "height": 900})
    web.goto("/fr/inscription/")
    for selector in ("#name", "#street_address", "#city"):
        page.fill(selector, LONG[: 44 if width == 390 else len(LONG)])
        box = page.locator(selector).bounding_box()
        assert box is not None and box["x"] + box["width"] <= width, f"{selector} overflows"
        if width == 1280:
            assert not cut(page, selector), f"{selector} cuts what was typed"


@pytest.mark.parametrize("width", [1280, 390])
def test_the_landing_pages_button_does_not_touch_its_link(web: Any, width: int) -> None:
    page = web.page
    page.set_viewport_size({"width": width, "height": 900})
    web.goto("/en/")
    button = page.locator("main a.jg-button").first.bounding_box()
    link = page.locator("#register-organization").bounding_box()
    assert button is not None and link is not None
    apart_across = link["x"] - (button["x"] + button["width"])
    apart_down = link["y"] - (button["y"] + button["height"])
    assert max(apart_across, apart_down) >= 12, (button, link)
