"""The days from a claim to its payment are counted in Ottawa time, the service's one zone: an
evening claim paid the next morning took one day, one paid the same evening none, never −1."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from tests.service.outcomes import kpi_fixture as fx

from jobgrant.service.grants.models.claims import Claim
from jobgrant.service.outcomes.kpis import compute

pytestmark = pytest.mark.django_db
OTTAWA = ZoneInfo("America/Toronto")


def evening_claim(made: fx.File, number: int, day: dt.date) -> Claim:
    """A claim submitted at 8:30 p.m. in Ottawa: already the next day in UTC."""
    claim = fx.claim(made, number, day.isoformat())
    evening = dt.datetime(day.year, day.month, day.day, 20, 30, tzinfo=OTTAWA)
    Claim.objects.filter(pk=claim.pk).update(submitted_at=evening)
    return claim


def test_an_evening_claim_paid_next_morning_took_one_day_and_one_paid_that_evening_none() -> None:
    made = fx.file("NS", employers={"a": 30}, trainees=["a"])
    next_morning = evening_claim(made, 1, dt.date(2030, 6, 3))
    fx.payment(made, next_morning, "federal", 10000, "2030-06-04")
    same_evening = evening_claim(made, 2, dt.date(2030, 7, 8))
    fx.payment(made, same_evening, "federal", 10000, "2030-07-08")
    figures = next(
        r
        for r in compute("NS", fx.FISCAL_YEAR, suppress=False).table("headline").rows
        if r.key == "total"
    ).figures
    days = figures["days_to_payment"]
    assert (days.numerator, days.denominator) == (1, 2)  # 1 day and 0 days: never −1
    assert figures["days_to_payment_median"].numerator == 1
