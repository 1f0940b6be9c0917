"""The screenshots of the web application in docs/guide/web.md, in English and French.

    .venv/bin/python docs/screenshots.py

writes docs/img/employer-application-{en,fr}.png (the trainees step of an application with a
consortium partner, the grant computed live) and docs/img/officer-review-{en,fr}.png (the
officer's review, one figure's explanation open). Run by hand, not by the tests.

It does what `make run` does (migrate, collect the static files, load the demonstration data)
in a temporary directory, serves the application on a free local port, and drives Debian's
Chromium (/usr/bin/chromium, never a browser downloaded by Playwright) with the clock set to
2026-11-29, the date of the docs' other examples.
"""

from __future__ import annotations

import datetime as dt
import os
import socketserver
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "img"
CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
WIDTH = 1200
TRAINING = {
    "course": "CNC machining certificate",
    "start_date": "2027-01-11",
    "end_date": "2027-03-26",
    "hours": "120",
    "provider_name": "Mohawk College",
}


class ThreadedServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve() -> str:
    """Prepare a fresh database in a temporary directory and serve the application from it."""
    var = Path(tempfile.mkdtemp(prefix="jobgrant-screenshots-"))
    os.environ["JOBGRANT_VAR_DIR"] = str(var)
    os.environ["JOBGRANT_DATABASE_URL"] = f"sqlite:///{var / 'screenshots.sqlite3'}"
    os.environ.setdefault("JOBGRANT_ENV", "development")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's sync API runs an event loop
    from jobgrant.service.commands import prepare_database

    prepare_database(with_demo=True)
    from django.core.wsgi import get_wsgi_application

    server = make_server(
        "127.0.0.1",
        0,
        get_wsgi_application(),
        server_class=ThreadedServer,
        handler_class=QuietHandler,
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_port}"


def settle(page: Any) -> None:
    page.wait_for_load_state("load")
    page.wait_for_function(
        """() => [...document.querySelectorAll('*')]
            .filter((e) => e.localName.startsWith('gcds-'))
            .every((e) => e.classList.contains('hydrated'))"""
    )
    page.evaluate("document.fonts.ready")


def submit(page: Any, selector: str) -> None:
    with page.expect_navigation():
        page.click(selector)
    settle(page)


def address(language: str, route: str, **kwargs: object) -> str:
    """A page's address in `language` (the French ones have French words)."""
    from django.urls import reverse
    from django.utils import translation

    with translation.override(language):
        return reverse(f"web:{route}", kwargs=kwargs or None)


def sign_in(page: Any, language: str, username: str) -> None:
    page.context.clear_cookies()
    page.goto(address(language, "sign-in"))
    page.fill("#id_username", username)
    page.fill("#id_password", "jobgrant-demo")
    submit(page, "main form button[type=submit]")


def choose(page: Any, select: str, text: str) -> None:
    value = page.locator(f"{select} option", has_text=text).get_attribute("value")
    page.select_option(select, value=value)


def business_number(name: str) -> str:
    from jobgrant.service.registry.models import Employer

    return str(Employer.objects.get(name=name).business_number)


def employer_application(page: Any, language: str) -> int:
    """Apply for Acme with Lakeshore as partner; picture the trainees step; submit."""
    sign_in(page, language, "demo-employer")
    page.goto(address(language, "employer-apply-organizations"))
    settle(page)
    choose(page, "#lead", "Acme")
    submit(page, "#add-partner")
    page.fill("#partner-0", business_number("Lakeshore Logistics"))
    submit(page, "#continue")
    page.check("#setting-off-site")
    for key, value in TRAINING.items():
        page.fill(f"#{key}", value)
    page.check("#third_party-yes")
    submit(page, "#continue")
    choose(page, "#trainee-0-employer", "Acme")
    page.select_option("#trainee-0-status", value="existing-employee")
    page.fill("#trainee-0-tuition", "9000")
    submit(page, "#add-trainee")
    choose(page, "#trainee-1-employer", "Lakeshore")
    page.select_option("#trainee-1-status", value="new-hire")
    page.fill("#trainee-1-tuition", "6000")
    page.fill("#trainee-1-materials", "450")
    page.locator("#quote-status").filter(
        has_text="5,150.00" if language == "en" else "150,00"
    ).wait_for()
    page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
    page.wait_for_load_state("networkidle")
    top = page.locator("#trainee-1").bounding_box()
    bottom = page.locator("#calculate").bounding_box()
    assert top and bottom
    page.screenshot(
        path=str(IMAGES / f"employer-application-{language}.png"),
        full_page=True,
        clip={
            "x": 0,
            "y": top["y"] - 24,
            "width": WIDTH,
            "height": bottom["y"] + bottom["height"] - top["y"] + 48,
        },
    )
    submit(page, "#continue")
    page.check("#confirm")
    submit(page, "#submit-application")
    return int(page.url.rstrip("/").rsplit("/", 1)[-1])


def officer_review(page: Any, language: str, application: int) -> None:
    """The officer's review of that application, the federal share's explanation open."""
    sign_in(page, language, "demo-officer-on-1")
    page.goto(address(language, "officer-review", application_id=application))
    settle(page)
    explanation = page.locator("details[id^='explain-'][id$='federal']").first
    explanation.locator("summary").click()
    page.screenshot(path=str(IMAGES / f"officer-review-{language}.png"))


def main() -> int:
    if not Path(CHROMIUM).exists():
        sys.stderr.write("Debian's Chromium is missing: apt-get install chromium\n")
        return 1
    import time_machine
    from playwright.sync_api import sync_playwright

    with time_machine.travel(dt.datetime(2026, 11, 29, 15, 0, tzinfo=dt.UTC), tick=True):
        site = serve()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            for language in ("en", "fr"):
                context = browser.new_context(
                    base_url=site, viewport={"width": WIDTH, "height": 1500}, locale="en-CA"
                )
                page = context.new_page()
                application = employer_application(page, language)
                officer_review(page, language, application)
                context.close()
            browser.close()
    for page_name in ("employer-application", "officer-review"):
        for language in ("en", "fr"):
            sys.stdout.write(f"wrote docs/img/{page_name}-{language}.png\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
