"""/healthz answers 200 when the database answers and 503 when it does not, saying nothing more.

The 503 is a real gunicorn, started as `jobgrant serve` starts it, on a database that does not
answer (a PostgreSQL port nobody listens on): its health check is what a proxy would see.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

import pytest
from django.test import Client

from jobgrant.service.commands import gunicorn_arguments


@pytest.mark.django_db
def test_health_answers_ok_anonymously_and_is_never_cached() -> None:
    answer = Client().get("/healthz")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/json"
    assert answer.json() == {"status": "ok"}
    assert "no-store" in answer["Cache-Control"]
    assert Client().head("/healthz").status_code == 200


@pytest.mark.django_db
def test_health_refuses_unsafe_methods() -> None:
    assert Client().put("/healthz").status_code == 405
    assert Client(enforce_csrf_checks=True).post("/healthz").status_code == 403


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_health_answers_503_without_detail_when_the_database_does_not_answer() -> None:
    port, database = _free_port(), _free_port()  # nothing listens on the second
    with tempfile.TemporaryDirectory(prefix="jobgrant-health-") as var:
        env = {
            **os.environ,
            "JOBGRANT_ENV": "development",
            "JOBGRANT_VAR_DIR": var,
            "JOBGRANT_DATABASE_URL": f"postgresql://jobgrant@127.0.0.1:{database}/jobgrant",
        }
        command = [sys.executable, "-m", *gunicorn_arguments(f"127.0.0.1:{port}", 1, 1)]
        server = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        try:
            status, headers, body = _get_when_up(port, "/healthz", server)
        finally:
            server.terminate()
            _, log = server.communicate(timeout=30)
    assert status == 503
    assert headers["Content-Type"] == "application/json"
    assert json.loads(body) == {"status": "unavailable"}  # no host, port, driver or error text
    assert "no-store" in headers["Cache-Control"]
    assert "health check: the database does not answer (OperationalError)" in log


def _get_when_up(
    port: int, path: str, server: subprocess.Popen[str]
) -> tuple[int, dict[str, str], bytes]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert server.poll() is None, "gunicorn stopped"
        with contextlib.suppress(OSError):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        time.sleep(0.2)
    raise AssertionError("gunicorn did not answer within 60 s")
