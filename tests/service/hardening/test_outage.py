"""While PostgreSQL is down: the API answers 503 problem+json with Retry-After, the pages a
"try again shortly" page in both languages; once it is back, everything answers again.

Real servers, nothing mocked: `jobgrant serve` (gunicorn) on a PostgreSQL cluster of
its own, made with initdb in a temporary directory, started with pg_ctl, then stopped under the
running server and started again; and a server whose database port nobody listens on.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from jobgrant.service.demo import DEMO_PASSWORD

PROBLEM = "application/problem+json"
ENGLISH, FRENCH = "Try again shortly", "Réessayez sous peu"
pytestmark = pytest.mark.skipif(
    not list(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")), reason="PostgreSQL is missing"
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: the cluster is the postgres account's then."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class Cluster:
    """A PostgreSQL cluster in a temporary directory, on a port of its own."""

    def __init__(self, root: Path) -> None:
        self.bin = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
        self.data, self.port = root / "data", free_port()
        self.data.mkdir()
        if os.geteuid() == 0:
            shutil.chown(root, "postgres")
            shutil.chown(self.data, "postgres")
        self.run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync")

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def run(self, tool: str, *arguments: str) -> None:
        command = as_postgres([str(self.bin / tool), *arguments])
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.run("pg_ctl", "-D", str(self.data), "-o", options, "-w", "-l", "/dev/null", "start")

    def stop(self) -> None:
        self.run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")


@contextlib.contextmanager
def served(database_url: str, var: str) -> Iterator[str]:
    """`jobgrant serve` on that database (migrated, demonstration data), one worker."""
    port = free_port()
    env = {
        **os.environ,
        "JOBGRANT_ENV": "development",
        "JOBGRANT_VAR_DIR": var,
        "JOBGRANT_DATABASE_URL": database_url,
    }
    command = [sys.executable, "-m", "jobgrant.cli", "serve", "--port", str(port)]
    command += ["--workers", "1"]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(base, server)
        yield base
    finally:
        server.terminate()
        server.communicate(timeout=30)


def wait_until_up(base: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 600  # migrating a new cluster: minutes on a loaded machine
    while time.monotonic() < deadline:
        assert server.poll() is None, "the server stopped"
        with contextlib.suppress(requests.ConnectionError):
            requests.get(base + "/en/", timeout=30)
            return
        time.sleep(0.3)
    raise AssertionError("the server did not answer within 600 s")


def signed_in(base: str) -> requests.Session:
    browser = requests.Session()
    form = browser.get(base + "/en/sign-in/", timeout=30).text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    assert token
    answer = browser.post(
        base + "/en/sign-in/",
        {"username": "demo-employer", "password": DEMO_PASSWORD, "csrfmiddlewaretoken": token[1]},
        headers={"Referer": base + "/en/sign-in/"},
        timeout=30,
    )
    assert answer.status_code == 200 and "/sign-in/" not in answer.url
    return browser


def api_token(base: str) -> str:
    answer = requests.post(
        base + "/api/v1/auth/token",
        json={"username": "demo-employer", "password": DEMO_PASSWORD},
        timeout=30,
    )
    assert answer.ok, answer.text
    return str(answer.json()["token"])


def assert_api_unavailable(answer: requests.Response) -> None:
    assert answer.status_code == 503, answer.text[:300]
    assert answer.headers["Content-Type"] == PROBLEM
    assert int(answer.headers["Retry-After"]) > 0
    problem = answer.json()
    assert problem["code"] == "SERVICE_UNAVAILABLE"
    assert problem["status"] == 503
    assert problem["detail"] and problem["detail_fr"]
    assert "psycopg" not in answer.text and "127.0.0.1" not in answer.text
    assert "Server" not in answer.headers  # gunicorn's banner is dropped (gunicorn_config.py)


def assert_page_unavailable(answer: requests.Response) -> None:
    assert answer.status_code == 503
    assert answer.headers["Content-Type"].startswith("text/html")
    assert int(answer.headers["Retry-After"]) > 0
    assert ENGLISH in answer.text and FRENCH in answer.text
    assert 'lang="en"' in answer.text and 'lang="fr"' in answer.text
    assert "Server Error" not in answer.text
    assert "Server" not in answer.headers


def test_postgresql_stopped_under_a_running_server_then_started_again() -> None:
    with tempfile.TemporaryDirectory(prefix="jobgrant-outage-") as root:
        cluster = Cluster(Path(root))
        cluster.start()
        try:
            with served(cluster.url, str(Path(root) / "var")) as base:
                token = {"Authorization": f"Bearer {api_token(base)}"}
                browser = signed_in(base)
                assert requests.get(base + "/api/v1/applications", headers=token).ok
                assert browser.get(base + "/en/employer/", timeout=30).status_code == 200

                cluster.stop()
                assert_api_unavailable(requests.get(base + "/api/v1/applications", headers=token))
                assert_api_unavailable(
                    requests.post(
                        base + "/api/v1/auth/token",
                        json={"username": "demo-employer", "password": DEMO_PASSWORD},
                        timeout=30,
                    )
                )
                assert_page_unavailable(browser.get(base + "/en/employer/", timeout=30))
                assert_page_unavailable(browser.get(base + "/fr/employeur/", timeout=30))

                cluster.start()
                assert requests.get(base + "/api/v1/applications", headers=token).ok
                assert browser.get(base + "/en/employer/", timeout=30).status_code == 200
        finally:
            with contextlib.suppress(subprocess.CalledProcessError):
                cluster.stop()


def test_a_database_port_nobody_listens_on() -> None:
    """Nothing to migrate against: gunicorn alone, as test_health starts it."""
    from jobgrant.service.commands import gunicorn_arguments

    port, database = free_port(), free_port()
    with tempfile.TemporaryDirectory(prefix="jobgrant-outage-") as var:
        env = {
            **os.environ,
            "JOBGRANT_ENV": "development",
            "JOBGRANT_VAR_DIR": var,
            "JOBGRANT_DATABASE_URL": f"postgresql://jobgrant@127.0.0.1:{database}/jobgrant",
        }
        command = [sys.executable, "-m", *gunicorn_arguments(f"127.0.0.1:{port}", 1, 1)]
        server = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            base = f"http://127.0.0.1:{port}"
            wait_until_up(base, server)
            headers = {"Authorization": "Bearer not-a-token-we-can-check"}
            assert_api_unavailable(requests.get(base + "/api/v1/applications", headers=headers))
            browser = requests.Session()
            browser.cookies.set("sessionid", "a-session-the-database-would-hold")
            assert_page_unavailable(browser.get(base + "/en/employer/", timeout=30))
        finally:
            server.terminate()
            server.communicate(timeout=30)
