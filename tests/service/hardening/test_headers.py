"""The security review's header findings, each reproduced first: no Content-Security-Policy, no
Permissions-Policy, API answers without Cache-Control: no-store; and no inline script or style
in any template, so that the policy needs no 'unsafe-inline'."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client
from tests.personas import EMPLOYER

import jobgrant.service

pytestmark = pytest.mark.django_db
TEMPLATES = Path(jobgrant.service.__file__).parent
#: Rendered to PDF on the server, never served to a browser.
SERVER_SIDE_ONLY = {
    "grants/templates/grants/agreement/pdf.html",
    "web/templates/web/reports/annual_pdf.html",  # WeasyPrint reads it, never a browser
}
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.I)
INLINE_STYLE = re.compile(r"<style\b|\sstyle\s*=|\son[a-z]+\s*=", re.I)


def policy(answer) -> dict[str, str]:
    header = answer["Content-Security-Policy"]
    return dict([*part.strip().split(" ", 1), ""][:2] for part in header.split(";") if part.strip())


@pytest.mark.parametrize("path", ["/en/", "/fr/", "/en/sign-in/", "/api/v1/docs"])
def test_pages_carry_a_content_security_policy_without_inline_scripts(demo, path: str) -> None:
    answer = Client().get(path)
    assert answer.status_code == 200
    directives = policy(answer)
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'"
    assert directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in directives["script-src"] + directives["default-src"]
    assert directives["style-src"] == "'self' 'unsafe-inline'"  # GCDS's runtime styles
    assert "unsafe-eval" not in answer["Content-Security-Policy"]


@pytest.mark.parametrize("path", ["/en/", "/api/v1/openapi.json", "/healthz", "/nowhere"])
def test_every_answer_carries_a_permissions_policy(demo, path: str) -> None:
    answer = Client().get(path)
    features = dict(item.split("=") for item in answer["Permissions-Policy"].split(", "))
    for feature in ("camera", "microphone", "geolocation", "payment", "usb"):
        assert features[feature] == "()"
    for passkeys in ("publickey-credentials-create", "publickey-credentials-get"):
        assert features[passkeys] == "(self)"  # our own pages, never a frame they embed


def test_api_answers_are_never_stored(as_user) -> None:
    for answer in (
        as_user(EMPLOYER).get("/applications"),
        as_user(None).get("/applications"),  # a refusal too
        Client().get("/api/v1/openapi.json"),
    ):
        assert answer["Cache-Control"] == "no-store"


def test_pages_are_not_marked_no_store(demo) -> None:
    """no-store is for the API; the pages keep Django's own caching headers."""
    assert "no-store" not in Client().get("/en/").get("Cache-Control", "")


def test_no_template_served_to_a_browser_has_inline_script_or_style() -> None:
    found = []
    for template in sorted(TEMPLATES.rglob("templates/**/*.html")):
        name = template.relative_to(TEMPLATES).as_posix()
        if name in SERVER_SIDE_ONLY:
            continue
        text = template.read_text()
        found += [f"{name}: {m.group(0)}" for m in INLINE_SCRIPT.finditer(text)]
        found += [f"{name}: {m.group(0)}" for m in INLINE_STYLE.finditer(text)]
    assert found == []


def test_pages_carry_the_browser_headers(demo) -> None:
    answer = Client().get("/en/")
    assert answer["X-Content-Type-Options"] == "nosniff"
    assert answer["Referrer-Policy"] == "same-origin"
    assert answer["Cross-Origin-Opener-Policy"] == "same-origin"
    assert answer["X-Frame-Options"] == "DENY"


def test_the_session_cookie_is_http_only_and_same_site(demo) -> None:
    from tests.personas import PASSWORD

    client = Client()
    signed = client.post("/en/sign-in/", {"username": EMPLOYER.username, "password": PASSWORD})
    assert signed.status_code == 302
    cookie = signed.cookies["sessionid"]
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Lax"


@pytest.mark.parametrize(
    "missing",
    ["JOBGRANT_SECRET_KEY", "JOBGRANT_SIN_KEYS", "JOBGRANT_SIN_INDEX_KEY", "JOBGRANT_OTP_KEYS"],
)
def test_production_refuses_to_start_without_each_secret(missing: str, tmp_path) -> None:
    import base64
    import os
    import secrets
    import subprocess
    import sys

    key = base64.b64encode(secrets.token_bytes(32)).decode()
    env = {
        **os.environ,
        "JOBGRANT_ENV": "production",
        "JOBGRANT_VAR_DIR": str(tmp_path),
        "JOBGRANT_SECRET_KEY": secrets.token_urlsafe(50),
        "JOBGRANT_SIN_KEYS": f"k1:{key}",
        "JOBGRANT_SIN_INDEX_KEY": base64.b64encode(secrets.token_bytes(32)).decode(),
        "JOBGRANT_OTP_KEYS": f"o1:{key}",
    }
    del env[missing]
    done = subprocess.run(
        [sys.executable, "-c", "import jobgrant.service.settings"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert f"{missing} is required in production" in done.stderr
