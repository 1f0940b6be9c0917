"""The metrics listeners of real processes, read as Prometheus reads them.

A `jobgrant serve` with two gunicorn workers and JOBGRANT_METRICS_PORT serves, on that port
only, what both workers counted (added up: prometheus-client's multiprocess mode) and the
database's gauges; the service's own port has no metrics path. A `jobgrant worker` with
JOBGRANT_WORKER_METRICS_PORT serves its own. Every metric docs/deployment.md lists is there,
with its labels.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from tests.live_servers import (
    JOBGRANT,
    Process,
    environment,
    free_port,
    get,
    migrated,
    serve,
    started,
    wait_until,
)

#: Every family the server's listener serves, with the labels of its samples.
SERVER_FAMILIES = {
    "jobgrant_http_request_duration_seconds": {"route", "method"},
    "jobgrant_http_responses": {"route", "method", "status"},
    "jobgrant_outbox_messages": {"state"},
    "jobgrant_outbox_oldest_age_seconds": {"state"},
    "jobgrant_tasks_due": {"task"},
    "jobgrant_tasks_oldest_due_age_seconds": {"task"},
    "jobgrant_payment_batches": {"state"},
    "jobgrant_payment_batch_oldest_age_seconds": {"state"},
    "jobgrant_database_up": set(),
}
#: Declared by the server too, with samples once something happened.
SERVER_COUNTERS = {
    "jobgrant_lockouts": {"via"},
    "jobgrant_rate_limited": {"limit"},
    "jobgrant_refusals": {"code", "status"},
}
WORKER_FAMILIES = {
    "jobgrant_worker_heartbeat_timestamp_seconds": {"worker"},
    "jobgrant_worker_periodic_job_runs": {"job", "outcome"},
    "jobgrant_worker_periodic_job_last_success_timestamp_seconds": {"job"},
    "jobgrant_worker_deliveries": {"kind", "outcome"},
    "jobgrant_worker_task_lag_seconds": {"task"},
}


DEPLOYMENT = Path(__file__).resolve().parents[3] / "docs" / "deployment.md"


def documented() -> dict[str, tuple[str, set[str]]]:
    """The metrics table of docs/deployment.md: each family (a counter's name without its
    `_total`, as the parser gives it) with who serves it ("server" or "worker") and its
    labels (the names in backquotes outside parentheses)."""
    section = DEPLOYMENT.read_text().split("\n## Metrics\n", 1)[1].split("\n## ", 1)[0]
    found: dict[str, tuple[str, set[str]]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        named = re.match(r"`(jobgrant_[a-z_]+)`(.*)", cells[0]) if len(cells) == 3 else None
        if named is None:
            continue
        name = named.group(1).removesuffix("_total")
        labels = set(re.findall(r"`([a-z_]+)`", re.sub(r"\([^)]*\)", "", cells[1])))
        found[name] = ("worker" if "(worker" in named.group(2) else "server", labels)
    return found


def served_as_documented(found: dict[str, list[dict[str, object]]], who: str) -> None:
    """Every jobgrant family the listener serves samples of is in the table, with its labels,
    and every one the table gives this kind of process is served (declared: a counter nothing
    has counted yet has no sample). A family declared in the process but never counted there
    may be served without a sample (the server's, imported by a worker); a counter's `_created`
    gauge (prometheus-client's, in the classic text format) goes with its counter."""
    table = {name: labels for name, (by, labels) in documented().items() if by == who}
    declared = {
        name: samples
        for name, samples in found.items()
        if name.startswith("jobgrant_") and not name.endswith("_created")
    }
    counted = {name for name, samples in declared.items() if samples}
    assert counted <= set(table), f"served, not in docs/deployment.md: {counted - set(table)}"
    assert set(table) <= set(declared), (
        f"in docs/deployment.md, not served: {set(table) - set(declared)}"
    )
    for name in counted:
        labels = labels_of(declared[name])
        assert labels <= table[name], f"{name}: labels {labels}, documented {table[name]}"


def test_the_documented_table_is_read() -> None:
    table = documented()
    assert table["jobgrant_http_responses"] == ("server", {"route", "method", "status"})
    assert table["jobgrant_lockouts"] == ("server", {"via"})
    assert table["jobgrant_database_up"] == ("server", set())
    assert table["jobgrant_worker_deliveries"] == ("worker", {"kind", "outcome"})


def families(port: int) -> dict[str, list[dict[str, object]]]:
    status, headers, body = get(port, "/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    found: dict[str, list[dict[str, object]]] = {}
    for family in text_string_to_metric_families(body.decode()):
        found[family.name] = [
            {"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples
        ]
    return found


def labels_of(samples: list[dict[str, object]]) -> set[str]:
    names: set[str] = set()
    for sample in samples:
        names |= {k for k in sample["labels"] if k != "le"}  # type: ignore[attr-defined]
    return names


@pytest.fixture(scope="module")
def var(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return migrated(tmp_path_factory.mktemp("metrics"))


@pytest.fixture(scope="module")
def server(var: Path) -> Iterator[tuple[Process, int]]:
    metrics = free_port()
    with serve(var, JOBGRANT_METRICS_PORT=str(metrics)) as running:
        yield running, metrics


def test_the_server_serves_its_metrics_on_their_own_port_only(
    server: tuple[Process, int],
) -> None:
    running, metrics = server
    before = families(metrics)
    counted = sum(
        s["value"]
        for s in before.get("jobgrant_http_responses", [])
        if s["labels"] == {"route": "healthz", "method": "GET", "status": "200"}  # type: ignore[comparison-overlap]
    )
    for _ in range(12):  # two workers answer them: the listener adds both workers' counts
        assert get(running.port, "/healthz")[0] == 200
    assert get(running.port, "/en/")[0] == 200
    assert get(running.port, "/en/no-such-page/")[0] == 404
    assert get(running.port, "/metrics")[0] == 404  # not on the service's port
    assert get(running.port, "/api/v1/applications/1")[0] == 401  # a refusal, audited
    found = families(metrics)
    for name, labels in SERVER_FAMILIES.items():
        assert name in found, f"{name} missing"
        assert found[name], f"{name} has no sample"
        assert labels_of(found[name]) == labels, name
    for name, labels in SERVER_COUNTERS.items():
        assert name in found, f"{name} missing"
        assert found[name], f"{name} has no sample"
        assert labels_of(found[name]) == labels, name
    vias = {s["labels"]["via"] for s in found["jobgrant_lockouts"]}  # type: ignore[index]
    assert vias == {"page", "api"}  # at 0 before the first lockout
    limits = {s["labels"]["limit"] for s in found["jobgrant_rate_limited"]}  # type: ignore[index]
    assert {"sign_in", "token", "password_reset", "register", "submit"} <= limits
    healthz = [
        s
        for s in found["jobgrant_http_responses"]
        if s["labels"] == {"route": "healthz", "method": "GET", "status": "200"}  # type: ignore[comparison-overlap]
    ]
    assert sum(s["value"] for s in healthz) - counted == 12  # type: ignore[misc]
    routes = {s["labels"]["route"] for s in found["jobgrant_http_responses"]}  # type: ignore[index]
    assert {"healthz", "web:landing", "unmatched"} <= routes
    states = {s["labels"]["state"] for s in found["jobgrant_outbox_messages"]}  # type: ignore[index]
    assert states == {"queued", "sending", "sent", "failed"}
    batches = {s["labels"]["state"] for s in found["jobgrant_payment_batches"]}  # type: ignore[index]
    assert batches == {"built", "authorized", "exported", "reconciled"}
    assert found["jobgrant_database_up"][0]["value"] == 1
    served_as_documented(found, "server")


def test_the_access_log_is_json_with_the_request_id(server: tuple[Process, int]) -> None:
    running, _ = server
    status, headers, _ = get(running.port, "/healthz", {"X-Request-ID": "probe-5150"})
    assert status == 200 and headers["X-Request-ID"] == "probe-5150"
    deadline = time.monotonic() + 10
    while "probe-5150" not in running.output() and time.monotonic() < deadline:
        time.sleep(0.1)
    lines = [json.loads(line) for line in running.output().splitlines() if "probe-5150" in line]
    assert [line["logger"] for line in lines] == ["gunicorn.access"]
    assert lines[0]["path"] == "/healthz" and lines[0]["status"] == 200
    for line in running.output().splitlines():
        if line.startswith("{"):
            json.loads(line)  # every line of the server's own is one JSON object


def test_the_worker_serves_its_own_metrics(var: Path) -> None:
    port = free_port()
    env = environment(var, JOBGRANT_WORKER_METRICS_PORT=str(port))
    command = [str(JOBGRANT), "worker", "--interval", "0.2", "--worker-id", "metrics-w1"]
    with started(command, env, var / "worker.log", port) as worker:
        wait_until(worker, "/metrics")
        found: dict[str, list[dict[str, object]]] = {}
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # until its first turn, periodic jobs included, ended
            found = families(port)
            if found.get("jobgrant_worker_periodic_job_runs"):
                break
            time.sleep(0.2)
    for name, labels in WORKER_FAMILIES.items():
        assert name in found, f"{name} missing"
        assert labels_of(found[name]) <= labels, name
    beats = found["jobgrant_worker_heartbeat_timestamp_seconds"]
    assert [s["labels"] for s in beats] == [{"worker": "metrics-w1"}]
    jobs = {s["labels"]["job"] for s in found["jobgrant_worker_periodic_job_runs"]}  # type: ignore[index]
    assert jobs, "the periodic jobs run at the worker's first turn"
    served_as_documented(found, "worker")
