"""T18's rate limits, at their production figures (the test settings raise them for the rest of
the suite, which signs the same people in hundreds of times a minute): sign-in, token, password
reset and submissions answer 429 beyond their rate, with Retry-After, and never a 5xx."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from tests.conftest import application_body
from tests.personas import EMPLOYER

pytestmark = pytest.mark.django_db


@pytest.fixture
def production_rates(settings):
    settings.JOBGRANT_RATES = dict(settings.PRODUCTION_RATES)
    return settings.JOBGRANT_RATES


def test_the_documented_figures() -> None:
    assert settings.PRODUCTION_RATES == {
        "sign_in": "20/m",
        "token": "20/m",
        "password_reset": "5/h",
        "register": "10/h",
        "submit": "30/h",
        "second_factor": "10/m",
    }


def test_sign_in_posts_per_address(demo: None, production_rates) -> None:
    client, statuses = Client(), Counter()
    for i in range(25):  # one username each: the lockout (per account) is not what answers
        answer = client.post("/en/sign-in/", {"username": f"someone-{i}", "password": "x"})
        statuses[answer.status_code] += 1
    # The first 20 reach the form; 10 failures from one address also lock it (429 as well).
    assert statuses[429] >= 5 and set(statuses) <= {200, 429}
    from_elsewhere = Client(REMOTE_ADDR="192.0.2.44").get("/en/sign-in/")
    assert from_elsewhere.status_code == 200


def test_registrations_per_address(demo: None, production_rates) -> None:
    """Ten registrations an hour from one address; the eleventh post is the 429 page, whatever
    it holds (here an empty form, refused for its fields until then), and writes nothing."""
    client = Client()
    statuses = [client.post("/en/register/", {}).status_code for _ in range(11)]
    assert statuses[:10] == [422] * 10 and statuses[10] == 429  # 422: the fields named
    limited = client.post("/fr/inscription/", {})
    assert limited.status_code == 429 and int(limited["Retry-After"]) > 0
    assert "Trop de" in limited.content.decode()


def test_token_requests_per_address(as_user, production_rates) -> None:
    api, statuses = as_user(None), Counter()
    for _ in range(21):
        statuses[api.post("/auth/token", {"username": "x", "password": "y"}).status_code] += 1
    limited = api.post("/auth/token", {"username": "x", "password": "y"})
    assert limited.status_code == 429 and int(limited["Retry-After"]) > 0
    assert limited.json()["code"] in {"RATE_LIMITED", "LOCKED_OUT"}
    assert statuses[429] >= 1 and not any(status >= 500 for status in statuses)


def test_password_reset_requests_per_address_and_per_email(demo: None, production_rates) -> None:
    client = Client()
    statuses = [
        client.post("/en/password-reset/", {"email": f"who{i}@example.com"}).status_code
        for i in range(6)
    ]
    assert statuses == [302] * 5 + [429]
    one_email = [
        Client(REMOTE_ADDR=f"192.0.2.{i + 1}")
        .post("/en/password-reset/", {"email": "employer@example.com"})
        .status_code
        for i in range(6)
    ]
    assert one_email == [302] * 5 + [429]
    assert (
        "Try again in" in client.post("/en/password-reset/", {"email": "a@b.ca"}).content.decode()
    )


def test_submissions_per_employer(as_user, production_rates, record_property) -> None:
    """1,000 rapid submissions by one employer: 30 go through in the hour, 970 answer 429 (the
    first refusal checked against the published API document, the rest counted)."""
    api, statuses = as_user(EMPLOYER), Counter()
    for i in range(31):
        statuses[api.post("/applications", application_body(), key=f"burst-{i}").status_code] += 1
    assert statuses == {201: 30, 429: 1}
    body, headers = json.dumps(application_body()), api.headers
    for i in range(31, 1000):
        answer = api.client.post(
            "/api/v1/applications",
            body,
            content_type="application/json",
            headers={**headers, "Idempotency-Key": f"burst-{i}"},
        )
        statuses[answer.status_code] += 1
    assert statuses == {201: 30, 429: 970}, statuses
    record_property("figures", f"T18 submissions: {dict(statuses)}")


def _database_cache(**options: int) -> object:
    from django.core.cache.backends.db import DatabaseCache

    return DatabaseCache("jobgrant_cache", {"OPTIONS": options})


def test_a_full_cache_forgets_no_live_count_only_the_expired_ones() -> None:
    """Django's database cache, past its MAX_ENTRIES, deletes the expired entries and then, by
    default, a third of the live ones (the first keys): a rate limit's count among them. Ours
    deletes only the expired ones; Django's default, beside it, shows what it would lose."""
    configured = settings.CACHES["default"]
    if "DatabaseCache" not in configured["BACKEND"]:
        pytest.skip("the cache is not the database's here")
    ours = _database_cache(**{**configured["OPTIONS"], "MAX_ENTRIES": 5})
    defaults = _database_cache(MAX_ENTRIES=5)
    for cache, keeps in ((ours, True), (defaults, False)):
        cache.clear()
        cache.set("0-sign-in-count", 7, 60)  # the first key in order: Django culls it first
        cache.set("gone", 1, 0)  # expired at once
        for n in range(12):
            cache.set(f"k{n}", n, 60)
        assert (cache.get("0-sign-in-count") == 7) is keeps
        if keeps:
            assert all(cache.get(f"k{n}") == n for n in range(12))
            assert cache.get("gone") is None
            with connection.cursor() as cursor:  # and its row was deleted, not only ignored
                cursor.execute("SELECT COUNT(*) FROM jobgrant_cache")
                assert cursor.fetchone()[0] == 13
    ours.clear()
