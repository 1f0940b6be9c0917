"""The rate limits counted in Redis (`JOBGRANT_CACHE_URL=redis://…`, docs/deployment.md), on a
real Redis server the test starts on a port of its own: the limit answers 429 past its figure,
its counters are Redis's (nothing in the database's cache table), and requests made at the same
instant are counted exactly, which the database's cache does not promise.

Redis is installed by `make test` (redis-server); without it the test is skipped, except in CI
where it fails. Until 2026-12-05 the documented setting failed on every request: the `redis`
client library was not among the project's dependencies.
"""

from __future__ import annotations

import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from tests.live_servers import debian_program, free_port

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A Redis server of the test's own, in memory only, stopped afterwards."""
    import redis

    program = debian_program("redis-server", "/usr/bin/redis-server", "redis-server")
    port = free_port()
    in_memory = ("--save", "", "--appendonly", "no", "--dir", str(tmp_path))
    server = subprocess.Popen(
        [program, "--port", str(port), "--bind", "127.0.0.1", *in_memory],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        for _ in range(100):
            try:
                redis.Redis.from_url(url).ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture
def limits_on_redis(settings, redis_url: str) -> str:
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url}
    }
    settings.JOBGRANT_RATES = dict(settings.PRODUCTION_RATES)
    return redis_url


def cache_table_rows() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM jobgrant_cache")
        return int(cursor.fetchone()[0])


def test_registrations_past_their_rate_are_refused_and_counted_in_redis(limits_on_redis) -> None:
    import redis

    before = cache_table_rows()
    client = Client()
    statuses = [client.post("/en/register/", {}).status_code for _ in range(11)]
    assert statuses == [422] * 10 + [429]  # 422: the empty form's fields named
    assert int(client.post("/fr/inscription/", {})["Retry-After"]) > 0
    assert redis.Redis.from_url(limits_on_redis).dbsize() > 0
    assert cache_table_rows() == before


def test_requests_at_the_same_instant_are_counted_exactly(limits_on_redis) -> None:
    """Twenty-five registrations from one address at once, eight threads: exactly ten reach the
    form (the limit is 10 an hour), fifteen are refused."""

    def register(_: int) -> int:
        try:
            return Client().post("/en/register/", {}).status_code
        finally:
            connection.close()  # each thread's own connection

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = Counter(pool.map(register, range(25)))
    assert statuses == {422: 10, 429: 15}
