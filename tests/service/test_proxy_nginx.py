"""The shipped nginx configuration (docs/examples/nginx-jobgrant.conf), run: Debian's nginx with it
and a self-signed certificate, in front of two `jobgrant serve` in production mode.

The configuration is rendered from the shipped file by substituting only the addresses, ports and
paths a real deployment substitutes (each substitution must find its text: a change to the shipped
file that the test no longer covers fails here). Through the proxy: plain HTTP redirects to
HTTPS, HTTPS answers carry HSTS, the servers believe X-Forwarded-Proto (a form POST passes the
CSRF check of its HTTPS origin), a body above the limit is refused 413 by nginx, /healthz answers,
static files come with a long cache and API answers with no-store, and a server killed mid-run
fails no GET (nginx retries it on the other server).

nginx is installed by `make test` (nginx-light); without it the test is skipped, except in CI
where it fails.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import secrets
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import requests
from tests.live_servers import (
    JOBGRANT,
    Process,
    debian_program,
    environment,
    free_port,
    migrated,
    wait_until,
)

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "docs" / "examples" / "nginx-jobgrant.conf"
HOST = "jobgrant.example.ca"


def nginx_binary() -> str:
    return debian_program("nginx", "/usr/sbin/nginx", "nginx-light")


def render(directory: Path, upstreams: list[int], http: int, https: int) -> Path:
    """The shipped configuration with this machine's ports and paths, inside a main file."""
    text = SHIPPED.read_text()
    substitutions = [
        ("server 10.0.1.11:8000 ", f"server 127.0.0.1:{upstreams[0]} "),
        ("server 10.0.1.12:8000 ", f"server 127.0.0.1:{upstreams[1]} "),
        ("    listen 80;\n", f"    listen 127.0.0.1:{http};\n"),
        ("    listen [::]:80;\n", ""),
        ("    listen 443 ssl", f"    listen 127.0.0.1:{https} ssl"),
        ("    listen [::]:443 ssl", "    # listen [::]:443 ssl"),
        ("/etc/ssl/jobgrant/fullchain.pem", str(directory / "fullchain.pem")),
        ("/etc/ssl/jobgrant/privkey.pem", str(directory / "privkey.pem")),
        ("/var/log/nginx/jobgrant.access.log", str(directory / "access.log")),
    ]
    for old, new in substitutions:
        assert old in text, f"the shipped configuration no longer has {old!r}"
        text = text.replace(old, new)
    (directory / "jobgrant.conf").write_text(text)
    main = directory / "nginx.conf"
    temporary = directory / "temp"
    temporary.mkdir()
    main.write_text(
        f"""daemon off;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log info;
events {{ worker_connections 256; }}
http {{
    include /etc/nginx/mime.types;
    access_log {directory}/default-access.log;
    client_body_temp_path {temporary}/body;
    proxy_temp_path {temporary}/proxy;
    fastcgi_temp_path {temporary}/fastcgi;
    uwsgi_temp_path {temporary}/uwsgi;
    scgi_temp_path {temporary}/scgi;
    include {directory}/jobgrant.conf;
}}
"""
    )
    return main


def certificate(directory: Path) -> None:
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            f"/CN={HOST}",
            "-addext",
            f"subjectAltName=DNS:{HOST},IP:127.0.0.1",
            "-keyout",
            str(directory / "privkey.pem"),
            "-out",
            str(directory / "fullchain.pem"),
        ],
        check=True,
        capture_output=True,
    )


def test_the_access_log_masks_the_tokens_of_every_link_the_service_redacts() -> None:
    """The shipped log_format logs no $request (it holds the tokens), and its maps mask the same
    links as the service's own logs (log_redaction.LINK_PREFIXES, the same pages excepted)."""
    from jobgrant.service import log_redaction

    text = SHIPPED.read_text()
    log_format = text[text.index("log_format jobgrant") :].split(";", 1)[0]
    assert "$request " not in log_format and '$request"' not in log_format
    assert "$jobgrant_logged_uri" in log_format
    # Each of the three maps: the same link prefixes (in the path, "/" or "%2F" between words),
    # and the same pages that are not tokens (the password reset's "sent", "done"...).
    alternations = re.findall(r"\(\?:(participate\|[^\n]*?)\)\(\?:/\|%2F\)", text)
    assert len(alternations) == 3, alternations
    for alternation in alternations:
        names = alternation.replace("(?:/|%2F)", "/").split("|")
        assert sorted(names) == sorted(log_redaction.LINK_PREFIXES), names
    not_tokens = re.fullmatch(r"\(\?!\(\?:([a-z|-]+)\)/\)", log_redaction._NOT_TOKENS)
    assert not_tokens is not None
    exception = f"(?!(?:{not_tokens.group(1)})(?:/|%2F)|\\[redacted\\])"
    assert text.count(exception) == 3, exception


def production(var: Path) -> dict[str, str]:
    key = base64.b64encode(secrets.token_bytes(32)).decode()
    return environment(
        var,
        JOBGRANT_ENV="production",
        JOBGRANT_SECRET_KEY=secrets.token_urlsafe(50),
        JOBGRANT_SIN_KEYS=f"k1:{key}",
        JOBGRANT_SIN_INDEX_KEY=base64.b64encode(secrets.token_bytes(32)).decode(),
        JOBGRANT_OTP_KEYS="k1:" + base64.b64encode(secrets.token_bytes(32)).decode(),
        JOBGRANT_ALLOWED_HOSTS=f"{HOST},127.0.0.1",
        JOBGRANT_PROXY_SSL_HEADER="X-Forwarded-Proto",
        JOBGRANT_BASE_URL=f"https://{HOST}",
    )


@contextlib.contextmanager
def server(var: Path, env: dict[str, str]) -> Iterator[Process]:
    """`jobgrant serve --no-migrate` in a process group of its own (to be killed whole)."""
    port = free_port()
    log = var / f"server-{port}.log"
    command = [str(JOBGRANT), "serve", "--no-migrate", "--port", str(port), "--workers", "2"]
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, env=env, stdout=output, stderr=output, start_new_session=True
        )
    running = Process(port, log, process)
    try:
        wait_until(running, "/healthz")
        yield running
    finally:
        kill(running)


def kill(running: Process) -> None:
    if running.process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(running.process.pid, signal.SIGKILL)
        running.process.wait(timeout=60)


@contextlib.contextmanager
def nginx(directory: Path, upstreams: list[int]) -> Iterator[tuple[int, int]]:
    binary = nginx_binary()
    http, https = free_port(), free_port()
    main = render(directory, upstreams, http, https)
    checked = subprocess.run(
        [binary, "-t", "-c", str(main), "-e", str(directory / "error.log")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, f"nginx -t refuses the shipped configuration:\n{checked.stderr}"
    process = subprocess.Popen(
        [binary, "-c", str(main), "-e", str(directory / "error.log")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(requests.RequestException):
                requests.get(f"http://127.0.0.1:{http}/", timeout=2, allow_redirects=False)
                break
            assert process.poll() is None, (directory / "error.log").read_text()
            assert time.monotonic() < deadline, "nginx did not answer"
            time.sleep(0.1)
        yield http, https
    finally:
        process.terminate()
        process.wait(timeout=30)


def through(proxy: Path) -> requests.Session:
    """A browser at https://jobgrant.example.ca/ (the connection made to 127.0.0.1), trusting
    the self-signed certificate (and no CA bundle or proxy named in the environment)."""
    session = requests.Session()
    session.trust_env = False
    session.verify = str(proxy / "fullchain.pem")
    session.headers["Host"] = HOST
    return session


def test_the_shipped_nginx_configuration_in_front_of_two_servers(tmp_path: Path) -> None:
    nginx_binary()
    var = migrated(tmp_path / "var")
    proxy = tmp_path / "nginx"
    proxy.mkdir()
    certificate(proxy)
    env = production(var)
    with server(var, env) as first, server(var, env) as second:  # noqa: SIM117 (nginx needs their ports)
        with nginx(proxy, [first.port, second.port]) as (http, https):
            base = f"https://127.0.0.1:{https}"
            browser = through(proxy)

            # Plain HTTP only redirects, to the same path on HTTPS.
            answer = browser.get(
                f"http://127.0.0.1:{http}/en/sign-in/?next=x", allow_redirects=False, timeout=30
            )
            assert answer.status_code == 301
            assert answer.headers["Location"] == f"https://{HOST}/en/sign-in/?next=x"

            # HTTPS: HSTS, which the servers send because they believe X-Forwarded-Proto.
            page = browser.get(f"{base}/en/sign-in/", timeout=30)
            assert page.status_code == 200
            assert "max-age=31536000" in page.headers["Strict-Transport-Security"]

            # A form POST: the CSRF check compares the HTTPS Origin with the scheme the server
            # believes; without X-Forwarded-Proto honoured it refuses 403.
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
            assert token is not None
            posted = browser.post(
                f"{base}/en/sign-in/",
                data={
                    "csrfmiddlewaretoken": token.group(1),
                    "username": "nobody",
                    "password": "not-the-password",
                },
                headers={"Origin": f"https://{HOST}", "Referer": f"https://{HOST}/en/sign-in/"},
                allow_redirects=False,
                timeout=30,
            )
            assert posted.status_code == 200, posted.text[:500]  # the form again, with its error
            # And the same POST claiming plain HTTP is refused: the header is what decides.
            forged = browser.post(
                f"{base}/en/sign-in/",
                data={"csrfmiddlewaretoken": token.group(1), "username": "x", "password": "y"},
                headers={"Origin": f"http://{HOST}"},
                allow_redirects=False,
                timeout=30,
            )
            assert forged.status_code == 403

            # A body above the limit: nginx refuses it before any server reads it.
            big = browser.post(
                f"{base}/api/v1/applications",
                data=b"x" * (4 * 1024 * 1024),
                headers={"Content-Type": "application/json"},
                timeout=30,
            )
            assert big.status_code == 413

            # The access log holds no token of an e-mailed link, in the path or in a query.
            tokens = [secrets.token_urlsafe(24) for _ in range(5)]
            addresses = [
                f"/en/participate/{tokens[0]}/",
                f"/fr/follow-up/{tokens[1]}/?next=/en/register/verify/{tokens[2]}/",
                f"/en/sign-in/?next=/en/invitation/{tokens[3]}/",
                f"/en/sign-in/?next=%2Fen%2Faccount%2Fsetup%2F{tokens[4]}%2F",
                "/en/password-reset/sent/",
            ]
            for address in addresses:
                assert browser.get(base + address, timeout=30).status_code < 500
            # nginx writes a request's line once its answer is sent: the last may come later.
            deadline = time.monotonic() + 10
            while "/password-reset/sent/" not in (proxy / "access.log").read_text():
                assert time.monotonic() < deadline, "nginx never logged the last request"
                time.sleep(0.1)
            lines = (proxy / "access.log").read_text().splitlines()
            for token in tokens:
                assert not [line for line in lines if token in line], token
            logged = "\n".join(lines)
            assert '"GET /en/participate/[redacted]/ HTTP/' in logged
            assert "/fr/follow-up/[redacted]/?next=/en/register/verify/[redacted]/ HTTP" in logged
            assert "/en/sign-in/?next=/en/invitation/[redacted]/ HTTP" in logged
            assert "?next=%2Fen%2Faccount%2Fsetup%2F[redacted]%2F HTTP" in logged
            assert '"GET /en/password-reset/sent/ HTTP/' in logged  # not a token: as it is

            health = browser.get(f"{base}/healthz", timeout=30)
            assert (health.status_code, health.json()) == (200, {"status": "ok"})

            # Static files: a long cache; the API: no-store.
            stylesheet = re.search(r'href="(/static/[^"]+\.css)"', page.text)
            assert stylesheet is not None
            static = browser.get(base + stylesheet.group(1), timeout=30)
            assert static.status_code == 200
            assert "max-age=315360000" in static.headers["Cache-Control"]
            api = browser.get(f"{base}/api/v1/applications", timeout=30)
            assert api.status_code == 401
            assert "no-store" in api.headers["Cache-Control"]

            # A server killed mid-run (SIGKILL, the whole process group): no GET fails.
            outcomes: Counter[str] = Counter()
            stop = threading.Event()

            def reader() -> None:
                session = through(proxy)
                while not stop.is_set():
                    for path in ("/healthz", "/en/sign-in/", stylesheet.group(1)):
                        try:
                            status = session.get(base + path, timeout=30).status_code
                            outcomes[str(status)] += 1
                        except requests.RequestException as error:
                            outcomes[type(error).__name__] += 1

            readers = [threading.Thread(target=reader) for _ in range(4)]
            for thread in readers:
                thread.start()
            time.sleep(2)
            before = sum(outcomes.values())
            kill(first)
            time.sleep(4)
            stop.set()
            for thread in readers:
                thread.join()
            after = sum(outcomes.values()) - before
            assert before > 10 and after > 10, outcomes
            # An answer the killed server had begun to send is cut (nginx cannot retry what it
            # has passed on): at most one per reader. Anything else, a 502 or a refused
            # connection, is a request nginx could have retried (seen without
            # proxy_next_upstream: 502s).
            cut = outcomes.pop("ChunkedEncodingError", 0)
            assert cut <= len(readers) and set(outcomes) == {"200"}, outcomes
