"""Two intakes asking at once for more than the account holds between them: the ledger lets one
have it and refuses the other (a conditional UPDATE on the budget row, not a check in Python
that both could pass)."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connections, transaction
from django.utils import timezone

from jobgrant.service.grants.models.applications import Intake, Program
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount, Earmark

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_earmarks_racing_for_the_same_money_cannot_both_pass(demo: None) -> None:
    program = Program.objects.get(
        jurisdiction="ON",
        fiscal_year__startswith=str(
            timezone.localdate().year
            if timezone.localdate().month >= 4
            else timezone.localdate().year - 1
        ),
    )
    intakes = list(Intake.objects.filter(stream__program=program).order_by("pk")[:2])
    account = BudgetAccount.objects.get(
        funder="federal", jurisdiction="ON", fiscal_year=program.fiscal_year, stream="CJG"
    )
    held = {e.intake_id: e.budget_cents for e in Earmark.objects.filter(account=account)}
    share = account.available_cents * 6 // 10  # each asks 60% more of what is available
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def ask(intake: Intake) -> None:
        try:
            start.wait()
            with transaction.atomic():
                budget = held.get(intake.pk, 0) + share
                operations.set_earmark(intake.pk, account, budget, actor="race")
                time.sleep(0.3)  # hold the row: the other waits for this commit, then re-checks
            outcomes.append("earmarked")
        except operations.InsufficientBudget:
            outcomes.append("refused")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=ask, args=(intake,)) for intake in intakes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["earmarked", "refused"]
    account.refresh_from_db()
    assert account.available_cents >= 0
    assert account.earmarked_cents + account.committed_cents <= account.allocated_cents
    assert operations.verify() == [
        difference for difference in operations.verify() if "the intake's budget is" in difference
    ]
