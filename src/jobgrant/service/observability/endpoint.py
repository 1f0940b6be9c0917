"""The metrics listeners: a port of their own, apart from the service's, that only the
operator's network reaches.

The service's pages and API have no metrics path at all, so nothing the proxy forwards can read
them. A server's gunicorn master listens on JOBGRANT_METRICS_HOST:JOBGRANT_METRICS_PORT (host
127.0.0.1 unless set: bind it to the monitoring network's interface) and serves what its workers
counted (multiprocess mode) with the database's gauges; a `jobgrant worker` listens on
JOBGRANT_METRICS_HOST:JOBGRANT_WORKER_METRICS_PORT and serves its own. Unset, no listener.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

PORT = "JOBGRANT_METRICS_PORT"
WORKER_PORT = "JOBGRANT_WORKER_METRICS_PORT"
HOST = "JOBGRANT_METRICS_HOST"
MULTIPROC = "PROMETHEUS_MULTIPROC_DIR"


def configured_port(variable: str) -> int | None:
    value = os.environ.get(variable, "").strip()
    return int(value) if value else None


def host() -> str:
    return os.environ.get(HOST, "").strip() or "127.0.0.1"


def prepare_server_metrics(var_dir: Path, port: int) -> None:
    """Before gunicorn starts (`jobgrant serve`): an empty directory of this server's own for
    its workers' metric files (a previous run's would add its counts to this one's)."""
    directory = var_dir / "metrics" / str(port)
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    os.environ[MULTIPROC] = str(directory)


def start_server_listener(port: int) -> Any:
    """In the gunicorn master (gunicorn_config.when_ready): the workers' metrics added up, and
    the database's gauges."""
    from prometheus_client import CollectorRegistry, start_http_server
    from prometheus_client.multiprocess import MultiProcessCollector

    from jobgrant.service.observability.collectors import DatabaseCollector

    registry = CollectorRegistry()
    MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    registry.register(DatabaseCollector())
    return start_http_server(port, addr=host(), registry=registry)


def worker_exited(pid: int) -> None:
    """gunicorn_config.child_exit: a worker's live gauges go with it (its counts stay)."""
    if os.environ.get(MULTIPROC):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]


def start_worker_listener(port: int) -> Any:
    """In `jobgrant worker`: its own process's metrics (prometheus-client's default registry)."""
    from prometheus_client import start_http_server

    return start_http_server(port, addr=host())
