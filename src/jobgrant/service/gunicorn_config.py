"""gunicorn's configuration for `jobgrant serve` (`--config python:<this module>`): no Server
banner, and the metrics listener in the master (JOBGRANT_METRICS_PORT).

gunicorn writes `Server: gunicorn` on every answer, with no setting to leave it out: the banner
tells an attacker which server to look up (ASVS 13.4.6). Its response's default headers
are taken without that line. A reverse proxy in front (docs/deployment.md) may add its own.
"""

from __future__ import annotations

from typing import Any

from gunicorn.http import wsgi  # type: ignore[import-untyped]


def _without_server_banner(default_headers: Any) -> Any:
    def headers(self: Any) -> list[str]:
        return [line for line in default_headers(self) if not line.startswith("Server:")]

    return headers


if not getattr(wsgi.Response.default_headers, "jobgrant_without_banner", False):
    wsgi.Response.default_headers = _without_server_banner(wsgi.Response.default_headers)
    wsgi.Response.default_headers.jobgrant_without_banner = True


def when_ready(server: Any) -> None:
    """The metrics listener, in the master, once it listens (observability/endpoint.py)."""
    from jobgrant.service.observability import endpoint

    port = endpoint.configured_port(endpoint.PORT)
    if port is not None:
        endpoint.start_server_listener(port)
        server.log.info("metrics on http://%s:%s/metrics", endpoint.host(), port)


def child_exit(server: Any, worker: Any) -> None:
    from jobgrant.service.observability import endpoint

    endpoint.worker_exited(worker.pid)
