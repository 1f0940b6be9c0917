"""Intakes managed by a program manager: windows that never overlap, budgets the ledger takes
from the jurisdiction's account (and refuses beyond it), the worker opening and closing them at
their dates, and every change in the audit trail."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone
from tests.conftest import application_body
from tests.personas import ADMIN, EMPLOYER, FINANCE, OFFICER, PROGRAM_MANAGER, SECOND_OFFICER

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions as application_actions
from jobgrant.service.grants.core.quoting import open_intake
from jobgrant.service.grants.intakes import actions
from jobgrant.service.grants.models.applications import (
    Application,
    Intake,
    IntakeState,
    Program,
    Selection,
    State,
    Stream,
)
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount, Earmark

pytestmark = pytest.mark.django_db


def ontario() -> Program:
    today = timezone.localdate()
    year = f"{today.year if today.month >= 4 else today.year - 1}"
    return Program.objects.get(jurisdiction="ON", fiscal_year__startswith=year)


def first_come() -> Stream:
    return ontario().streams.filter(selection=Selection.FIRST_COME).order_by("id")[0]


def ranked() -> Stream:
    return ontario().streams.get(selection=Selection.RANKED)


def federal_account() -> BudgetAccount:
    program = ontario()
    return BudgetAccount.objects.get(
        funder="federal", jurisdiction="ON", fiscal_year=program.fiscal_year, stream="CJG"
    )


def body(opens: dt.date, closes: dt.date, federal: str = "0", **more: Any) -> dict[str, Any]:
    return {
        "name_en": "Winter intake",
        "name_fr": "Appel d'hiver",
        "opens_on": opens.isoformat(),
        "closes_on": closes.isoformat(),
        "federal_budget": federal,
        "provincial_budget": "0",
        **more,
    }


def later(days: int) -> dt.date:
    return timezone.localdate() + dt.timedelta(days=days)


def fields(error: ServiceError) -> list[str]:
    return [item["field"] for item in error.problems]


def test_a_program_manager_creates_a_scheduled_intake_with_its_budget_earmarked(
    demo: None,
) -> None:
    before = federal_account().available_cents
    intake = actions.create_intake(
        PROGRAM_MANAGER.get(), ranked(), body(later(3), later(20), "125000.00")
    )
    assert intake.state == IntakeState.SCHEDULED
    assert intake.federal_budget_cents == 12_500_000
    assert federal_account().available_cents == before - 12_500_000
    earmark = Earmark.objects.get(intake=intake)
    assert (earmark.budget_cents, earmark.committed_cents) == (12_500_000, 0)
    entry = AuditEntry.objects.filter(action="intake.create", object_id=str(intake.pk)).get()
    assert entry.actor == PROGRAM_MANAGER.username
    assert entry.summary["federal_budget_cents"] == 12_500_000
    assert operations.verify() == []


def test_an_overlapping_window_is_refused_naming_the_field_and_nothing_is_written(
    demo: None,
) -> None:
    manager = PROGRAM_MANAGER.get()
    actions.create_intake(manager, ranked(), body(later(3), later(20)))
    count = Intake.objects.count()
    with pytest.raises(ServiceError) as refused:
        actions.create_intake(manager, ranked(), body(later(20), later(40)))
    assert refused.value.status == 422
    assert fields(refused.value) == ["opens_on"]
    assert "never overlap" in refused.value.problems[0]["message_en"]
    assert "chevauche" in refused.value.problems[0]["message_fr"]
    assert Intake.objects.count() == count


def test_a_budget_above_what_the_account_holds_is_refused_by_the_ledger(demo: None) -> None:
    available = federal_account().available_cents
    too_much = f"{(available + 1) // 100 + 1}.00"
    count = Intake.objects.count()
    with pytest.raises(ServiceError) as refused:
        actions.create_intake(PROGRAM_MANAGER.get(), ranked(), body(later(3), later(9), too_much))
    assert refused.value.status == 422 and fields(refused.value) == ["federal_budget"]
    assert Intake.objects.count() == count
    assert federal_account().available_cents == available
    assert operations.verify() == []


def test_bad_input_names_each_field_in_both_languages(demo: None) -> None:
    with pytest.raises(ServiceError) as refused:
        actions.create_intake(
            PROGRAM_MANAGER.get(),
            ranked(),
            {"name_en": "", "opens_on": "tomorrow", "closes_on": "", "federal_budget": "-5"},
        )
    assert set(fields(refused.value)) == {
        "name_en",
        "name_fr",
        "opens_on",
        "closes_on",
        "federal_budget",
    }
    assert all(item["message_fr"] for item in refused.value.problems)


def test_a_window_that_ends_before_it_opens_or_leaves_the_fiscal_year_is_refused(
    demo: None,
) -> None:
    with pytest.raises(ServiceError) as refused:
        actions.create_intake(PROGRAM_MANAGER.get(), ranked(), body(later(9), later(3)))
    assert fields(refused.value) == ["closes_on"]
    with pytest.raises(ServiceError) as outside:
        actions.create_intake(PROGRAM_MANAGER.get(), ranked(), body(later(3), later(400)))
    assert fields(outside.value) == ["closes_on"]


def test_only_a_program_manager_of_the_jurisdiction_or_the_administrator_manages_it(
    demo: None,
) -> None:
    for person in (OFFICER, FINANCE):
        with pytest.raises(ServiceError) as refused:
            actions.create_intake(person.get(), ranked(), body(later(3), later(9)))
        assert refused.value.status == 403
    assert AuditEntry.objects.filter(action="refused.intake.create").count() == 2
    assert actions.create_intake(ADMIN.get(), ranked(), body(later(3), later(9))).pk


def test_an_intake_is_changed_before_it_opens_and_not_after(demo: None) -> None:
    manager = PROGRAM_MANAGER.get()
    intake = actions.create_intake(manager, ranked(), body(later(3), later(9), "1000.00"))
    changed = actions.change_intake(manager, intake, body(later(4), later(12), "600.00"))
    assert (changed.opens_on, changed.federal_budget_cents) == (later(4), 60_000)
    assert Earmark.objects.get(intake=intake).budget_cents == 60_000
    assert operations.verify() == []
    open_now = open_intake(ontario(), timezone.localdate())
    assert open_now is not None
    with pytest.raises(ServiceError) as refused:
        actions.change_intake(manager, open_now, body(later(1), later(9)))
    assert refused.value.status == 409


def test_closing_early_takes_a_reason_and_the_intake_receives_no_more_applications(
    demo: None,
) -> None:
    manager = PROGRAM_MANAGER.get()
    intake = open_intake(ontario(), timezone.localdate())
    assert intake is not None
    with pytest.raises(ServiceError) as refused:
        actions.close_intake(manager, intake, "  ")
    assert fields(refused.value) == ["reason"]
    closed = actions.close_intake(manager, intake, "A backlog: suspended for three weeks.")
    assert (closed.state, closed.closed_on) == (IntakeState.CLOSED, timezone.localdate())
    assert open_intake(ontario(), timezone.localdate()) is None
    entry = AuditEntry.objects.get(action="intake.close", object_id=str(intake.pk))
    assert entry.summary["reason"] == "A backlog: suspended for three weeks."
    with pytest.raises(ServiceError) as again:
        actions.close_intake(manager, closed, "twice")
    assert again.value.status == 409


def test_the_worker_opens_and_closes_intakes_at_their_dates(demo: None) -> None:
    intake = actions.create_intake(PROGRAM_MANAGER.get(), ranked(), body(later(3), later(9)))
    assert actions.open_and_close_due(later(2)) == {"closed": [], "opened": [], "ranked": []}
    assert intake.pk in actions.open_and_close_due(later(3))["opened"]
    intake.refresh_from_db()
    assert intake.state == IntakeState.OPEN
    assert actions.open_and_close_due(later(3))["opened"] == []  # idempotent
    assert intake.pk in actions.open_and_close_due(later(10))["closed"]
    intake.refresh_from_db()
    assert intake.state in (IntakeState.CLOSED, IntakeState.RANKED)  # ranked once ranking runs
    assert intake.closed_on == later(9)
    worked = AuditEntry.objects.filter(
        object_type="intake", object_id=str(intake.pk), actor="worker"
    )
    # Closed, then handed to the ranking (its stream is ranked): three steps by the worker.
    assert sorted(worked.values_list("action", flat=True)) == [
        "intake.close",
        "intake.open",
        "intake.rank",
    ]


def test_a_stream_s_selection_cannot_change_while_an_intake_of_it_is_open(demo: None) -> None:
    manager = PROGRAM_MANAGER.get()
    with pytest.raises(ServiceError) as refused:
        actions.change_stream(manager, first_come(), {"selection": "ranked", "scoring": "on-2017"})
    assert (refused.value.status, refused.value.code) == (409, "STREAM_IN_USE")
    with pytest.raises(ServiceError) as policy:
        actions.change_stream(manager, first_come(), {"selection": "first_come", "policy": "x"})
    assert fields(policy.value) == ["policy"]


def test_a_ranked_stream_s_scoring_changes_once_its_intake_is_ranked_and_is_audited(
    demo: None,
) -> None:
    """The demonstration's ranked intake is ranked: the stream is no longer in use, so its
    scoring set may change; the policy may not, the program having applications."""
    manager, stream = PROGRAM_MANAGER.get(), ranked()
    policy = stream.program.policy
    changed = actions.change_stream(
        manager, stream, {"selection": "ranked", "scoring": "bc-2016", "policy": policy}
    )
    assert (changed.selection, changed.scoring) == (Selection.RANKED, "bc-2016")
    entry = AuditEntry.objects.filter(action="stream.change", object_id=str(stream.pk)).get()
    assert entry.actor == PROGRAM_MANAGER.username
    assert entry.summary["before"]["scoring"] == "on-2017" and entry.summary["scoring"] == "bc-2016"
    other = next(name for name in actions.policy_names() if name != policy)
    with pytest.raises(ServiceError) as refused:
        actions.change_stream(
            manager, stream, {"selection": "ranked", "scoring": "bc-2016", "policy": other}
        )
    assert (refused.value.status, refused.value.code) == (409, "POLICY_IN_USE")


# --- Approvals commit from the intake's budget ---------------------------------------------


def recommended() -> Application:
    employer = EMPLOYER.get()
    application = application_actions.create_application(employer, application_body())
    application_actions.submit_application(employer, application)
    application_actions.recommend_application(SECOND_OFFICER.get(), application)
    return application


def earmark_for(application: Application, cents: int) -> None:
    """The application's intake given a federal budget of `cents` (as its manager would have
    set it before it opened)."""
    assert application.intake is not None
    with transaction.atomic():
        operations.set_earmark(application.intake.pk, federal_account(), cents, actor="test")
        Intake.objects.filter(pk=application.intake.pk).update(federal_budget_cents=cents)


def test_an_approval_beyond_the_intake_s_budget_is_refused_by_the_database(demo: None) -> None:
    application = recommended()
    earmark_for(application, application.federal_cents - 1)
    with pytest.raises(ServiceError) as refused:
        application_actions.approve_application(OFFICER.get(), application)
    assert (refused.value.status, refused.value.code) == (409, "INTAKE_BUDGET_EXHAUSTED")
    application.refresh_from_db()
    assert application.state == State.RECOMMENDED
    assert Earmark.objects.get(intake=application.intake).committed_cents == 0


def test_an_approval_commits_from_the_intake_s_budget_and_a_withdrawal_gives_it_back(
    demo: None,
) -> None:
    application = recommended()
    earmark_for(application, application.federal_cents)
    account = federal_account()
    application_actions.approve_application(OFFICER.get(), application)
    earmark = Earmark.objects.get(intake=application.intake)
    assert earmark.committed_cents == application.federal_cents
    after = federal_account()
    assert after.committed_cents == account.committed_cents + application.federal_cents
    assert after.earmarked_cents == account.earmarked_cents - application.federal_cents
    assert after.available_cents == account.available_cents  # the earmark paid for it
    assert operations.verify() == []
    application_actions.withdraw_application(EMPLOYER.get(), application)
    assert Earmark.objects.get(intake=application.intake).committed_cents == 0
    assert federal_account().earmarked_cents == account.earmarked_cents
    assert operations.verify() == []


def test_files_outside_an_intake_s_budget_cannot_spend_it(demo: None) -> None:
    """What is earmarked for an intake is not available to the other files of the account."""
    account = federal_account()
    application = recommended()
    room = application.federal_cents - 1

    spring = ranked().intakes.get()
    budget = Earmark.objects.get(intake=spring).budget_cents + account.available_cents - room
    with transaction.atomic():
        operations.set_earmark(spring.pk, account, budget, actor="test")
        Intake.objects.filter(pk=spring.pk).update(federal_budget_cents=budget)
    assert federal_account().available_cents == room
    with pytest.raises(ServiceError) as refused:
        application_actions.approve_application(OFFICER.get(), application)
    assert refused.value.code == "BUDGET_EXHAUSTED"
    assert operations.verify() == []
