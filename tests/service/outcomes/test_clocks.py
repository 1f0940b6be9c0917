"""A file's clocks at their boundaries: done on the due day is met, a business day later is
missed; not done, due today is still running with 0 days left, the next business day it is
overdue; a withdrawn file leaves the standards it had not met yet. And on real files: the
decision's due day is stored at submission (tests/service/api/test_clocks_api.py)."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

from jobgrant.service.grants.applications.service_standards import Place, Standard
from jobgrant.service.outcomes.clocks import ClaimFacts, Clock, FileFacts, clocks_of

D = dt.date
ONTARIO = Place(("cjg-2014",), "ON", None)
BC = Place(("cjg-2014",), "BC", None)
RECEIVED = D(2024, 12, 20)  # a Friday: Christmas and Boxing Day and New Year's Day follow


def _facts(place: Place = ONTARIO, **days: object) -> FileFacts:
    given: dict[str, object] = {
        "place": place,
        "received_on": RECEIVED,
        "acknowledged_on": None,
        "decided_on": None,
        "withdrawn": False,
        **days,
    }
    return FileFacts(**given)  # type: ignore[arg-type]


def _clock(standard: Standard, facts: FileFacts, today: dt.date) -> Clock:
    return next(c for c in clocks_of(facts, today) if c.standard is standard)


def test_ontario_acknowledges_within_ten_business_days_across_the_holidays() -> None:
    clock = _clock(Standard.ACKNOWLEDGE, _facts(), RECEIVED)
    # 23, 24, 27, 30, 31 Dec, 2, 3, 6, 7, 8 Jan.
    assert clock.due_on == D(2025, 1, 8)
    assert clock.days_left == 10
    assert clock.status == "running"


def test_the_same_day_is_due_a_day_earlier_in_british_columbia_which_works_on_boxing_day() -> None:
    clock = _clock(Standard.ACKNOWLEDGE, _facts(BC), RECEIVED)
    assert clock.due_on == D(2025, 1, 7)


def test_done_on_the_due_day_is_met() -> None:
    clock = _clock(Standard.ACKNOWLEDGE, _facts(acknowledged_on=D(2025, 1, 8)), D(2025, 2, 1))
    assert clock.status == "met" and clock.met is True
    assert clock.days_late == 0 and clock.days_left is None


def test_done_one_business_day_late_is_missed() -> None:
    clock = _clock(Standard.ACKNOWLEDGE, _facts(acknowledged_on=D(2025, 1, 9)), D(2025, 2, 1))
    assert clock.status == "missed" and clock.met is False
    assert clock.days_late == 1


def test_not_done_and_due_today_is_still_running_with_no_day_left() -> None:
    clock = _clock(Standard.ACKNOWLEDGE, _facts(), D(2025, 1, 8))
    assert clock.status == "running" and clock.met is None
    assert clock.days_left == 0


def test_not_done_the_next_business_day_is_overdue_by_one() -> None:
    clock = _clock(Standard.ACKNOWLEDGE, _facts(), D(2025, 1, 9))
    assert clock.status == "overdue" and clock.met is False
    assert clock.days_left == -1 and clock.days_late == 1


def test_nova_scotia_decides_within_thirty_business_days_and_british_columbia_sixty() -> None:
    received = D(2024, 3, 1)
    nova_scotia = _clock(
        Standard.DECIDE, _facts(Place(("cjg-2014",), "NS", None), received_on=received), received
    )
    bc = _clock(Standard.DECIDE, _facts(BC, received_on=received), received)
    assert nova_scotia.terms.business_days == 30
    assert bc.terms.business_days == 60
    assert nova_scotia.target == bc.target == Fraction(4, 5)


def test_a_claim_is_paid_within_thirty_business_days_of_its_approval() -> None:
    approved = D(2025, 2, 3)
    claims = (ClaimFacts(1, approved, D(2025, 3, 17)), ClaimFacts(2, approved, None))
    facts = _facts(acknowledged_on=RECEIVED, decided_on=RECEIVED, claims=claims)
    paid, waiting = [c for c in clocks_of(facts, D(2025, 3, 19)) if c.standard is Standard.PAY]
    # 30 business days from 3 February 2025, Family Day (17 February) skipped: 18 March.
    assert paid.due_on == D(2025, 3, 18) and paid.status == "met"
    assert (waiting.claim, waiting.status, waiting.days_left) == (2, "overdue", -1)


def test_a_file_withdrawn_before_its_decision_leaves_the_decision_standard() -> None:
    facts = _facts(acknowledged_on=RECEIVED, withdrawn=True)
    assert [c.standard for c in clocks_of(facts, D(2025, 6, 1))] == [Standard.ACKNOWLEDGE]


def test_a_draft_has_no_clock() -> None:
    assert clocks_of(_facts(received_on=None), RECEIVED) == []
