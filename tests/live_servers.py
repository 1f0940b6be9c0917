"""Real `jobgrant serve` and `jobgrant worker` processes on an SQLite database of their own, for
the tests of what an operator sees of them (metrics, logs, control sockets, readiness).

`migrated(var)` migrates the database once (`jobgrant migrate`, from the migrated template), and
the servers then start with `--no-migrate`: no demonstration data, so they answer in seconds.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

JOBGRANT = Path(sys.executable).with_name("jobgrant")
STARTUP_SECONDS = 120


def debian_program(name: str, path: str, package: str) -> str:
    """A program from Debian's packages that `make test` installs (`package`), found on the
    PATH or at `path`. Without it the test is skipped, except in CI where it fails."""
    import pytest

    found = shutil.which(name) or (path if Path(path).exists() else None)
    if found is None:
        message = f"{name} is not installed (make test installs {package})"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def environment(var: Path, **extra: str) -> dict[str, str]:
    """The process environment of a development server whose files are all in `var`."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("JOBGRANT_", "PROMETHEUS_")) or key == "JOBGRANT_BUILD_DIR"
    }
    return {
        **env,
        "DJANGO_SETTINGS_MODULE": "jobgrant.service.settings",
        "JOBGRANT_ENV": "development",
        "JOBGRANT_VAR_DIR": str(var),
        **extra,
    }


def migrated(var: Path) -> Path:
    var.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [str(JOBGRANT), "migrate"], env=environment(var), check=True, capture_output=True
    )
    return var


@dataclass
class Process:
    port: int
    log: Path
    process: subprocess.Popen[bytes]

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@contextlib.contextmanager
def started(command: list[str], env: dict[str, str], log: Path, port: int) -> Iterator[Process]:
    with log.open("wb") as output:
        process = subprocess.Popen(command, env=env, stdout=output, stderr=output)
    running = Process(port, log, process)
    try:
        yield running
    finally:
        stop(running)


def stop(running: Process) -> None:
    if running.process.poll() is None:
        running.process.terminate()  # `serve` became gunicorn's master: it stops its workers
        running.process.wait(timeout=60)


@contextlib.contextmanager
def serve(var: Path, *options: str, workers: int = 2, **extra: str) -> Iterator[Process]:
    """`jobgrant serve --no-migrate` on a free port of 127.0.0.1, answering when it is given."""
    port = free_port()
    command = [str(JOBGRANT), "serve", "--no-migrate", "--port", str(port)]
    command += ["--workers", str(workers), *options]
    log = var / f"server-{port}.log"
    with started(command, environment(var, **extra), log, port) as server:
        wait_until(server, "/healthz")
        yield server


def get(
    port: int, path: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def wait_until(running: Process, path: str, port: int | None = None) -> None:
    """Until `path` answers 200 on `port` (the process's own by default)."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        assert running.process.poll() is None, f"it stopped:\n{running.output()[-3000:]}"
        with contextlib.suppress(OSError):
            if get(port or running.port, path)[0] == 200:
                return
        time.sleep(0.2)
    raise AssertionError(f"{path} did not answer:\n{running.output()[-3000:]}")
