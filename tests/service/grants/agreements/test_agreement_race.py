"""The acceptance and the expiry race: an offer is never accepted after it expired, never both
accepted and expired, and its commitment is released exactly once when it expires, with two
expiry workers running at once (threads, each with its own database connection).

Every offer's accept-by time is set a few seconds ahead; one thread per offer accepts it at a
random moment up to two seconds either side of that time, while two threads run expire_offers
over and over (on the 2-core CI machine about half the offers end each way).
Written for PostgreSQL (row locks); on SQLite every transaction begins IMMEDIATE, so the same
test checks that writers simply take turns.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import threading
import time
from dataclasses import dataclass, field

import pytest
from django.db import connections
from django.db.models import Sum
from django.utils import timezone
from tests.personas import EMPLOYER
from tests.service.grants.agreement_helpers import ALL_CONFIRMED, approved

from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.agreements.actions import accept_agreement, expire_offers
from jobgrant.service.grants.agreements.document import terms_hash
from jobgrant.service.grants.models.agreements import Agreement, AgreementVersion
from jobgrant.service.ledger.models import Posting

pytestmark = pytest.mark.django_db(transaction=True)
OFFERS = 12
log = logging.getLogger(__name__)
AHEAD = dt.timedelta(seconds=8)  # time for every thread to start and wait
SPREAD = 2.0  # acceptances land up to this many seconds either side of the deadline


@dataclass
class Outcomes:
    accepted: list[int] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    expired: int = 0
    crashes: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _accept(agreement_id: int, at: dt.datetime, start: threading.Barrier, seen: Outcomes) -> None:
    try:
        employer = EMPLOYER.get()
        agreement = Agreement.objects.select_related("application").get(pk=agreement_id)
        start.wait()
        time.sleep(max(0.0, (at - timezone.now()).total_seconds()))
        try:
            accept_agreement(employer, agreement, "Ada Tremblay", "Owner", ALL_CONFIRMED)
        except ServiceError as error:
            with seen.lock:
                seen.refused.append(error.code)
        else:
            with seen.lock:
                seen.accepted.append(agreement_id)
    except Exception as error:  # a crash fails the test, not the thread silently
        with seen.lock:
            seen.crashes.append(f"{type(error).__name__}: {error}")
    finally:
        connections.close_all()


def _expire(until: dt.datetime, start: threading.Barrier, seen: Outcomes) -> None:
    try:
        start.wait()
        while timezone.now() < until:
            count = expire_offers()
            with seen.lock:
                seen.expired += count
            time.sleep(0.005)
    except Exception as error:
        with seen.lock:
            seen.crashes.append(f"{type(error).__name__}: {error}")
    finally:
        connections.close_all()


def test_an_offer_is_never_accepted_after_it_expired_even_in_a_race(demo) -> None:
    agreements = [approved() for _ in range(OFFERS)]
    deadline = timezone.now() + AHEAD
    for version in AgreementVersion.objects.filter(agreement__in=agreements):
        # As if issued with that deadline: its terms' hash is taken again (the document is
        # rendered from the terms on first read, and refused if they differ from the hash).
        version.accept_by = deadline
        version.terms_sha256 = terms_hash(version)
        version.save(update_fields=["accept_by", "terms_sha256"])
    seen, jitter = Outcomes(), random.Random(20261201)
    start = threading.Barrier(OFFERS + 2)
    until = deadline + dt.timedelta(seconds=SPREAD + 1)
    moments = [deadline + dt.timedelta(seconds=jitter.uniform(-SPREAD, SPREAD)) for _ in agreements]
    threads = [
        threading.Thread(target=_accept, args=(a.pk, at, start, seen))
        for a, at in zip(agreements, moments, strict=True)
    ] + [threading.Thread(target=_expire, args=(until, start, seen)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen.crashes == []
    expire_offers()  # whatever the workers left
    states = dict(Agreement.objects.values_list("pk", "state"))
    accepted = {pk for pk, state in states.items() if state == "accepted"}
    expired = {pk for pk, state in states.items() if state == "expired"}
    log.info("accepted %d, expired %d, refused %s", len(accepted), len(expired), seen.refused)
    assert accepted | expired == set(states) and not accepted & expired
    assert accepted == set(seen.accepted)
    assert set(seen.refused) <= {"OFFER_EXPIRED", "AGREEMENT_NOT_OPEN"}
    assert len(seen.refused) == len(expired)
    for version in AgreementVersion.objects.filter(agreement_id__in=accepted):
        assert version.accepted_at is not None and version.accepted_at <= version.accept_by
    released = {
        a.pk: Posting.objects.filter(
            transaction__kind="release",
            transaction__application_id=a.application_id,
            bucket="available",
        ).aggregate(total=Sum("amount_cents"))["total"]
        for a in agreements
    }
    assert all(released[pk] == 1_000_000 for pk in expired)  # once: federal + provincial
    assert all(released[pk] is None for pk in accepted)
    assert AuditEntry.objects.filter(action="agreement.expire").count() == len(expired)
    assert verify().ok
