"""What a gunicorn worker of `jobgrant serve` spends on a request, against the same request through
Django's test client in one process (bench/request_cpu.py's way of measuring): how much of
`make load`'s CPU per request is gunicorn's own (the HTTP, the WSGI call, the access line).

    python bench/load/worker_cpu.py                   # 300 requests of each kind
    python bench/load/worker_cpu.py --requests 1000

It makes a PostgreSQL database as `make load` does (bench/load/run.py: the migrated template, the
demonstration data, one employer account with no file), starts `jobgrant serve --workers 1
--no-migrate`, signs the employer in, and asks three requests (/healthz, the API's list, the
employer's dashboard) --requests times each, one after the other, reading the worker's CPU time
from /proc before and after. Then a child process asks the same requests, with the same session
and token, through Django's test client on the same database, timed on its CPU clock.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # bench/load/run.py

PATHS = {
    "GET /healthz": ("/healthz", False),
    "api GET /applications": ("/api/v1/applications", True),
    "page employer dashboard (en)": ("/en/employer/", False),
}


def through_gunicorn(count: int) -> None:
    with tempfile.TemporaryDirectory(prefix="jobgrant-worker-cpu-") as var:
        env = {
            **os.environ,
            **run.RAISED_RATES,
            "JOBGRANT_VAR_DIR": var,
            "JOBGRANT_ENV": "development",
            "JOBGRANT_EMAIL_BACKEND": "file",
        }
        with run.load_database("jobgrant_worker_cpu", env, keep=False) as url:
            env["JOBGRANT_DATABASE_URL"] = url
            accounts = json.loads(run._child(["--seed", "1"], env).splitlines()[-1])
            employer = accounts["employers"][0]
            port = run._free_port()
            base = f"http://127.0.0.1:{port}"
            with run.servers(env, port, 1) as pids:
                cookies = run.sign_in(base, employer["username"])
                _ask_gunicorn(base, pids["serve"], cookies, employer["token"], count)
            subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--in-process",
                    json.dumps([cookies, employer["token"]]),
                ],
                env={**env, "WORKER_CPU_REQUESTS": str(count)},
                check=True,
            )


def _ask_gunicorn(base: str, master: int, cookies: dict[str, str], token: str, count: int) -> None:
    import requests

    def worker_cpu() -> float:
        return sum(cpu for pid, cpu in run._cpu(master).items() if pid != master)

    for name, (path, api) in PATHS.items():
        session = requests.Session()
        headers = {"Authorization": f"Bearer {token}"} if api else {}
        jar = {} if api else cookies

        def ask(
            session: Any = session, path: str = path, headers: Any = headers, jar: Any = jar
        ) -> Any:
            return session.get(f"{base}{path}", headers=headers, cookies=jar, timeout=60)

        _timed(name, "gunicorn's worker", ask, count, worker_cpu)


def in_process(arguments: str) -> None:
    from jobgrant.service.commands import setup_django

    setup_django()
    from django.test import Client

    cookies, token = json.loads(arguments)
    client = Client()
    for key, value in cookies.items():
        client.cookies[key] = value
    count = int(os.environ["WORKER_CPU_REQUESTS"])
    for name, (path, api) in PATHS.items():
        headers = {"Authorization": f"Bearer {token}"} if api else {}

        def ask(path: str = path, headers: Any = headers) -> Any:
            return client.get(path, headers=headers)

        _timed(name, "one process (test client)", ask, count, time.process_time)


def _timed(
    name: str, where: str, ask: Callable[[], Any], count: int, clock: Callable[[], float]
) -> None:
    for _ in range(20):  # what a process reads once
        answer = ask()
        if answer.status_code != 200:
            raise RuntimeError(f"{name}: {answer.status_code}")
    began = clock()
    for _ in range(count):
        ask()
    print(f"{name:<30} {where:<26} {1000 * (clock() - began) / count:6.2f} ms", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=300, help="of each kind")
    parser.add_argument("--in-process", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.in_process:
        in_process(arguments.in_process)
        return
    print(f"load average {', '.join(f'{v:.1f}' for v in os.getloadavg())}")
    through_gunicorn(arguments.requests)
    print(f"load average {', '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
