"""A race at the cut-off: two officers approve, at the same moment, the last two files the
budget can hold one of. The ledger decides: one approval commits, the other is refused
(409 BUDGET_EXHAUSTED, audited), and the commitments never exceed the budget.

Written for PostgreSQL (row locks; the Makefile's PostgreSQL pass runs it), from two threads
with their own connections, released together.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connections
from tests.personas import OFFICER, PROGRAM_MANAGER, SECOND_OFFICER
from tests.service.grants.ranking_helpers import closed, ranked_stream, submitted_files

from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.grants.ranking.actions import rank_intake, request_override, sign_off_override
from jobgrant.service.ledger.models import Earmark

pytestmark = pytest.mark.django_db(transaction=True)


def _approve(officer_name: str, pk: int, start: threading.Barrier, answers: list[str]) -> None:
    try:
        officer = (OFFICER if officer_name == OFFICER.username else SECOND_OFFICER).get()
        application = Application.objects.get(pk=pk)
        start.wait()
        actions.approve_application(officer, application)
        answers.append("approved")
    except ServiceError as error:
        answers.append(error.code)
    except Exception as error:  # a crash fails the test, not the thread silently
        answers.append(f"crash: {type(error).__name__}: {error}")
    finally:
        connections.close_all()


def test_two_officers_approving_the_last_files_that_fit_commit_one_and_the_budget_holds(
    demo: None,
) -> None:
    intake = ranked_stream()
    files = submitted_files()
    rank_intake(closed(intake))
    for name in ("B", "C", "A"):
        actions.recommend_application(OFFICER.get(), files[name])
    actions.recommend_application(SECOND_OFFICER.get(), files["D"])
    for name in ("B", "C"):
        actions.approve_application(SECOND_OFFICER.get(), files[name])
    override = request_override(SECOND_OFFICER.get(), files["D"], "approve", "Plant closing.")
    sign_off_override(PROGRAM_MANAGER.get(), override)
    # The intake's federal budget ($10,000) has room for one more $5,000 share, not two.
    start, answers = threading.Barrier(2), []
    threads = [
        threading.Thread(
            target=_approve, args=(SECOND_OFFICER.username, files["A"].pk, start, answers)
        ),
        threading.Thread(target=_approve, args=(OFFICER.username, files["D"].pk, start, answers)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(answers) == ["INTAKE_BUDGET_EXHAUSTED", "approved"], answers
    federal = Earmark.objects.get(intake=intake, account__funder="federal")
    assert federal.committed_cents == federal.budget_cents
    approved = Application.objects.filter(
        pk__in=[files["A"].pk, files["D"].pk], state=State.APPROVED
    )
    assert approved.count() == 1
    assert AuditEntry.objects.filter(action="refused.approve_application").count() == 1
    assert verify().ok
