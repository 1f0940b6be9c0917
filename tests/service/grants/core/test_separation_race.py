"""Separation of duties under a race: an officer who sends recommend and approve for the same
file at the same moment never approves what they recommended, and is never answered 500.

A security review found it over HTTP: 24 of 60 such approves answered 500. The approval checked that
the approver was not the recommender on the row it had read before taking the row lock; when the
recommendation committed in between, only the database constraint stopped the approval (an
IntegrityError, a 500, and no audit entry). Each pair here goes through the API, from two threads
with their own connections, released together: whichever takes the row lock first, the approve is
refused (403 SEPARATION_OF_DUTIES, audited, when the recommendation won; 409, the file not yet
recommended, when the approve won), the recommend succeeds, nothing is approved, and the audit chain
verifies.

Written for PostgreSQL (row locks; the Makefile's PostgreSQL pass runs it). On SQLite every
transaction begins IMMEDIATE, so the two take turns and the same outcomes hold.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from dataclasses import dataclass, field

import pytest
from django.db import connections
from django.test import Client
from tests.conftest import application_body
from tests.personas import EMPLOYER, OFFICER

from jobgrant.service.accounts.models import ApiToken
from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Application, State

pytestmark = pytest.mark.django_db(transaction=True)
log = logging.getLogger(__name__)
PAIRS = 16


@dataclass
class Answers:
    approve: list[tuple[int, str]] = field(default_factory=list)
    recommend: list[int] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _send(action: str, pk: int, token: str, start: threading.Barrier, seen: Answers) -> None:
    try:
        client = Client(raise_request_exception=False)
        headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": f"{action}-{pk}"}
        start.wait()
        answer = client.post(
            f"/api/v1/applications/{pk}/{action}",
            data="{}",
            content_type="application/json",
            headers=headers,
        )
        problem = answer["Content-Type"].startswith("application/problem+json")
        code = answer.json().get("code", "") if problem else ""
        with seen.lock:
            if action == "approve":
                seen.approve.append((answer.status_code, code))
            else:
                seen.recommend.append(answer.status_code)
    except Exception as error:  # a crash fails the test, not the thread silently
        with seen.lock:
            seen.crashes.append(f"{type(error).__name__}: {error}")
    finally:
        connections.close_all()


def test_an_officer_racing_recommend_and_approve_is_refused_and_audited_never_a_500(
    demo: None,
) -> None:
    employer, officer = EMPLOYER.get(), OFFICER.get()
    submitted = []
    for _ in range(PAIRS):
        application = actions.create_application(employer, application_body())
        actions.submit_application(employer, application)
        submitted.append(application.pk)
    seen = Answers()
    for pk in submitted:  # one pair at a time: each pair races only itself
        start = threading.Barrier(2)
        tokens = (ApiToken.issue(officer), ApiToken.issue(officer))
        threads = [
            threading.Thread(target=_send, args=(action, pk, token, start, seen))
            for action, token in zip(("recommend", "approve"), tokens, strict=True)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    log.info("approve answers %s", Counter(seen.approve))
    assert seen.crashes == []
    assert [status for status, _ in seen.approve if status >= 500] == []
    assert set(seen.approve) <= {(403, "SEPARATION_OF_DUTIES"), (409, "ILLEGAL_TRANSITION")}
    assert seen.recommend == [200] * PAIRS
    states = set(Application.objects.filter(pk__in=submitted).values_list("state", flat=True))
    assert states == {State.RECOMMENDED}
    refused = AuditEntry.objects.filter(
        action="refused.approve_application", object_id__in=[str(pk) for pk in submitted]
    )
    separations = [entry for entry in refused if entry.summary["code"] == "SEPARATION_OF_DUTIES"]
    assert len(separations) == seen.approve.count((403, "SEPARATION_OF_DUTIES"))
    assert {entry.actor for entry in separations} <= {officer.username}
    assert verify().ok
