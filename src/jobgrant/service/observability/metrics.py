"""The service's metrics (Prometheus), defined once; every process counts its own.

The servers' gunicorn workers write theirs to files in PROMETHEUS_MULTIPROC_DIR (prometheus-client's
multiprocess mode, set by `jobgrant serve`), which the gunicorn master adds up and serves on its
own listener (JOBGRANT_METRICS_PORT, endpoint.py) with the database's gauges (collectors.py). A
`jobgrant worker` serves its own on JOBGRANT_WORKER_METRICS_PORT. The list, with the alerts to
set on them, is in docs/deployment.md ("Metrics"); tests/service/test_metrics.py reads both
endpoints of real processes.

Labels are bounded: a route is the URL pattern's name (never the path, which holds ids and
tokens), a refusal its code, a limit its name.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from prometheus_client import Counter, Gauge, Histogram

REQUEST_SECONDS = Histogram(
    "jobgrant_http_request_duration_seconds",
    "Time from the request reaching the application to its answer, by route and method",
    ["route", "method"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.2, 0.4, 0.8, 1.5, 3.0, 6.0, 12.0),
)
RESPONSES = Counter(
    "jobgrant_http_responses",
    "Answers by route, method and status code",
    ["route", "method", "status"],
)
LOCKOUTS = Counter(
    "jobgrant_lockouts",
    "Sign-in attempts refused by the lockout (django-axes), by channel (page or api)",
    ["via"],
)
RATE_LIMITED = Counter(
    "jobgrant_rate_limited",
    "Requests refused by a rate limit, by the limit's name",
    ["limit"],
)
REFUSALS = Counter(
    "jobgrant_refusals",
    "Refusals, by code and HTTP status: each one the audit trail records, and the API's refusals"
    " of anonymous callers (which only the request log keeps)",
    ["code", "status"],
)
DELIVERIES = Counter(
    "jobgrant_worker_deliveries",
    "Outbox delivery attempts by the worker, by message kind and outcome",
    ["kind", "outcome"],
)
TASK_LAG = Histogram(
    "jobgrant_worker_task_lag_seconds",
    "Time from a task being due (enqueued, or its run-after time) to a worker starting it",
    ["task"],
    buckets=(0.1, 0.5, 1.0, 2.5, 5.0, 15.0, 30.0, 60.0, 300.0, 900.0),
)
WORKER_HEARTBEAT = Gauge(
    "jobgrant_worker_heartbeat_timestamp_seconds",
    "When the worker last went round its loop (Unix time)",
    ["worker"],
)
PERIODIC_RUNS = Counter(
    "jobgrant_worker_periodic_job_runs",
    "Runs of the periodic jobs, by job and outcome (ok or error)",
    ["job", "outcome"],
)
PERIODIC_LAST_OK = Gauge(
    "jobgrant_worker_periodic_job_last_success_timestamp_seconds",
    "When a periodic job last finished without error (Unix time)",
    ["job"],
)

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED = "unmatched"  # no URL pattern: a 404 or a page refused before resolving
STATIC = "static"  # a static file, answered by WhiteNoise before any URL is resolved


def route_of(request: HttpRequest) -> str:
    """The URL pattern's name (namespace:name), or its route when it has no name. An API path
    is one pattern for several operations (Django Ninja's, told apart by the method), named
    after the first of them: it is labelled by its route (`api/v1/applications/<id>`)."""
    match = getattr(request, "resolver_match", None)
    if match is not None:
        if getattr(match.func, "__qualname__", "").startswith("PathView."):
            return str(match.route)
        return match.view_name or match.route or UNMATCHED
    if request.path.startswith("/" + settings.STATIC_URL.lstrip("/")):
        return STATIC
    return UNMATCHED


def known_labels_at_zero() -> None:
    """The counters whose labels are known in advance start at 0 in each process, so that a
    dashboard shows 0 (and `rate()` starts) before the first lockout or limit, rather than no
    series at all."""
    for via in ("page", "api"):
        LOCKOUTS.labels(via)
    for name in settings.JOBGRANT_RATES:
        RATE_LIMITED.labels(name)


class RequestMetricsMiddleware:
    """Times every answer and counts it by route, method and status."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        known_labels_at_zero()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        route = route_of(request)
        method = request.method if request.method in METHODS else "other"
        REQUEST_SECONDS.labels(route, method).observe(time.perf_counter() - started)
        RESPONSES.labels(route, method, str(response.status_code)).inc()
        return response
