"""Scale-out as production runs it: two `jobgrant serve` processes on one PostgreSQL database.

Two real servers (gunicorn, as `jobgrant serve` starts it, each with its own JOBGRANT_VAR_DIR as
two hosts would have, sharing the secret key and the SIN keys through the environment) are
started at the same moment on a fresh, empty database: they take turns migrating and loading the
demonstration data (an advisory lock), so one of them loads it and the other finds it loaded.

Then T1 split across both: 200 recommended applications, a budget with room for exactly 37,
and 32 clients (16 on each server, each with a bearer token the *other* server issued, 0-20 ms
of jitter) approving them through the JSON API with an Idempotency-Key, half the applications
on each server. Exactly 37 are approved; the 163 others are refused with 409 BUDGET_EXHAUSTED
problem+json; nothing answers 5xx; the books agree to the cent (tests/scale/scene.py: the
commitments equal the 37 approved shares, every ledger transaction balances, one audit entry per
approval) and `jobgrant audit verify` finds the chain intact. Retried on the other server, an
approval replays the first answer byte for byte. The round is run twice: once the federal
budget binds, once the provincial one (the federal commitment made first in the same
transaction is then rolled back with the refusal).

Also: a person signed in on one server is signed in on the other (sessions are in the
database, the session hash uses the shared secret key), with a CSRF token from the first and
the proxy's X-Forwarded-Proto trusted (JOBGRANT_PROXY_SSL_HEADER); a page from one server links
static files the other serves; and a third server with a secret key of its own (started with
--no-migrate) does not honour that session: the key must be shared.

    JOBGRANT_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/jobgrant pytest tests/scale -n 0
    JOBGRANT_SCALE_WORKERS=4 ...      # gunicorn workers per server (default 2: the two servers
                                      # together run what one `jobgrant serve` runs on 2 cores)
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import queue
import random
import re
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import psycopg
import pytest
from django_otp.oath import hotp
from tests.personas import OFFICER, PASSWORD, SECOND_OFFICER, totp_key

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[2]
JOBGRANT = Path(sys.executable).with_name("jobgrant")
APPLICATIONS = 200
FITS = 37
CLIENTS = 32  # 16 per server
WORKERS = int(os.environ.get("JOBGRANT_SCALE_WORKERS", "2"))
STARTUP_SECONDS = (
    600  # migrate, collect and compress the static files, seed: minutes on a loaded CI machine
)
LOADED = "Loaded the demonstration data"


# --- Two servers on a fresh database ---------------------------------------------------------


@dataclass(frozen=True)
class Server:
    name: str
    port: int
    log: Path
    process: subprocess.Popen[bytes]


@dataclass(frozen=True)
class Site:
    servers: tuple[Server, Server]
    env: dict[str, str]  # what the servers run with (and the scene processes too)
    started_seconds: float  # from both starting at once to both answering /healthz


@pytest.fixture(scope="module")
def site(postgres_server: str) -> Iterator[Site]:
    """Two servers started at once on an empty database; both answer /healthz."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    name = f"{_database_name()}_two_servers_{worker}"
    _postgres(postgres_server, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    _postgres(postgres_server, f"CREATE DATABASE {name}")
    sin_key = base64.b64encode(secrets.token_bytes(32)).decode()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "jobgrant.service.settings",
        "JOBGRANT_ENV": "development",  # demonstration data; production refuses it
        "JOBGRANT_DATABASE_URL": f"{postgres_server}/{name}",
        "JOBGRANT_SECRET_KEY": secrets.token_urlsafe(50),
        "JOBGRANT_SIN_KEYS": f"k1:{sin_key}",
        "JOBGRANT_OTP_KEYS": f"o1:{sin_key}",
        "JOBGRANT_SIN_INDEX_KEY": base64.b64encode(secrets.token_bytes(32)).decode(),
        "JOBGRANT_PROXY_SSL_HEADER": "X-Forwarded-Proto",
    }
    with (
        tempfile.TemporaryDirectory(prefix="jobgrant-scale-") as var,
        contextlib.ExitStack() as stack,
    ):
        began = time.perf_counter()
        servers = tuple(
            stack.enter_context(_serve(label, Path(var) / label, env)) for label in ("a", "b")
        )
        for server in servers:
            _wait_until_healthy(server)
        site = Site(servers, env, time.perf_counter() - began)  # type: ignore[arg-type]
        scene(site, "personas")
        yield site
    _postgres(postgres_server, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _database_name() -> str:
    from django.conf import settings

    return str(settings.DATABASES["default"]["NAME"])


def _postgres(server: str, statement: str) -> None:
    with psycopg.connect(f"{server}/postgres", autocommit=True) as connection:
        connection.execute(statement)  # type: ignore[arg-type]


@contextlib.contextmanager
def _serve(label: str, var: Path, env: dict[str, str], *options: str) -> Iterator[Server]:
    """`jobgrant serve` on a free port, with a var directory of its own; its output in a file."""
    var.mkdir()
    port, log = _free_port(), var / "server.log"
    command = [str(JOBGRANT), "serve", "--port", str(port), "--workers", str(WORKERS), *options]
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, env={**env, "JOBGRANT_VAR_DIR": str(var)}, stdout=output, stderr=output
        )
    try:
        yield Server(label, port, log, process)
    finally:
        process.terminate()  # `serve` became gunicorn's master: it stops its workers
        process.wait(timeout=30)
    assert process.returncode == 0, log.read_text()[-3000:]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_healthy(server: Server) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline and server.process.poll() is None:
        with contextlib.suppress(OSError):
            status, _, body = request(server, "GET", "/healthz")
            if status == 200:
                assert json.loads(body) == {"status": "ok"}
                return
        time.sleep(0.2)
    raise AssertionError(f"server {server.name} did not start:\n{server.log.read_text()[-3000:]}")


# --- HTTP ------------------------------------------------------------------------------------


def request(
    server: Server,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    connection: http.client.HTTPConnection | None = None,
) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One request (on `connection` if given: it reconnects when the server closed it)."""
    connection = connection or http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    return response.status, response.headers, response.read()


# The officers pass a second factor: a code of their authenticator (tests/personas.totp_key). A
# code works once, so this process remembers the last 30-second step each one used, and waits
# for the next step when the current and the next are spent. Never the previous step's code: the
# server refuses it once its clock passes into the next step, which a busy machine reaches
# before the request arrives (tests/personas.totp_code).
_last_step: dict[str, int] = {}
_tokens: dict[tuple[int, str], str] = {}


def second_factor_code(username: str) -> str:
    while True:
        now = int(time.time() // 30)
        step = max(now, _last_step.get(username, now - 1) + 1)
        if step <= now + 1:
            _last_step[username] = step
            return f"{hotp(bytes.fromhex(totp_key(username)), step, 6):06d}"
        time.sleep(1)


def api_token(server: Server, username: str) -> str:
    """The officer's token issued by `server` (once per server: a client per server)."""
    if (server.port, username) not in _tokens:
        credentials = {
            "username": username,
            "password": PASSWORD,
            "client": f"server-{server.port}",
        }
        body = json.dumps({**credentials, "otp": second_factor_code(username)}).encode()
        status, _, answer = request(
            server, "POST", "/api/v1/auth/token", body, {"Content-Type": "application/json"}
        )
        assert status == 201, answer
        _tokens[server.port, username] = str(json.loads(answer)["token"])
    return _tokens[server.port, username]


# --- The scene, set and read in the fresh database ---------------------------------------------


def scene(site: Site, *arguments: str, given: Any = None) -> Any:
    """Run tests/scale/scene.py against the servers' database; its JSON answer."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.scale.scene", *arguments],
        input=json.dumps(given) if given is not None else "",
        env={**site.env, "JOBGRANT_VAR_DIR": tempfile.mkdtemp(prefix="jobgrant-scene-")},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-5000:]
    return json.loads(done.stdout)


# --- The race ---------------------------------------------------------------------------------


@dataclass
class Outcome:
    server: str
    application_id: int
    status: int
    content_type: str
    body: bytes
    seconds: float


@dataclass
class Race:
    outcomes: list[Outcome] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    seconds: float = 0.0


def race(site: Site, application_ids: list[int], seed: int) -> Race:
    """Half the applications to each server, 16 clients on each, all started together."""
    shuffled = random.Random(seed).sample(application_ids, len(application_ids))
    work: list[queue.SimpleQueue[int]] = [queue.SimpleQueue(), queue.SimpleQueue()]
    for i, application_id in enumerate(shuffled):
        work[i % 2].put(application_id)
    # Each client's token is issued by the other server: tokens are rows, not process state.
    tokens = [api_token(site.servers[(i + 1) % 2], SECOND_OFFICER.username) for i in range(CLIENTS)]
    outcome, start = Race(), threading.Barrier(CLIENTS + 1)
    threads = [
        threading.Thread(
            target=_client,
            args=(site.servers[i % 2], tokens[i], work[i % 2], outcome, start, seed * 100 + i),
        )
        for i in range(CLIENTS)
    ]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    outcome.seconds = time.perf_counter() - began
    return outcome


def _client(
    server: Server,
    token: str,
    pending: queue.SimpleQueue[int],
    race: Race,
    start: threading.Barrier,
    seed: int,
) -> None:
    jitter = random.Random(seed)
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        start.wait()
        while True:
            try:
                application_id = pending.get_nowait()
            except queue.Empty:
                return
            time.sleep(jitter.uniform(0, 0.020))
            began = time.perf_counter()
            status, headers, body = approve(server, token, application_id, connection)
            seconds = time.perf_counter() - began
            found = Outcome(
                server.name, application_id, status, headers["Content-Type"], body, seconds
            )
            with race.lock:
                race.outcomes.append(found)
    except Exception as error:  # a crash must fail the test, not vanish with the thread
        with race.lock:
            race.crashes.append(f"{type(error).__name__}: {error}")
    finally:
        connection.close()


def approve(
    server: Server,
    token: str,
    application_id: int,
    connection: http.client.HTTPConnection | None = None,
) -> tuple[int, http.client.HTTPMessage, bytes]:
    headers = {
        "Authorization": f"Bearer {token}",
        "Content-Type": "application/json",
        "Idempotency-Key": f"approve-{application_id}",
    }
    path = f"/api/v1/applications/{application_id}/approve"
    return request(server, "POST", path, b"{}", headers, connection)


# --- The tests --------------------------------------------------------------------------------


def test_two_servers_started_at_once_migrate_and_seed_one_after_the_other(
    site: Site, record_property: Callable[[str, object], None]
) -> None:
    logs = [server.log.read_text() for server in site.servers]
    assert sum(log.count(LOADED) for log in logs) == 1, logs  # one seeded, the other found it
    for log in logs:
        assert "Traceback" not in log, log
    record_property(
        "figures", f"both servers up on an empty database in {site.started_seconds:.1f} s"
    )


def test_a_token_revoked_on_one_server_is_refused_by_the_other_at_once(
    site: Site, record_property: Callable[[str, object], None]
) -> None:
    """Issued by a, used on b (each of b's workers sees it), revoked on a: b's very next
    requests are refused, with no wait (no process keeps a token it looked up)."""
    a, b = site.servers
    body = {
        "username": OFFICER.username,
        "password": PASSWORD,
        "client": "revocation-check",
        "otp": second_factor_code(OFFICER.username),
    }
    json_headers = {"Content-Type": "application/json"}
    status, _, answer = request(
        a, "POST", "/api/v1/auth/token", json.dumps(body).encode(), json_headers
    )
    assert status == 201, answer
    issued = json.loads(answer)
    bearer = {"Authorization": f"Bearer {issued['token']}"}
    for _ in range(4 * WORKERS):  # every worker of b has looked it up (and once kept it 5 s)
        assert request(b, "GET", "/api/v1/applications", headers=bearer)[0] == 200
    listed = json.loads(request(a, "GET", "/api/v1/auth/tokens", headers=bearer)[2])
    token_id = next(t["id"] for t in listed if t["client"] == "revocation-check")
    revoke = {**bearer, **json_headers, "Idempotency-Key": f"revoke-{token_id}"}
    status, _, answer = request(a, "POST", f"/api/v1/auth/tokens/{token_id}/revoke", b"{}", revoke)
    assert status == 200, answer
    revoked_at = time.monotonic()
    refusals = [
        request(b, "GET", "/api/v1/applications", headers=bearer) for _ in range(4 * WORKERS)
    ]
    within = time.monotonic() - revoked_at
    assert [status for status, _, _ in refusals] == [401] * (4 * WORKERS)
    assert all(h["Content-Type"].startswith("application/problem+json") for _, h, _ in refusals)
    record_property(
        "figures",
        f"a token revoked on a: {4 * WORKERS} of {4 * WORKERS} requests to b refused, the "
        f"last {within * 1000:.0f} ms after the revocation",
    )


@pytest.mark.parametrize(("round_", "binding"), [(0, "federal"), (1, "provincial")])
def test_exactly_37_of_200_approvals_split_across_two_servers_fit_a_budget_for_37(
    site: Site, round_: int, binding: str, record_property: Callable[[str, object], None]
) -> None:
    prepared = scene(site, "prepare", "--round", str(round_), "--binding", binding)
    load = os.getloadavg()[0]
    amounts = {int(pk): cents for pk, cents in prepared["applications"].items()}
    assert len(amounts) == APPLICATIONS

    outcome = race(site, list(amounts), seed=round_)

    assert outcome.crashes == []
    assert len(outcome.outcomes) == APPLICATIONS
    assert [o for o in outcome.outcomes if o.status >= 500] == []
    assert {o.server for o in outcome.outcomes} == {"a", "b"}
    assert [sum(o.server == s.name for o in outcome.outcomes) for s in site.servers] == [100, 100]
    approved = {o.application_id for o in outcome.outcomes if o.status == 200}
    refused = [o for o in outcome.outcomes if o.status != 200]
    assert len(approved) == FITS
    assert len(refused) == APPLICATIONS - FITS
    for o in outcome.outcomes:
        body = json.loads(o.body)
        if o.status == 200:
            assert (o.content_type, body["state"]) == ("application/json", "approved")
            continue
        assert o.status == 409, o
        assert o.content_type == "application/problem+json"
        assert (body["code"], body["funder"]) == ("BUDGET_EXHAUSTED", binding)
    books = scene(site, "books", given={"scene": prepared, "approved": sorted(approved)})
    assert books[binding] == {"committed": FITS * amounts[min(amounts)], "available": 0}
    verified = subprocess.run(
        [str(JOBGRANT), "audit", "verify"],
        env={**site.env, "JOBGRANT_VAR_DIR": tempfile.mkdtemp(prefix="jobgrant-verify-")},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "audit chain intact" in verified.stdout
    _assert_retries_replay_on_the_other_server(site, outcome)

    latencies = sorted(o.seconds for o in outcome.outcomes)
    per_server = {
        s.name: sum(o.server == s.name and o.status == 200 for o in outcome.outcomes)
        for s in site.servers
    }
    record_property(
        "figures",
        f"{binding} binds: {len(approved)} approved ({per_server['a']} on a, "
        f"{per_server['b']} on b), {len(refused)} refused 409, 0 server errors, "
        f"{APPLICATIONS} requests in {outcome.seconds:.2f} s = "
        f"{APPLICATIONS / outcome.seconds:.0f} requests/s, p50 "
        f"{1000 * statistics.median(latencies):.0f} ms, max {1000 * latencies[-1]:.0f} ms "
        f"({WORKERS} gunicorn workers per server, load average {load:.1f} before); committed "
        f"${books[binding]['committed'] / 100:,.2f}; {verified.stdout.strip()}",
    )


def _assert_retries_replay_on_the_other_server(site: Site, outcome: Race) -> None:
    """An approval retried with its Idempotency-Key on the other server gets the first answer,
    byte for byte, and changes nothing (the key is a row, claimed in the approval's transaction)."""
    token = api_token(site.servers[0], SECOND_OFFICER.username)
    first_of_each = {o.status: o for o in outcome.outcomes}.values()
    for first in first_of_each:
        other = site.servers[1] if first.server == "a" else site.servers[0]
        status, headers, body = approve(other, token, first.application_id)
        assert (status, body) == (first.status, first.body)
        assert headers["Idempotent-Replayed"] == "true"


def sign_in(form_from: Server, post_to: Server) -> str:
    """Sign the officer in with the form of one server posted to another (through the proxy, as
    HTTPS), the second factor on the first; the session cookie the second factor answers with
    (the session id is renewed when it passes)."""
    status, headers, page = request(form_from, "GET", "/en/sign-in/")
    assert status == 200
    csrf_cookie = _cookie(headers, "csrftoken")
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token is not None
    origin = f"https://127.0.0.1:{post_to.port}"
    form = {"username": OFFICER.username, "password": PASSWORD}
    form["csrfmiddlewaretoken"] = token.group(1).decode()
    status, headers, _ = request(
        post_to,
        "POST",
        "/en/sign-in/",
        urlencode(form).encode(),
        {
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={csrf_cookie}",
            "Origin": origin,
            "Referer": f"{origin}/en/sign-in/",
            "X-Forwarded-Proto": "https",
        },
    )
    assert status == 302, "the sign-in posted to the other server was refused"
    session, csrf = _cookie(headers, "sessionid"), _cookie(headers, "csrftoken")
    code = {"code": second_factor_code(OFFICER.username), "csrfmiddlewaretoken": csrf}
    status, headers, _ = request(
        form_from,
        "POST",
        "/en/sign-in/code/",
        urlencode(code).encode(),
        {
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={csrf}; sessionid={session}",
            "Origin": f"https://127.0.0.1:{form_from.port}",
            "Referer": f"https://127.0.0.1:{form_from.port}/en/sign-in/code/",
            "X-Forwarded-Proto": "https",
        },
    )
    assert status == 302, "the second factor posted to the first server was refused"
    return _cookie(headers, "sessionid")  # a new session id once the second factor passes


def test_signed_in_on_one_server_is_signed_in_on_the_other(
    site: Site, record_property: Callable[[str, object], None]
) -> None:
    """The sign-in form comes from server a, is posted to server b, and the session it opens
    works on a: nothing of a person's session lives in one process. A page from a links static
    files that b serves."""
    a, b = site.servers
    session = {"Cookie": f"sessionid={sign_in(a, b)}"}
    status, headers, _ = request(a, "GET", "/en/home/", headers=session)
    assert status == 302
    queue_page = headers["Location"]
    assert "sign-in" not in queue_page
    status, _, page = request(a, "GET", queue_page, headers=session)
    assert status == 200
    assert OFFICER.username.encode() in page
    static = re.search(rb'(/static/[^"\']+\.css)', page)
    assert static is not None
    status, _, _ = request(b, "GET", static.group(1).decode())
    assert status == 200, "a page of one server links a static file the other does not serve"
    record_property("figures", "session, CSRF token and static files shared by both servers")


def test_a_server_with_another_secret_key_does_not_honour_the_session(
    site: Site, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    """Why JOBGRANT_SECRET_KEY must be the same everywhere: a third server, started with
    --no-migrate on the (migrated) database but its own secret key, sends the person signed in
    on the others back to the sign-in page. (It also shows --no-migrate starting a server on a
    database that is up to date.)"""
    session = {"Cookie": f"sessionid={sign_in(site.servers[0], site.servers[1])}"}
    assert request(site.servers[0], "GET", "/en/home/", headers=session)[0] == 302
    env = {**site.env, "JOBGRANT_SECRET_KEY": secrets.token_urlsafe(50)}
    with _serve("c", tmp_path / "c", env, "--no-migrate") as other:
        _wait_until_healthy(other)
        status, headers, _ = request(other, "GET", "/en/home/", headers=session)
    assert status == 302
    assert headers["Location"].startswith("/en/sign-in/")
    record_property("figures", "a server with another secret key signs the person out")


def _cookie(headers: http.client.HTTPMessage, name: str) -> str:
    for header in headers.get_all("Set-Cookie") or []:
        key, _, rest = header.partition("=")
        if key.strip() == name:
            return rest.split(";", 1)[0]
    raise AssertionError(f"no {name} cookie in {headers.get_all('Set-Cookie')}")
