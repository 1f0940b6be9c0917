"""/healthz answers 200 when the database answers and 503 when it does not, saying nothing more;
/readyz answers 503 also while the database is behind the code's migrations or the static files
are not collected.

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
from pathlib import Path
from typing import Any

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


# --- /readyz: whether this server should be sent requests ---------------------------------------


@pytest.mark.django_db
def test_ready_answers_ok_anonymously_and_is_never_cached() -> None:
    answer = Client().get("/readyz")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ready"}
    assert "no-store" in answer["Cache-Control"]
    assert Client().head("/readyz").status_code == 200
    assert Client().put("/readyz").status_code == 405


@pytest.mark.django_db
def test_not_ready_while_the_database_is_behind_the_codes_migrations(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A migration of the code that the database has not applied (its row removed, in this
    test's transaction): 503, while /healthz still says the server is alive."""
    from django.db.migrations.recorder import MigrationRecorder

    MigrationRecorder.Migration.objects.filter(app="notifications", name="0002_request_id").delete()
    answer = Client().get("/readyz")
    assert answer.status_code == 503
    assert answer.json() == {"status": "not ready"}  # which migration goes to the log only
    assert "readiness: 1 migrations not applied (notifications.0002_request_id)" in caplog.text
    assert Client().get("/healthz").status_code == 200


@pytest.mark.django_db
def test_not_ready_while_the_static_files_are_not_collected(
    settings: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A server whose STATIC_ROOT does not hold the collection of its sources (not collected
    yet, or a copy cut short: the stamp is written last) would link files it cannot serve."""
    settings.WHITENOISE_USE_FINDERS = False
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    settings.STATIC_ROOT = str(tmp_path)
    answer = Client().get("/readyz")
    assert answer.status_code == 503 and answer.json() == {"status": "not ready"}
    assert "readiness: the static files are not collected" in caplog.text


def test_not_ready_when_the_database_does_not_answer() -> None:
    port, database = _free_port(), _free_port()  # nothing listens on the second
    with tempfile.TemporaryDirectory(prefix="jobgrant-ready-") as var:
        env = {
            **os.environ,
            "JOBGRANT_ENV": "development",
            "JOBGRANT_VAR_DIR": var,
            "JOBGRANT_DATABASE_URL": f"postgresql://jobgrant@127.0.0.1:{database}/jobgrant",
        }
        command = [sys.executable, "-m", *gunicorn_arguments(f"127.0.0.1:{port}", 1, 1)]
        server = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True
        )
        try:
            status, _, body = _get_when_up(port, "/readyz", server)
        finally:
            server.terminate()
            server.communicate(timeout=30)
    assert status == 503 and json.loads(body) == {"status": "not ready"}
