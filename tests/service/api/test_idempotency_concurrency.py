"""T3, idempotency under concurrency (scaled to seconds), on SQLite and on PostgreSQL.

Every POST is sent three times at once with the same Idempotency-Key, by three client threads
(each with its own database connection) released together; one client in ten then acts as if
its answer was lost (a time-out) and sends the request again. Each key must have exactly one
effect, and every answer for it must be byte for byte the first one. A key used again with a
different body must answer 422 IDEMPOTENCY_KEY_REUSED, every time, and change nothing.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db import connections
from django.test import Client
from tests.conftest import applications
from tests.personas import EMPLOYER, OFFICER, SECOND_OFFICER

from jobgrant.service.accounts.models import ApiToken, User
from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Application, IdempotencyKey, State
from jobgrant.service.ledger.models import BudgetAccount, LedgerTransaction

pytestmark = pytest.mark.django_db(transaction=True)
MakeBody = Callable[..., dict[str, Any]]

KEYS = 60  # distinct POSTs, each sent 3 times at once
APPROVALS = 24
REUSED = 30
GROUPS_AT_ONCE = 8  # groups of three clients, so 24 client threads
LOST_ANSWER_EVERY = 10  # one key in ten: a client gives up on its answer and resends


@dataclass(frozen=True)
class Post:
    path: str
    key: str
    body: bytes


@dataclass(frozen=True)
class Answer:
    status: int
    content: bytes
    content_type: str
    replayed: bool


@dataclass
class Volley:
    answers: dict[str, list[Answer]] = field(default_factory=dict)
    sent: dict[str, list[bytes]] = field(default_factory=dict)  # the body behind each answer
    crashes: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def keep(self, post: Post, answer: Answer) -> None:
        with self.lock:
            self.answers.setdefault(post.key, []).append(answer)
            self.sent.setdefault(post.key, []).append(post.body)


def send(client: Client, token: str, post: Post) -> Answer:
    response = client.post(
        f"/api/v1{post.path}",
        data=post.body,
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": post.key},
    )
    return Answer(
        response.status_code,
        response.content,
        response["Content-Type"],
        response.get("Idempotent-Replayed") == "true",
    )


def fire(token: str, groups: list[list[Post]]) -> Volley:
    """Send the posts of each group at the same moment, one client thread per post."""
    volley, size = Volley(), len(groups[0])
    teams = [groups[i::GROUPS_AT_ONCE] for i in range(GROUPS_AT_ONCE)]
    threads = []
    for team_number, team in enumerate(teams):
        together = threading.Barrier(size)
        for member in range(size):
            seed = team_number * size + member
            threads.append(
                threading.Thread(target=_member, args=(token, team, member, together, volley, seed))
            )
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return volley


def _member(
    token: str,
    team: list[list[Post]],
    member: int,
    together: threading.Barrier,
    volley: Volley,
    seed: int,
) -> None:
    client, pause = Client(raise_request_exception=False), random.Random(seed)
    try:
        for group in team:
            post = group[member]
            together.wait(timeout=60)
            volley.keep(post, send(client, token, post))
            if member == 0 and lost_answer(post.key):
                time.sleep(pause.uniform(0, 0.020))
                volley.keep(post, send(client, token, post))  # its first answer was "lost"
    except Exception as error:
        with volley.lock:
            volley.crashes.append(f"{type(error).__name__}: {error}")
        together.abort()
    finally:
        connections.close_all()


def lost_answer(key: str) -> bool:
    return int(key.rsplit("-", 1)[1]) % LOST_ANSWER_EVERY == 0


def token_of(username: str) -> str:
    return ApiToken.issue(User.objects.get(username=username))


def encoded(body: dict[str, Any]) -> bytes:
    return json.dumps(body).encode()


def bodies(make_body: MakeBody, count: int) -> list[dict[str, Any]]:
    """Distinct application bodies: the tuition differs, so does the quote."""
    made = []
    for i in range(count):
        body = make_body()
        body["trainees"][0]["costs"]["tuition"] = f"{3000 + i}.00"
        made.append(body)
    return made


def assert_one_answer_per_key(volley: Volley, status: int) -> None:
    """All answers for a key are the same bytes, and exactly one of them did the work."""
    assert volley.crashes == []
    for key, answers in volley.answers.items():
        assert len(answers) == (4 if lost_answer(key) else 3), key
        first = next(a for a in answers if not a.replayed)
        assert [a.replayed for a in answers].count(False) == 1, key
        assert first.status == status, first.content
        assert {(a.status, a.content, a.content_type) for a in answers} == {
            (first.status, first.content, first.content_type)
        }, key


def test_each_application_sent_three_times_at_once_is_created_once(make_body: MakeBody) -> None:
    before = applications().count()
    posts = [
        Post("/applications", f"apply-{i}", encoded(b))
        for i, b in enumerate(bodies(make_body, KEYS))
    ]
    volley = fire(token_of(EMPLOYER.username), [[post] * 3 for post in posts])
    assert_one_answer_per_key(volley, 201)
    created = {key: json.loads(answers[0].content)["id"] for key, answers in volley.answers.items()}
    assert len(set(created.values())) == KEYS
    assert applications().count() == before + KEYS
    tuitions = Counter(
        a.request["trainees"][0]["costs"]["tuition"]
        for a in Application.objects.filter(pk__in=created.values())
    )
    assert tuitions == Counter(f"{3000 + i}.00" for i in range(KEYS))
    creations = AuditEntry.objects.filter(
        action="application.create", object_id__in=[str(i) for i in created.values()]
    )
    assert creations.count() == KEYS
    assert IdempotencyKey.objects.filter(key__startswith="apply-").count() == KEYS
    assert verify().ok


def recommended(make_body: MakeBody, count: int) -> list[int]:
    applicant = EMPLOYER.get()
    recommender = OFFICER.get()
    ids = []
    for body in bodies(make_body, count):
        application = actions.create_application(applicant, body)
        actions.submit_application(applicant, application)
        actions.recommend_application(recommender, application)
        ids.append(application.pk)
    return ids


def committed() -> int:
    return sum(
        BudgetAccount.objects.filter(jurisdiction="ON", fiscal_year="2026-27").values_list(
            "committed_cents", flat=True
        )
    )


def test_each_approval_sent_three_times_at_once_commits_the_budget_once(
    make_body: MakeBody,
) -> None:
    ids = recommended(make_body, APPROVALS)
    before = committed()
    posts = [Post(f"/applications/{pk}/approve", f"approve-{pk}", b"{}") for pk in ids]
    volley = fire(token_of(SECOND_OFFICER.username), [[post] * 3 for post in posts])
    assert_one_answer_per_key(volley, 200)
    approved = Application.objects.filter(pk__in=ids)
    assert {a.state for a in approved} == {State.APPROVED}
    assert committed() - before == sum(a.federal_cents + a.provincial_cents for a in approved)
    commits = Counter(
        LedgerTransaction.objects.filter(kind="commit", application__in=ids).values_list(
            "application_id", flat=True
        )
    )
    assert commits == Counter(dict.fromkeys(ids, 2))  # federal and provincial, once each
    assert (
        AuditEntry.objects.filter(
            action="application.approve", object_id__in=[str(i) for i in ids]
        ).count()
        == APPROVALS
    )
    assert verify().ok


def test_a_key_reused_with_a_changed_body_is_refused_every_time(make_body: MakeBody) -> None:
    token = token_of(EMPLOYER.username)
    originals = bodies(make_body, REUSED)
    first = fire(
        token,
        [[Post("/applications", f"reuse-{i}", encoded(b))] * 3 for i, b in enumerate(originals)],
    )
    assert_one_answer_per_key(first, 201)
    count = applications().count()
    changed = [
        [
            Post("/applications", f"reuse-{i}", encoded({**b, "region": region}))
            for region in ("3530", "3560", "3510")
        ]
        for i, b in enumerate(originals)
    ]
    reused = fire(token, changed)
    assert reused.crashes == []
    assert sorted(reused.answers) == sorted(f"reuse-{i}" for i in range(REUSED))
    answers = [a for group in reused.answers.values() for a in group]
    assert len(answers) == sum(4 if lost_answer(key) else 3 for key in reused.answers)
    assert {(a.status, json.loads(a.content)["code"]) for a in answers} == {
        (422, "IDEMPOTENCY_KEY_REUSED")
    }
    assert applications().count() == count


def test_two_bodies_racing_under_one_key_have_one_effect_and_the_other_is_refused(
    make_body: MakeBody,
) -> None:
    before = applications().count()
    token = token_of(EMPLOYER.username)
    pairs = [
        [
            Post("/applications", f"race-{i}", encoded(b)),
            Post("/applications", f"race-{i}", encoded({**b, "region": "3530"})),
        ]
        for i, b in enumerate(bodies(make_body, REUSED))
    ]
    volley = fire(token, [[*pair, pair[0]] for pair in pairs])
    assert volley.crashes == []
    for key, answers in volley.answers.items():
        winners = [
            body for a, body in zip(answers, volley.sent[key], strict=True) if a.status == 201
        ]
        refused = [a for a in answers if a.status == 422]
        assert len(winners) + len(refused) == len(answers) == (4 if lost_answer(key) else 3)
        assert len(set(winners)) == 1, key  # only the first body's copies succeed
        assert [a.replayed for a in answers if a.status == 201].count(False) == 1, key
        assert {json.loads(a.content)["code"] for a in refused} == {"IDEMPOTENCY_KEY_REUSED"}
    assert applications().count() == before + REUSED
