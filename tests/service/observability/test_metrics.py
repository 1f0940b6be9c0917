"""The service's counters, counted where they happen (in one process; test_metrics_endpoint.py
reads them through the listeners of real processes): answers by route (the URL pattern's name,
never the path), method and status; lockouts; rate limits; refusals by code."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.test import Client
from prometheus_client import REGISTRY
from tests.personas import EMPLOYER, create_personas

pytestmark = pytest.mark.django_db


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def total(name: str, **labels: str) -> float:
    """The sum of a family's samples whose labels include `labels`."""
    found = 0.0
    for family in REGISTRY.collect():
        for sample in family.samples:
            if sample.name == name and labels.items() <= sample.labels.items():
                found += sample.value
    return found


def test_answers_are_counted_and_timed_by_route_not_by_path(demo: None) -> None:
    before = {
        "health": value(
            "jobgrant_http_responses_total", route="healthz", method="GET", status="200"
        ),
        "landing": value(
            "jobgrant_http_responses_total", route="web:landing", method="GET", status="200"
        ),
        "missing": value(
            "jobgrant_http_responses_total", route="unmatched", method="GET", status="404"
        ),
        "timed": value(
            "jobgrant_http_request_duration_seconds_count", route="healthz", method="GET"
        ),
        "odd": total("jobgrant_http_responses_total", method="other"),
    }
    client = Client()
    for _ in range(3):
        assert client.get("/healthz").status_code == 200
    assert client.get("/en/").status_code == 200
    assert client.get("/en/no-such-page/12345/").status_code == 404
    client.generic("BREW", "/healthz")  # a method nobody declared: one label for all of them
    after = value("jobgrant_http_responses_total", route="healthz", method="GET", status="200")
    assert after - before["health"] == 3
    landing = value(
        "jobgrant_http_responses_total", route="web:landing", method="GET", status="200"
    )
    assert landing - before["landing"] == 1
    missing = value("jobgrant_http_responses_total", route="unmatched", method="GET", status="404")
    assert missing - before["missing"] == 1
    timed = value("jobgrant_http_request_duration_seconds_count", route="healthz", method="GET")
    assert timed - before["timed"] == 3
    assert total("jobgrant_http_responses_total", method="other") - before["odd"] == 1
    routes = {
        sample.labels["route"]
        for family in REGISTRY.collect()
        if family.name == "jobgrant_http_responses"
        for sample in family.samples
    }
    assert not any(route.startswith("/") or "12345" in route for route in routes), routes
    assert "BREW" not in {
        sample.labels["method"]
        for family in REGISTRY.collect()
        if family.name == "jobgrant_http_responses"
        for sample in family.samples
    }


def test_an_api_route_is_its_pattern_with_the_method(as_user: Any) -> None:
    """One API pattern serves several operations (GET lists, POST creates): its route and the
    method name the operation; the id in the path is the pattern's, never the value."""
    route = "api/v1/applications/<application_id>"
    before = total("jobgrant_http_responses_total", route=route, method="GET")
    assert as_user(EMPLOYER).get("/applications/987654").status_code == 404
    assert total("jobgrant_http_responses_total", route=route, method="GET") - before == 1
    listed = total("jobgrant_http_responses_total", route="api/v1/applications", method="GET")
    assert as_user(EMPLOYER).get("/applications").status_code == 200
    after = total("jobgrant_http_responses_total", route="api/v1/applications", method="GET")
    assert after - listed == 1


def test_refusals_are_counted_by_code_and_status(as_user: Any) -> None:
    answer = as_user(EMPLOYER).get("/applications/987654")
    assert answer.status_code == 404
    code = answer.json()["code"]
    before = value("jobgrant_refusals_total", code=code, status="404")
    assert as_user(EMPLOYER).get("/applications/987655").status_code == 404
    assert value("jobgrant_refusals_total", code=code, status="404") - before == 1


def test_rate_limits_are_counted_by_name(as_user: Any, settings: Any) -> None:
    settings.JOBGRANT_RATES = dict(settings.PRODUCTION_RATES)
    before = value("jobgrant_rate_limited_total", limit="token")
    api = as_user(None)
    statuses = [
        api.post("/auth/token", {"username": f"nobody-{i}", "password": "x"}).status_code
        for i in range(21)
    ]
    assert statuses.count(429) >= 1
    assert value("jobgrant_rate_limited_total", limit="token") - before >= 1


def test_lockouts_are_counted_by_channel(as_user: Any) -> None:
    before = value("jobgrant_lockouts_total", via="api")
    api = as_user(None)
    for i in range(10):
        api.post("/auth/token", {"username": EMPLOYER.username, "password": f"wrong-{i}"})
    assert (
        api.post("/auth/token", {"username": EMPLOYER.username, "password": "x"}).status_code == 429
    )
    assert value("jobgrant_lockouts_total", via="api") - before >= 1


CALLS: list[str] = []


def fine() -> None:
    CALLS.append("fine")


def broken() -> None:
    raise RuntimeError("this job is broken")


@pytest.mark.django_db(transaction=True)
def test_the_worker_counts_its_turns_tasks_deliveries_and_periodic_jobs(settings: Any) -> None:
    from tests.service.notifications.conftest import queued

    from jobgrant.service.notifications.worker import OutboxWorker, PeriodicJob

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    create_personas()  # a transactional test starts from an empty database
    before = {
        "sent": value(
            "jobgrant_worker_deliveries_total", kind="application_received", outcome="sent"
        ),
        "lag": total(
            "jobgrant_worker_task_lag_seconds_count",
            task="jobgrant.service.notifications.delivery_actions.deliver_message",
        ),
        "ok": value("jobgrant_worker_periodic_job_runs_total", job="fine", outcome="ok"),
        "error": value("jobgrant_worker_periodic_job_runs_total", job="broken", outcome="error"),
    }
    queued()
    here = __name__
    jobs = [
        PeriodicJob("fine", f"{here}:fine", 3600),
        PeriodicJob("broken", f"{here}:broken", 3600),
    ]
    worker = OutboxWorker("metrics-worker", interval=0, jobs=jobs)
    assert worker.turn() == 1
    sent = value("jobgrant_worker_deliveries_total", kind="application_received", outcome="sent")
    assert sent - before["sent"] == 1
    lag = total(
        "jobgrant_worker_task_lag_seconds_count",
        task="jobgrant.service.notifications.delivery_actions.deliver_message",
    )
    assert lag - before["lag"] == 1
    ok = value("jobgrant_worker_periodic_job_runs_total", job="fine", outcome="ok")
    assert ok - before["ok"] == 1
    error = value("jobgrant_worker_periodic_job_runs_total", job="broken", outcome="error")
    assert error - before["error"] == 1
    assert value("jobgrant_worker_periodic_job_last_success_timestamp_seconds", job="fine") > 0
    assert value("jobgrant_worker_periodic_job_last_success_timestamp_seconds", job="broken") == 0
    beat = value("jobgrant_worker_heartbeat_timestamp_seconds", worker="metrics-worker")
    assert abs(beat - time.time()) < 60
