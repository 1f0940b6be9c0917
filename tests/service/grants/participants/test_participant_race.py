"""One link, many submissions at once (each thread its own database connection): exactly one is
kept, the others are told the link was used, and nothing of theirs is written (on SQLite and on
PostgreSQL)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connections
from tests.participants import answers, approved_application, latest_link
from tests.personas import EMPLOYER

from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.participants import Invitation
from jobgrant.service.grants.participants import actions as participant_actions

pytestmark = pytest.mark.django_db(transaction=True)
SUBMISSIONS = 8


def test_simultaneous_submissions_of_one_link_keep_exactly_one(demo: None) -> None:
    slot = participant_actions.invite_participant(
        EMPLOYER.get(),
        approved_application(),
        {"trainee": 0, "email": "a@example.com", "language": "en"},
    )
    token = latest_link(slot)[1]
    start = threading.Barrier(SUBMISSIONS)
    outcomes: list[Any] = []

    def submit(number: int) -> None:
        start.wait()
        try:
            outcomes.append(participant_actions.submit_participant_form(token, answers()).state)
        except ServiceError as error:
            outcomes.append(error.code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=submit, args=(n,)) for n in range(SUBMISSIONS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["LINK_USED"] * (SUBMISSIONS - 1) + ["confirmed"]
    assert Invitation.objects.filter(used_at__isnull=False).count() == 1
    assert AuditEntry.objects.filter(action="participant.submit").count() == 1
    assert verify().ok
