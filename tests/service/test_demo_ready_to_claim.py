"""The demonstration data walks the whole path: two people in finance, and files ready to claim
(approved by two officers, the agreement accepted, every trainee confirmed through the form)."""

from __future__ import annotations

import datetime as dt

import pytest

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.chain import verify
from jobgrant.service.demo import READY_TUITIONS, TODAY_DEFAULT_OFFSET, seed_ready_to_claim
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.ledger import operations

pytestmark = pytest.mark.django_db


def test_two_people_in_finance_can_build_and_authorize_a_batch(demo: None) -> None:
    finance = User.objects.filter(role=Role.FINANCE, username__startswith="demo-finance")
    assert sorted(finance.values_list("username", flat=True)) == ["demo-finance", "demo-finance-2"]
    assert all(user.check_password("jobgrant-demo") for user in finance)


def test_files_ready_to_claim_are_accepted_with_confirmed_trainees(demo: None) -> None:
    ids = seed_ready_to_claim()
    assert len(ids) == len(READY_TUITIONS)
    for application in Application.objects.filter(pk__in=ids):
        assert application.state == State.APPROVED
        assert application.created_by.username == "demo-employer"
        assert application.assigned_to.username == "demo-officer-on-1"
        agreement = Agreement.objects.get(application=application)
        assert agreement.state == "accepted"
        training = application.request["training"]
        assert training["start_date"] < str(application.received_on + TODAY_DEFAULT_OFFSET)
        slots = Participant.objects.filter(application=application)
        assert sorted(slots.values_list("state", flat=True)) == ["confirmed", "confirmed"]
        balances = operations.application_balances(application)
        assert balances["federal"].committed == application.federal_cents > 0
        assert balances["provincial"].committed == application.provincial_cents > 0
    assert operations.verify() == []
    assert verify().ok


def test_the_ready_files_history_agrees_with_applied_for_50_days_ago(demo: None) -> None:
    """Applied for 50 days ago, training started 20 days ago: every dated step of the file (its
    history, the agreement's issue and acceptance, the trainees' invitations and forms, the
    audit trail) falls in order between the day it was applied for and the day the training
    began, none of it today."""
    from django.utils import timezone

    from jobgrant.service.audit.models import AuditEntry

    today = timezone.localdate()
    applied = today - TODAY_DEFAULT_OFFSET
    for application in Application.objects.filter(pk__in=seed_ready_to_claim()):
        start = dt.date.fromisoformat(application.request["training"]["start_date"])
        assert application.received_on == applied
        agreement = Agreement.objects.get(application=application)
        version = agreement.versions.get()
        slots = Participant.objects.filter(application=application)
        steps = [
            *((f"history: {c.to_state}", c.at) for c in application.history.all()),
            ("agreement issued", agreement.issued_at),
            ("agreement accepted", version.accepted_at),
            *((f"trainee invited {s.pk}", s.invited_at) for s in slots),
            *((f"trainee's form {s.pk}", s.submitted_at) for s in slots),
        ]
        entries = AuditEntry.objects.filter(
            object_type="application", object_id=str(application.pk)
        )
        steps += [(f"audit: {e.action}", e.at) for e in entries]
        days = {name: timezone.localdate(at) for name, at in steps if at is not None}
        assert len(days) == len(steps)
        wrong = {name: day for name, day in days.items() if not applied <= day < start}
        assert not wrong, f"file {application.pk}: applied {applied}, started {start}: {wrong}"
        history = [timezone.localdate(c.at) for c in application.history.all()]
        assert history == sorted(history)
        assert version.accepted_at < min(s.invited_at for s in slots)
        assert version.participants_by >= max(days[f"trainee's form {s.pk}"] for s in slots)
