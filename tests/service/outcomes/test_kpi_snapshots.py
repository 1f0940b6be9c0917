"""The KPIs read from stored cells (outcomes.snapshots, ADR 0032) are the live KPIs: the same
report as `kpis.compute` on the hand-worked fixture and on the demonstration history, for every
scope, suppressed or not; a refresh picks up a change to the records; a snapshot of other
definitions is never read; the worker's schedule and "Refresh now" hand stale snapshots over."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone
from tests import seeded
from tests.service.outcomes import kpi_fixture as fx
from tests.service.outcomes.test_kpis import nova_scotia, row

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.service.grants.models.applications import Program
from jobgrant.service.grants.models.kpi import KpiSnapshot
from jobgrant.service.outcomes import net, snapshot_actions, snapshots
from jobgrant.service.outcomes.kpis import compute
from jobgrant.service.outcomes.report import source
from jobgrant.service.outcomes.snapshot_actions import refresh_kpi_snapshot
from jobgrant.service.outcomes.tables import KpiReport

pytestmark = pytest.mark.django_db


def without_time(report: KpiReport) -> KpiReport:
    return dataclasses.replace(report, as_of=None)


def three_jurisdictions() -> None:
    """test_kpis' national fixture: Nova Scotia, Prince Edward Island, Nunavut federal-direct."""
    nova_scotia()
    pe = fx.file("PE", employers={"p": 8}, trainees=["p"] * 4)
    for i in range(4):
        fx.participant(pe, i)
    nu = fx.file("NU", employers={"n": 120}, trainees=["n"] * 11, delivery="federal-direct")
    for i in range(11):
        fx.participant(nu, i)


def assert_stored_equals_live(jurisdiction: str | None, year: str) -> None:
    for suppress in (True, False):
        stored = snapshots.read(jurisdiction, year, suppress=suppress)
        live = compute(jurisdiction, year, suppress=suppress)
        assert without_time(stored) == live, (jurisdiction, year, suppress)
        assert stored.as_of is not None


@pytest.mark.parametrize("jurisdiction", ["NS", "PE", "NU", "ON", None])
def test_the_stored_cells_give_the_live_report_on_the_fixture(jurisdiction: str | None) -> None:
    three_jurisdictions()
    assert_stored_equals_live(jurisdiction, fx.FISCAL_YEAR)


def test_the_first_read_stores_every_jurisdiction_and_the_second_reads_them() -> None:
    three_jurisdictions()
    snapshots.read(None, fx.FISCAL_YEAR)
    stored = KpiSnapshot.objects.filter(fiscal_year=fx.FISCAL_YEAR)
    assert sorted(stored.values_list("jurisdiction", flat=True)) == sorted(JURISDICTION_CODES)
    assert set(stored.values_list("definitions", flat=True)) == {snapshot_actions.DEFINITIONS}
    times = dict(stored.values_list("jurisdiction", "computed_at"))
    snapshots.read(None, fx.FISCAL_YEAR)
    assert dict(stored.values_list("jurisdiction", "computed_at")) == times


@pytest.mark.development  # the whole demonstration history: on SQLite, as `make run` loads it
@pytest.mark.django_db(transaction=True)
def test_the_stored_cells_give_the_live_report_on_the_demonstration_history() -> None:
    seeded.load_history(connection)  # built once per content; the seeded one is put back after
    years = sorted(set(Program.objects.values_list("fiscal_year", flat=True)))
    assert len(years) >= 3
    # Canada in every year, and every jurisdiction in the first and last years: the same code
    # reads each (the fixture's tests above take each jurisdiction's cells apart); every
    # jurisdiction in every year cost 39 s of CPU for little more.
    for year in years:
        jurisdictions = JURISDICTION_CODES if year in (years[0], years[-1]) else ()
        for jurisdiction in (*jurisdictions, None):
            assert_stored_equals_live(jurisdiction, year)
    # The same history, read for its net outcomes (cheaper here than loaded again)
    assert_net_employment_at_12_months(("2022-23", "2023-24", "2024-25"))


def assert_net_employment_at_12_months(years: tuple[str, ...]) -> None:
    """Each past year whose 12-month answers are all in has, for Canada, as published
    (suppressed), a net employment figure at 12 months with its interval, against a comparison
    group of at least the 30 answers a net figure needs; the note names no 12-month
    comparison as too small (the 3-month one is: too few funded trainees are without a job)."""
    for year in years:
        report = snapshots.read(None, year, suppress=True)
        figures, table = row(report, "net-outcomes", "12-months"), report.table("net-outcomes")
        size, found = figures["comparison_size"].value, figures["net"].value
        assert size is not None and size >= net.MIN_ANSWERS, (year, size)
        assert found is not None and found != 0, year
        low, high = figures["net_low"].value, figures["net_high"].value
        assert low is not None and high is not None and low < found < high, year
        assert "12 months" not in table.note_en and "12 mois" not in table.note_fr, year


def stored_participants(jurisdiction: str) -> int | None:
    report = snapshots.read(jurisdiction, fx.FISCAL_YEAR, suppress=False)
    return row(report, "headline", "total")["participants"].value


def test_stored_figures_stay_until_a_refresh_picks_up_the_change(settings: Any) -> None:
    """Nova Scotia's 17 participants are stored; a new file of 3 more does not show until the
    snapshot is out of date and the worker's task recomputes it."""
    nova_scotia()
    assert stored_participants("NS") == 17
    more = fx.file("NS", employers={"m": 12}, trainees=["m"] * 3)
    for i in range(3):
        fx.participant(more, i)
    assert stored_participants("NS") == 17  # as of the stored time
    assert refresh_kpi_snapshot.call("NS", fx.FISCAL_YEAR) == "skipped"  # fresh, not asked
    settings.JOBGRANT_KPI_REFRESH_MINUTES = 0
    assert refresh_kpi_snapshot.call("NS", fx.FISCAL_YEAR) == "refreshed"
    assert stored_participants("NS") == 20
    assert_stored_equals_live("NS", fx.FISCAL_YEAR)


def test_a_snapshot_of_other_definitions_is_never_read() -> None:
    """A stored snapshot whose definitions differ (here with figures no record supports) is
    computed again on reading, and replaced."""
    nova_scotia()
    KpiSnapshot.objects.create(
        jurisdiction="NS",
        fiscal_year=fx.FISCAL_YEAR,
        definitions="older",
        computed_at=timezone.now(),
        cells={
            "people": [["NS", "provincial", "1-49", "", "", "", "", "", *[999] * 10]],
            "files": [],
        },
    )
    report = snapshots.read("NS", fx.FISCAL_YEAR, suppress=False)
    assert row(report, "headline", "total")["participants"].value == 17
    assert without_time(report) == compute("NS", fx.FISCAL_YEAR, suppress=False)
    assert KpiSnapshot.objects.get(jurisdiction="NS").definitions == snapshot_actions.DEFINITIONS


def test_the_schedule_hands_over_only_out_of_date_snapshots(
    settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    nova_scotia()
    snapshots.read(None, fx.FISCAL_YEAR)
    with django_capture_on_commit_callbacks() as handed:
        assert snapshot_actions.refresh_stale_snapshots() == 0
    assert handed == []
    old = timezone.now() - dt.timedelta(minutes=settings.JOBGRANT_KPI_REFRESH_MINUTES + 1)
    KpiSnapshot.objects.filter(jurisdiction__in=("NS", "PE")).update(computed_at=old)
    KpiSnapshot.objects.filter(jurisdiction="ON").update(definitions="older")
    no_program = {"people": [], "files": []}  # a year no program has: never handed over
    KpiSnapshot.objects.create(
        jurisdiction="NS", fiscal_year="2099-00", computed_at=old, cells=no_program
    )
    with django_capture_on_commit_callbacks() as handed:
        assert snapshot_actions.refresh_stale_snapshots() == 3
    assert len(handed) == 3
    pending = KpiSnapshot.objects.filter(refresh_requested_at__isnull=False)
    assert sorted(pending.values_list("jurisdiction", flat=True)) == ["NS", "ON", "PE"]
    freshness = snapshots.freshness(None, fx.FISCAL_YEAR)
    assert freshness is not None and freshness.pending
    assert (freshness.done, freshness.scopes) == (
        len(JURISDICTION_CODES) - 3,
        len(JURISDICTION_CODES),
    )
    assert freshness.as_of == old
    with django_capture_on_commit_callbacks() as handed:
        assert snapshot_actions.refresh_stale_snapshots() == 0  # asked for already
    for code in ("NS", "ON", "PE"):
        assert refresh_kpi_snapshot.call(code, fx.FISCAL_YEAR) == "refreshed"
        assert refresh_kpi_snapshot.call(code, fx.FISCAL_YEAR) == "skipped"
    freshness = snapshots.freshness(None, fx.FISCAL_YEAR)
    assert freshness is not None and not freshness.pending and freshness.as_of > old


def test_the_annual_report_reads_the_stored_figures_suppressed() -> None:
    """What `jobgrant report` and the report page print (the tests of the report itself use
    hand-made figures): Nova Scotia's published figures, small cells hidden."""
    nova_scotia()
    published = source.annual_report("NS", fx.FISCAL_YEAR)
    kpis, out_of_rank = published.tables[:-1], published.tables[-1]
    assert out_of_rank.id == "out-of-rank"  # read from the records (test_annual_out_of_rank)
    assert without_time(dataclasses.replace(published, tables=kpis)) == compute(
        "NS", fx.FISCAL_YEAR, suppress=True
    )
    assert published.suppressed
