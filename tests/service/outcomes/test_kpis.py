"""Every KPI on a fixture worked out by hand (the hand computation is in each docstring)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from tests.service.outcomes import kpi_fixture as fx

from jobgrant.service.outcomes.kpis import compute
from jobgrant.service.outcomes.tables import Figure, KpiReport, Suppression, Unit

pytestmark = pytest.mark.django_db


def nova_scotia() -> None:
    """Nova Scotia, 2030-31 (no demonstration data in that year):

    File A: one employer of 30 employees; 14 trainees: slots 0-11 reported on, 12 withdrawn,
    13 invited (neither of those two took part). Completion report submitted: slots 0-9
    completed, 10-11 not; employed at the end: 0-7 and 10 (9). Genders: 0-7 woman, 8-10 man,
    11 not answered. 3-month follow-ups: trainee answered for 0-5 (0-4 employed, 5 not);
    trainee lapsed and employer answered for 6 (employed) and 7 (not); trainee answered "not
    employed" for 8 while the employer said employed (the trainee's answer counts); trainee
    sent, no answer, for 9-11. No 12-month follow-up sent. Claims: 1 submitted 2030-06-01, paid
    federal $600.00 on 06-21 and provincial $500.00 on 06-25 (first paid: 20 days); 2 submitted
    07-01, paid federal $400.00 on 07-31 (30 days); 3 submitted 08-01, federal $99.99 exported,
    not paid. Receivable provincial $200.00, $100.00 recovered. Ledger federal: committed
    $2,000.00, claimed $1,200.00, released $800.00 (slippage $800.00).

    File B: a consortium, e1 (60 employees) with trainees 0, 2, 4 and e2 (600 employees) with
    1, 3; all five confirmed; woman, woman, woman, another gender, prefer not to say. Its
    completion report is a draft (not counted). 3-month trainee follow-ups still due (not
    asked). A claim submitted 06-05 with a federal $300.00 payment exported, not paid. Ledger
    provincial: committed $500.00, nothing claimed (slippage $500.00).

    File C submitted, not approved, one trainee and no slot. File D a draft (not an application).
    """
    a = fx.file("NS", employers={"a": 30}, trainees=["a"] * 14)
    genders = ["woman"] * 8 + ["man"] * 3 + [""]
    slots = [
        fx.participant(a, i, "outcome_reported", gender=genders[i], disability="no")
        for i in range(12)
    ]
    fx.participant(a, 12, "withdrawn", gender="man")
    fx.participant(a, 13, "invited")
    report = fx.report(a)
    for i, slot in enumerate(slots):
        fx.outcome(report, slot, completed=i < 10, employed=i < 8 or i == 10)
    for i in range(6):
        fx.follow_up(slots[i], 3, "trainee", "responded", employed=i < 5)
    for i in (6, 7):
        fx.follow_up(slots[i], 3, "trainee", "lapsed")
        fx.follow_up(slots[i], 3, "employer", "responded", employed=i == 6)
    fx.follow_up(slots[8], 3, "trainee", "responded", employed=False)
    fx.follow_up(slots[8], 3, "employer", "responded", employed=True)
    for i in (9, 10, 11):
        fx.follow_up(slots[i], 3, "trainee", "sent")
    one = fx.claim(a, 1, "2030-06-01")
    fx.payment(a, one, "federal", 60000, "2030-06-21")
    fx.payment(a, one, "provincial", 50000, "2030-06-25")
    fx.payment(a, fx.claim(a, 2, "2030-07-01"), "federal", 40000, "2030-07-31")
    fx.payment(a, fx.claim(a, 3, "2030-08-01"), "federal", 9999, None)
    fx.receivable(a, "provincial", 20000, 10000)
    fx.ledger(a, "federal", "commit", {"available": -200000, "committed": 200000})
    fx.ledger(a, "federal", "claim", {"committed": -120000, "claimed": 120000})
    fx.ledger(a, "federal", "release", {"committed": -80000, "available": 80000})

    b = fx.file("NS", employers={"e1": 60, "e2": 600}, trainees=["e1", "e2", "e1", "e2", "e1"])
    b_genders = ["woman", "woman", "woman", "another", "prefer-not-to-say"]
    b_slots = [fx.participant(b, i, gender=b_genders[i], disability="no") for i in range(5)]
    draft = fx.report(b, "draft")
    for slot in b_slots:
        fx.outcome(draft, slot, completed=True, employed=True)
        fx.follow_up(slot, 3, "trainee", "due")
    fx.payment(b, fx.claim(b, 1, "2030-06-05"), "federal", 30000, None)
    fx.ledger(b, "provincial", "commit", {"available": -50000, "committed": 50000})

    fx.file("NS", employers={"c": 5}, trainees=["c"], state="submitted")
    fx.file("NS", employers={"d": 5}, trainees=["d"], state="draft")


def rate(figure: Figure) -> tuple[int | None, int | None]:
    return figure.numerator, figure.denominator


def row(report: KpiReport, table: str, key: str) -> dict[str, Figure]:
    return next(r for r in report.table(table).rows if r.key == key).figures


def test_headline_of_a_jurisdiction_unsuppressed() -> None:
    """Applications: A, B, C (D is a draft) = 3; approvals: A, B (an agreement each) = 2.
    Participants: A's 12 + B's 5 = 17. Completion: 10 completed / 12 in a submitted report
    (B's is a draft), response 12 / 17; employed at the end 9 / 12. 3 months: asked 12 (A's;
    B's are still due), answered 9 (0-5 by the trainee, 6-7 by the employer, 8 by the trainee),
    employed 6 (0-4 and 6; 8 counts the trainee's "no"). 12 months: 0 / 0.
    Cost: federal 600 + 400 = $1,000.00 (the $99.99 and B's $300.00 are not paid); provincial
    $500.00 - $100.00 recovered = $400.00; government $1,400.00 = 140000 cents; per trainee
    140000 / 17; per job outcome 140000 / 9. Slippage 80000 + 50000 = 130000 cents.
    Days: claims 1 (20) and 2 (30): average 50 / 2; median (20 + 30) / 2."""
    nova_scotia()
    report = compute("NS", fx.FISCAL_YEAR, suppress=False)
    figures = row(report, "headline", "total")
    assert figures["applications"].value == 3
    assert figures["approvals"].value == 2
    assert figures["participants"].value == 17
    assert rate(figures["completion_rate"]) == (10, 12)
    assert figures["completion_rate"].response is not None
    assert rate(figures["completion_rate"].response) == (12, 17)
    assert rate(figures["employed_at_end"]) == (9, 12)
    three = figures["employed_3_months"]
    assert rate(three) == (6, 9) and three.response is not None
    assert rate(three.response) == (9, 12)
    assert rate(figures["employed_12_months"]) == (0, 0)
    assert figures["cost_federal"].value == 100000
    assert figures["cost_provincial"].value == 40000
    assert figures["cost_government"].value == 140000
    assert rate(figures["cost_per_trainee"]) == (140000, 17)
    assert rate(figures["cost_per_job_outcome"]) == (140000, 9)
    assert figures["slippage"].value == 130000
    assert rate(figures["days_to_payment"]) == (50, 2)
    assert rate(figures["days_to_payment_median"]) == (50, 2)
    assert not report.suppressed


def test_headline_suppressed() -> None:
    """Suppressed: the 3-month figure is about 9 people (answered), the cost per job outcome
    about 9 (employed at the end), the 12-month figure about 0: hidden as small, their values
    and response rates gone. The rest is about 12 or 17 people, or none (files, slippage, days),
    and is shown as computed."""
    nova_scotia()
    figures = row(compute("NS", fx.FISCAL_YEAR), "headline", "total")
    for hidden in ("employed_3_months", "cost_per_job_outcome", "employed_12_months"):
        assert figures[hidden].suppressed is Suppression.SMALL
        assert figures[hidden].numerator is None and figures[hidden].denominator is None
    assert figures["employed_3_months"].response is not None
    assert figures["employed_3_months"].response.suppressed is Suppression.SMALL
    assert figures["employed_3_months"].response.numerator is None
    assert rate(figures["completion_rate"]) == (10, 12)
    assert figures["cost_government"].value == 140000
    assert figures["slippage"].shown and figures["applications"].shown


def test_by_firm_size() -> None:
    """A's 12 with its employer of 30 (1-49); B's consortium: trainees 0, 2, 4 with e1 (60:
    50-99) and 1, 3 with e2 (600: 500+). Unsuppressed: 1-49 = 12 (completion 10 / 12), 50-99
    = 3, 100-499 = 0, 500+ = 2, unknown = 0, total 17. Suppressed: every part but 1-49 is
    small (4 hidden: none can be worked out from the total)."""
    nova_scotia()
    raw = compute("NS", fx.FISCAL_YEAR, suppress=False)
    counts = {r.key: r.figures["participants"].value for r in raw.table("by-firm-size").rows}
    assert counts == {"1-49": 12, "50-99": 3, "100-499": 0, "500+": 2, "unknown": 0, "total": 17}
    assert rate(row(raw, "by-firm-size", "1-49")["completion_rate"]) == (10, 12)
    shown = compute("NS", fx.FISCAL_YEAR)
    marks = {r.key: r.figures["participants"].suppressed for r in shown.table("by-firm-size").rows}
    assert marks == {
        "1-49": Suppression.SHOWN,
        "50-99": Suppression.SMALL,
        "100-499": Suppression.SMALL,
        "500+": Suppression.SMALL,
        "unknown": Suppression.SMALL,
        "total": Suppression.SHOWN,
    }


def test_by_equity_questions() -> None:
    """Gender: woman 8 (A) + 3 (B) = 11, man 3 (A's withdrawn slot does not count), another 1,
    prefer not to say 1, not answered 1 (A's slot 11); total 17. Completion among women: A's
    slots 0-7 all completed = 8 / 8 (B's report is a draft). Disability: no 17, the rest 0."""
    nova_scotia()
    raw = compute("NS", fx.FISCAL_YEAR, suppress=False)
    gender = {r.key: r.figures["participants"].value for r in raw.table("by-gender").rows}
    assert gender == {
        "woman": 11,
        "man": 3,
        "another": 1,
        "prefer-not-to-say": 1,
        "unanswered": 1,
        "total": 17,
    }
    assert rate(row(raw, "by-gender", "woman")["completion_rate"]) == (8, 8)
    disability = {r.key: r.figures["participants"].value for r in raw.table("by-disability").rows}
    assert disability == {"yes": 0, "no": 17, "prefer-not-to-say": 0, "unanswered": 0, "total": 17}
    titles = raw.table("by-indigenous-identity")
    assert titles.title_fr == "Selon l'identité autochtone"
    assert [r.key for r in titles.rows][-2:] == ["unanswered", "total"]


def test_national_report_and_complementary_suppression() -> None:
    """Canada 2030-31: Nova Scotia as above (17 participants), Prince Edward Island (4, one
    file, provincial) and Nunavut delivered federally (11). By jurisdiction: PE 4 (small), NS 17,
    federal-direct 11, total 32. With PE hidden, 32 - 17 - 11 would give it away: the next
    smallest part, federal-direct (11), is hidden too (complementary), in the participants
    column and in every money column about the same people. Completion (about those in a
    submitted report): PE 0 and federal-direct 0 are both small, NS 12 = total 12: two hidden,
    nothing more to hide."""
    nova_scotia()
    pe = fx.file("PE", employers={"p": 8}, trainees=["p"] * 4)
    for i in range(4):
        fx.participant(pe, i)
    nu = fx.file("NU", employers={"n": 120}, trainees=["n"] * 11, delivery="federal-direct")
    for i in range(11):
        fx.participant(nu, i)
    raw = compute(None, fx.FISCAL_YEAR, suppress=False)
    counts = {r.key: r.figures["participants"].value for r in raw.table("by-jurisdiction").rows}
    assert counts == {"PE": 4, "NS": 17, "federal-direct": 11, "total": 32}
    assert row(raw, "headline", "total")["participants"].value == 32
    assert row(raw, "by-firm-size", "100-499")["participants"].value == 11
    shown = compute(None, fx.FISCAL_YEAR)
    for column in ("participants", "cost_government", "cost_per_trainee"):
        marks = {r.key: r.figures[column].suppressed for r in shown.table("by-jurisdiction").rows}
        assert marks == {
            "PE": Suppression.SMALL,
            "NS": Suppression.SHOWN,
            "federal-direct": Suppression.COMPLEMENTARY,
            "total": Suppression.SHOWN,
        }, column
    completion = {
        r.key: r.figures["completion_rate"].suppressed for r in shown.table("by-jurisdiction").rows
    }
    assert completion["federal-direct"] is Suppression.SMALL
    assert completion["NS"] is Suppression.SHOWN


def test_every_figure_is_exact() -> None:
    """No float anywhere: counts and cents are ints, rates kept as numerator / denominator."""
    nova_scotia()
    for table in compute(None, fx.FISCAL_YEAR, suppress=False).tables:
        for r in table.rows:
            for figure in r.figures.values():
                for number in (figure.value, figure.numerator, figure.denominator):
                    assert number is None or type(number) is int
                if figure.unit in (Unit.RATE, Unit.CENTS_PER) and figure.denominator:
                    assert Fraction(figure.numerator or 0, figure.denominator) >= 0
