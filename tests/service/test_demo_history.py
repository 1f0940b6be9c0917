"""The demonstration history (`make run`): past years' files walked through the service's own
actions, the clock moved to each day. A small history (a few files) on the test database: the
same seed gives the same records, the ledger and the audit chain verify, the states the plan
says are reached, and a second loading adds nothing."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import time_machine
from django.db import transaction
from django.db.models import Count, Sum
from django.test import Client
from tests.conftest import TODAY
from tests.personas import create_personas

from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.demo import seed, seed_ready_to_claim
from jobgrant.service.demo_history.load import (
    HistoryInterrupted,
    Loaded,
    history_state,
    seed_history,
)
from jobgrant.service.demo_history.plan import make_plan
from jobgrant.service.demo_history.refused_plan import with_refused
from jobgrant.service.grants.applications.service_standards import Standard
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.applications import Application, Delivery
from jobgrant.service.grants.models.burden import StepTiming
from jobgrant.service.grants.models.claims import Claim, ClaimState
from jobgrant.service.grants.models.comparison import ComparisonFollowUp
from jobgrant.service.grants.models.completion import CompletionReport, FollowUp, TraineeOutcome
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.grants.models.payments import PaymentRequest, Receivable
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount
from jobgrant.service.notifications.models import Message
from jobgrant.service.outcomes.burden import compute as burden_figures
from jobgrant.service.outcomes.kpis import compute
from jobgrant.service.outcomes.standards_results import results

pytestmark = pytest.mark.django_db

#: Three files of 2024-25 (two in Ontario, one federal-direct in PE): seed 15 draws two trainees
#: who do not complete, answered and lapsed follow-ups, and answers after the reminder.
SMALL = {"files_per_year": {"ON": 2, "PE": 1}, "years": (2024, 2024)}
SEED = 15


def _figures() -> dict[str, Any]:
    """What the history wrote, in counts and cents (no ids, no times)."""
    history = Application.objects.filter(received_on__lt=dt.date(2026, 4, 1))
    money = ("committed", "claimed", "payable", "disbursed", "receivable", "recovered")
    return {
        "applications": sorted(history.values_list("jurisdiction", "fiscal_year", "state")),
        "quoted": history.aggregate(f=Sum("federal_cents"), p=Sum("provincial_cents")),
        "participants": Counter(
            Participant.objects.filter(application__in=history).values_list("state", flat=True)
        ),
        "claims": Claim.objects.filter(application__in=history).aggregate(
            n=Count("id"), approved=Sum("approved_cents")
        ),
        "payments": sorted(
            PaymentRequest.objects.filter(application__in=history).values_list(
                "state", "funder", "net_cents"
            )
        ),
        "receivables": sorted(
            Receivable.objects.values_list("state", "amount_cents", "recovered_cents")
        ),
        "ledger": BudgetAccount.objects.aggregate(**{name: Sum(f"{name}_cents") for name in money}),
        "messages": Counter(Message.objects.values_list("kind", "state")),
        "audit": AuditEntry.objects.count(),
    }


@pytest.fixture(scope="class")
def small_history(django_db_setup: None, django_db_blocker: Any) -> Iterator[Loaded]:
    """The small history, loaded once for the tests that only read what it wrote (the class
    TestWhatTheSmallHistoryWrote; each loading walks its files through the actions: seconds of
    CPU, set-up rather than what those tests check), in a transaction rolled back after them;
    each test's own transaction is a savepoint in it. The clock is the one the tests' own
    fixture (frozen_today) sets."""
    with (
        django_db_blocker.unblock(),
        time_machine.travel(dt.datetime(2026, 11, 29, 15, 0, tzinfo=dt.UTC), tick=True),
        transaction.atomic(),
    ):
        seed(TODAY)  # no-ops unless a transactional test emptied the database (as `demo`)
        create_personas()
        loaded = seed_history(SEED, **SMALL)  # type: ignore[arg-type]
        assert loaded is not None
        yield loaded
        transaction.set_rollback(True)


def _load_and_read() -> dict[str, Any]:
    with transaction.atomic():
        seed_history(SEED, **SMALL)  # type: ignore[arg-type]
        figures = _figures()
        transaction.set_rollback(True)
    return figures


def test_the_same_seed_gives_the_same_records(demo: None) -> None:
    first, second = _load_and_read(), _load_and_read()
    assert first["claims"]["n"] > 0
    assert first == second


def test_the_plan_is_the_same_for_a_seed_and_another_for_another_seed() -> None:
    assert make_plan(SEED) == make_plan(SEED)
    assert make_plan(SEED) != make_plan(SEED + 1)


def test_todays_messages_are_left_to_the_worker_and_the_historys_are_sent(demo: None) -> None:
    seed_ready_to_claim()  # today's files: their invitations wait for the worker
    today = set(Message.objects.filter(state="queued").values_list("pk", flat=True))
    assert today
    seed_history(SEED, **SMALL)  # type: ignore[arg-type]
    assert set(Message.objects.filter(state="queued").values_list("pk", flat=True)) == today
    history = Message.objects.filter(created_at__lt=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
    assert history.count() > 0
    assert set(history.values_list("state", flat=True)) == {"sent"}


def test_a_loading_stopped_half_way_is_not_started_again(demo: None) -> None:
    from jobgrant.service.audit.chain import record

    with transaction.atomic():
        record("demo-seed", "demo.history_started", "demo", 1, {})
    with pytest.raises(HistoryInterrupted):
        seed_history(SEED, **SMALL)  # type: ignore[arg-type]
    assert not Application.objects.filter(fiscal_year="2024-25").exists()


def test_the_full_plan_has_cells_above_and_below_the_suppression_threshold() -> None:
    plan = make_plan()
    cells: Counter[tuple[str, int]] = Counter()
    for file in plan.files:
        cells[(file.jurisdiction, file.fiscal_year)] += len(file.trainees)
    assert 150 <= plan.trainees <= 300
    assert any(n >= 10 for n in cells.values())
    assert any(n < 10 for n in cells.values())


class TestWhatTheSmallHistoryWrote:
    """What one loading of the small history wrote, read by each test (`small_history`, loaded
    once for the class and rolled back after it)."""

    def test_the_history_leaves_the_ledger_and_the_audit_chain_verified(
        self, small_history: Loaded, demo: None
    ) -> None:
        assert small_history.files == 3
        assert operations.verify() == []
        assert verify().ok

    def test_every_file_is_approved_accepted_claimed_certified_and_paid(
        self, small_history: Loaded, demo: None
    ) -> None:
        plan = with_refused(make_plan(SEED, **SMALL))  # type: ignore[arg-type]
        made = Application.objects.filter(request__employers__0__business_number__startswith="7")
        assert made.count() == len(plan.files) + len(plan.refused)
        files = made.exclude(received_on__in=[r.file.received_on for r in plan.refused])
        assert files.count() == len(plan.files)
        assert Participant.objects.filter(application__in=files).count() == plan.trainees
        for application in files:
            assert application.state == "approved"
            assert Agreement.objects.get(application=application).state in ("active", "completed")
            final = Claim.objects.get(application=application, is_final=True)
            assert final.state == ClaimState.APPROVED
            assert final.certified_by == application.assigned_to
            assert set(final.payments.values_list("state", flat=True)) == {"paid"}
            assert final.decided_at is not None
            assert final.decided_at.date() > dt.date.fromisoformat(
                application.request["training"]["end_date"]
            )

    def test_federal_direct_files_have_no_provincial_share(
        self, small_history: Loaded, demo: None
    ) -> None:
        federal = Application.objects.filter(jurisdiction="PE", delivery=Delivery.FEDERAL_DIRECT)
        assert federal.count() == 1
        assert all(a.provincial_cents == 0 < a.federal_cents for a in federal)
        deciders = {a.decided_by.username for a in federal if a.decided_by is not None}
        assert deciders and all(name.startswith("demo-officer-federal") for name in deciders)

    def test_the_history_dates_are_the_days_it_happened(
        self, small_history: Loaded, demo: None
    ) -> None:
        first = Application.objects.filter(fiscal_year="2024-25").order_by("received_on").first()
        assert first is not None
        assert first.received_on < dt.date(2025, 3, 31)
        approval = AuditEntry.objects.get(action="application.approve", object_id=str(first.pk))
        assert first.received_on < approval.at.date() < first.received_on + dt.timedelta(days=14)

    def test_the_service_standards_page_shows_the_historys_results(
        self, small_history: Loaded, demo: None
    ) -> None:
        found = results()
        assert {r.standard for r in found} == set(Standard)
        assert {r.jurisdiction for r in found} == {"ON", "PE", "CA"}
        ontario = [r for r in found if r.jurisdiction == "ON"]
        # Ontario's two funded files and its three refused for lack of budget, then denied, and
        # the one file of the seed's ranked intake decided (its denial against the ranking,
        # demo_ranking.py); its other eight are not due yet
        assert sum(r.due for r in ontario if r.standard is Standard.DECIDE) == 5 + 1
        page = Client().get("/en/service-standards/?fiscal_year=2024-25").content.decode()
        assert 'id="results-pay"' in page and "Prince Edward Island" in page

    def test_a_receivable_is_raised_and_repaid_for_a_trainee_who_did_not_complete(
        self, small_history: Loaded, demo: None
    ) -> None:
        plan = make_plan(SEED, **SMALL)  # type: ignore[arg-type]
        marked = [f for f in plan.files if f.receivable]
        receivables = Receivable.objects.filter(cause="not_completed")
        assert receivables.count() == len(marked) == 1
        owed = receivables.get()
        assert owed.state == "recovered" and owed.recovered_cents == owed.amount_cents > 0

    def test_reports_complete_the_agreements_and_follow_ups_end_as_planned(
        self, small_history: Loaded, demo: None
    ) -> None:
        """The small history's trainings ended in April 2025 at the latest: on 2026-11-29 every
        report is in, every agreement completed, and every follow-up answered or lapsed, as
        drawn."""
        plan = make_plan(SEED, **SMALL)  # type: ignore[arg-type]
        assert CompletionReport.objects.filter(state="submitted").count() == len(plan.files)
        assert Agreement.objects.filter(state="completed").count() == len(plan.files)
        trainees = [t for f in plan.files for t in f.trainees]
        completed = TraineeOutcome.objects.filter(completed=True).count()
        assert completed == sum(t.completed for t in trainees) < len(trainees)
        expected: Counter[tuple[str, int, str]] = Counter()
        reminded = 0
        for file in plan.files:
            for months in (3, 12):
                lead = file.trainees[0].follow_ups[(months, "employer")]
                for trainee in file.trainees:
                    own = trainee.follow_ups[(months, "trainee")]
                    for respondent, answer in (("trainee", own), ("employer", lead)):
                        state = "responded" if answer.answered else "lapsed"
                        expected[(respondent, months, state)] += 1
                        reminded += answer.after_reminder
        states = FollowUp.objects.values_list("respondent", "milestone", "state")
        assert Counter(states) == expected
        assert {"responded", "lapsed"} <= {state for _, _, state in expected}
        late = FollowUp.objects.filter(state="responded", reminded_at__isnull=False).count()
        assert late == reminded > 0

    def test_a_second_loading_adds_nothing(self, small_history: Loaded, demo: None) -> None:
        before = _figures()
        assert seed_history(SEED, **SMALL) is None  # type: ignore[arg-type]
        assert _figures() == before
        assert history_state() == "loaded"

    def test_every_file_has_its_steps_timed_for_the_burden_meter(
        self, small_history: Loaded, demo: None
    ) -> None:
        """The history's made-up page timings (demo_history/page_timings.py): each file's
        wizard, its participants' forms, its claim and its completion report, by its size."""
        files = Application.objects.filter(
            request__employers__0__business_number__startswith="7", state="approved"
        )
        for application in files:
            steps = Counter(
                StepTiming.objects.filter(application=application).values_list("step", flat=True)
            )
            trainees = Participant.objects.filter(application=application).count()
            assert steps["application"] == steps["apply.training"] == steps["claim"] == 1
            assert steps["participant-form"] == trainees
            assert steps["completion"] == 1
        whole = StepTiming.objects.filter(step="application", application__in=files)
        assert all(t.seconds and t.employees for t in whole)
        report = burden_figures("ON", "2024-25", suppressed=False)
        total = report.table("step-participant-form").rows[-1].figures
        assert total["timed"].value and total["median"].value

    def test_a_comparison_group_is_refused_for_lack_of_budget_and_asked_as_drawn(
        self, small_history: Loaded, demo: None
    ) -> None:
        """Ontario's 2024-25 intake closes its budget in February: the files applied for after
        it are refused for lack of budget (audited), then denied, join the comparison group,
        and their employer consents and answers, or lets the questions lapse, or declines, as
        drawn; the KPIs say the group is too small for a net figure."""
        plan = with_refused(make_plan(SEED, **SMALL))  # type: ignore[arg-type]
        assert len(plan.refused) == 3  # SMALL: Ontario's three (history.refused_per_year)
        refused = Application.objects.filter(
            received_on__in=[r.file.received_on for r in plan.refused], jurisdiction="ON"
        )
        assert set(refused.values_list("state", flat=True)) == {"denied"}
        codes = AuditEntry.objects.filter(
            action="refused.approve_application", object_id__in=[str(a.pk) for a in refused]
        ).values_list("summary__code", flat=True)
        assert list(codes) == ["INTAKE_BUDGET_EXHAUSTED"] * 3
        expected: Counter[tuple[int, str, bool | None]] = Counter()
        for drawn in plan.refused:
            # A "no" at the first question declines both; a "yes" (at either) is kept on all.
            agreed = any(answer.answered for answer in drawn.answers.values()) or None
            for (months, _), answer in drawn.answers.items():
                if not drawn.consents:
                    expected[(months, "declined", False)] += 1
                    continue
                state = "responded" if answer.answered else "lapsed"
                expected[(months, state, agreed)] += 1
        rows = ComparisonFollowUp.objects.values_list("milestone", "state", "consent")
        assert Counter(rows) == expected
        assert expected[(3, "responded", True)] > 0
        assert set(ComparisonFollowUp.objects.values_list("source", flat=True)) == {"no-budget"}
        note = compute("ON", "2024-25").table("net-outcomes").note_en
        assert "too small for a net figure to mean anything" in note
