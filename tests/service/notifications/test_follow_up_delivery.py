"""The follow-ups through the real worker (its periodic jobs and its outbox delivery) to a real
SMTP server: exactly one message per recipient per milestone, in the recipient's language, and
nothing more on the worker's next turns."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest
from tests.service.grants.outcome_helpers import at, submitted_report
from tests.smtp_sink import SmtpSink

from jobgrant.service import schedule
from jobgrant.service.grants.models.completion import FollowUp, FollowUpState
from jobgrant.service.notifications.worker import OutboxWorker, periodic_jobs

THREE_MONTHS = dt.date(2027, 6, 26)


def worker() -> OutboxWorker:
    return OutboxWorker("test-worker", interval=0, jobs=periodic_jobs(schedule.PERIODIC_JOBS))


def turns(outbox: OutboxWorker, count: int = 3) -> None:
    for _ in range(count):
        for job in outbox.jobs:
            job.next_run = 0.0  # every job runs at each turn, as if its interval had passed
        outbox._next_sweep = 0.0
        outbox.turn()


@pytest.mark.django_db(transaction=True)
def test_the_worker_sends_each_follow_up_once_per_recipient_and_milestone(
    smtp: SmtpSink, demo: None
) -> None:
    submitted_report(trainee_language="fr")
    with at(dt.date(2027, 4, 3)):
        turns(worker())  # the messages of the file so far (invitations, the report's receipt)
    assert not FollowUp.objects.exclude(state=FollowUpState.DUE).exists()
    arrived_before = len(smtp.arrived)
    with at(THREE_MONTHS):
        turns(worker())
    arrived = smtp.arrived[arrived_before:]
    per_recipient = Counter(r for message in arrived for r in message.recipients)
    assert per_recipient == Counter(
        {"applicant@example.ca": 1, "trainee0@example.com": 1, "trainee1@example.com": 1}
    )
    subjects = {m.recipients[0]: str(m.message["Subject"]).strip() for m in arrived}
    assert subjects["trainee1@example.com"].startswith("3 mois après votre formation")
    assert subjects["trainee0@example.com"].startswith("3 months after your training")
    bodies = {m.recipients[0]: m.message.get_content() for m in arrived}
    assert "/fr/suivi/" in bodies["trainee1@example.com"]
    assert "/en/follow-up/" in bodies["trainee0@example.com"]
    assert FollowUp.objects.filter(milestone=3, state=FollowUpState.SENT).count() == 4
    with at(THREE_MONTHS + dt.timedelta(days=1)):
        turns(worker())  # a new worker, as after a restart: nothing is sent again
    assert len(smtp.arrived) == arrived_before + 3
