"""Browser tests: Playwright driving Debian's Chromium against the live server, with axe-core.

Never `playwright install`: the browser is Debian's headless Chromium
(/usr/bin/chromium-headless-shell, the package chromium-headless-shell, installed by `make test`):
the same Blink as /usr/bin/chromium without the browser's window and user interface, which
Playwright itself uses for headless runs. It spent about a quarter less CPU on the axe
catalogue's pages (docs/testing.md, "Where the time went"). JOBGRANT_CHROMIUM names another
(/usr/bin/chromium, the full browser, is taken when the shell is missing). In CI (CI=true) a
missing browser fails the tests; elsewhere they skip and say why.

Fixtures: `browser` (one Chromium per session), `site` (the live server with the demonstration
data seeded for this test), `page` (one tab a module of one browser context for the session,
each test finding it as a new one; `own_page`, a context of its own; either fails the test on an
uncaught script error, a CSP violation or a request to our own origin that fails or answers
4xx/5xx), and `web` (helpers: sign in, wait for the GC Design System components, run axe,
check `lang`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.addresses import page_path
from tests.conftest import DECLARATIONS_STEP, TRAINING_STEP

from jobgrant.service.demo import DEMO_PASSWORD, seed

# The sync Playwright API runs an event loop in the test's thread; the ORM calls the tests make
# between browser steps are still synchronous, so Django's guard against async use is lifted.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ROOT = Path(__file__).resolve().parents[2]
HEADLESS_SHELL, FULL_BROWSER = Path("/usr/bin/chromium-headless-shell"), Path("/usr/bin/chromium")
CHROMIUM = Path(
    os.environ.get("JOBGRANT_CHROMIUM")
    or (HEADLESS_SHELL if HEADLESS_SHELL.exists() or not FULL_BROWSER.exists() else FULL_BROWSER)
)
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
#: WCAG 2.0 and 2.1, levels A and AA (W4, T16).
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
TIMEOUT_MS = 15_000


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.browser)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"{reason}; in CI the browser tests must run", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, launched once for the whole session."""
    if not CHROMIUM.exists():
        _unavailable(
            f"Debian's Chromium is not installed ({CHROMIUM}); `make test` installs it with "
            "apt-get install chromium-headless-shell"
        )
    if not AXE.exists():
        _unavailable(f"axe-core is missing ({AXE}); `make` installs it with npm ci")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True
        )
        yield chromium
        chromium.close()


#: Where the live server serves axe-core: a script of the page's own origin, which the pages'
#: Content-Security-Policy (script-src 'self') lets run, fetched once per test and then taken
#: from Chromium's cache, compiled code included. Evaluated through the DevTools protocol, its
#: 550 kB were sent and compiled again on every page (0.3-0.6 s each, as long as axe's run).
AXE_URL = "/__tests__/axe.min.js"
#: A blank page of the live server's own origin, where a reused tab waits between tests: nothing
#: of the last test's page runs on, and Chromium keeps the tab's renderer (and what it has
#: parsed and compiled), which about:blank, another site, made it start anew for each test.
BLANK_URL = "/__tests__/blank.html"
BLANK = b"<!doctype html><html lang=en><title>Between two tests</title></html>"


def _served_by_the_service(application: Any) -> Any:
    """The live server's static handler: none, so that the service's own WhiteNoise answers;
    and axe-core at AXE_URL."""
    script = AXE.read_bytes() if AXE.exists() else b""
    headers = [
        ("Content-Type", "text/javascript; charset=utf-8"),
        ("Content-Length", str(len(script))),
        ("Cache-Control", "max-age=31536000, immutable"),
    ]

    def serve(environ: dict[str, Any], start_response: Any) -> Any:
        if environ["PATH_INFO"] == AXE_URL:
            start_response("200 OK", headers)
            return [script]
        if environ["PATH_INFO"] == BLANK_URL:
            start_response("200 OK", [("Content-Type", "text/html; charset=utf-8")])
            return [BLANK]
        return application(environ, start_response)

    return serve


@pytest.fixture(scope="session")
def live_server(request: pytest.FixtureRequest) -> Iterator[Any]:
    """pytest-django's live server, with the static files served as the service serves them:
    by WhiteNoise, with a Cache-Control max-age, so that Chromium asks once per test for each
    file rather than on every page (Django's static handler sends none: a page of the catalogue
    asked for 17 files again each time, 666 requests for 40 pages, all answered in the test's
    own process). The max-age is a year, not the 60 s of the tests' settings, because the
    server's clock is frozen days before the files' dates: a 60-second answer is stale at once.
    Only this server's middleware, made as it starts, has it."""
    from django.test import override_settings
    from pytest_django.live_server_helper import LiveServer

    address = (
        request.config.getvalue("liveserver")
        or os.getenv("DJANGO_LIVE_TEST_SERVER_ADDRESS")
        or "localhost"
    )
    server = LiveServer(address, start=False)
    server.thread.static_handler = _served_by_the_service
    with override_settings(WHITENOISE_MAX_AGE=365 * 24 * 3600):
        server.start()
    yield server
    server.stop()


@pytest.fixture
def site(live_server: Any, transactional_db: None) -> str:
    """The live server's address, with the demonstration data seeded (each test starts afresh:
    a live-server test runs in a real transaction and the database is emptied after it)."""
    seed()
    return str(live_server.url)


@pytest.fixture
def page(reused_tab: Any) -> Any:
    """Every browser test's page: the module's one tab of the shared context (`reused_tab`)."""
    return reused_tab


@dataclass
class PageProblems:
    """What went wrong in the page behind the test's back: script errors, failed requests."""

    origin: str
    errors: list[str] = field(default_factory=list)

    def request_failed(self, request: Any) -> None:
        # A navigation aborts what the page it leaves was still loading (fonts, htmx calls).
        if request.url.startswith(self.origin) and request.failure != "net::ERR_ABORTED":
            self.errors.append(
                f"request failed: {request.method} {request.url} ({request.failure})"
            )

    def response(self, response: Any) -> None:
        if response.url.startswith(self.origin) and response.status >= 400:
            # 4xx pages a test asks for on purpose are checked by the test itself.
            # Chromium asks for /favicon.ico on its own; the pages link no icon.
            kind = response.request.resource_type
            if kind != "document" and not response.url.endswith("/favicon.ico"):
                self.errors.append(f"HTTP {response.status}: {response.url}")

    def page_error(self, error: Any) -> None:
        self.errors.append(f"script error: {error}")

    def console(self, message: Any) -> None:
        """A Content-Security-Policy violation is reported on the console: it fails the test."""
        if "Content Security Policy" in message.text:
            self.errors.append(f"CSP violation: {message.text}")


#: The window of the browser tests, unless a test asks for another.
DESKTOP = {"width": 1280, "height": 900}


def _watched_context(browser: Any, site: str, viewport: dict[str, int]) -> tuple[Any, PageProblems]:
    """A browser context on the live server, and what its pages' requests to our own origin
    ran into (a failure, a 4xx or 5xx)."""
    context = browser.new_context(base_url=site, locale="en-CA", viewport=viewport)
    context.set_default_timeout(TIMEOUT_MS)
    problems = PageProblems(origin=site)
    context.on("requestfailed", problems.request_failed)
    context.on("response", problems.response)
    return context, problems


def _watched_tab(context: Any, problems: PageProblems) -> Any:
    """A new tab of `context` whose script errors and CSP violations go to `problems`."""
    tab = context.new_page()
    tab.on("pageerror", problems.page_error)
    tab.on("console", problems.console)
    return tab


def _assert_no_problems(problems: PageProblems) -> None:
    assert not problems.errors, "the page had problems:\n" + "\n".join(problems.errors)


@contextmanager
def watched_page(browser: Any, site: str, viewport: dict[str, int]) -> Iterator[Any]:
    """A fresh browser context's page; when it closes, a script error, a CSP violation or a
    request to our own origin that failed fails the test."""
    context, problems = _watched_context(browser, site, viewport)
    try:
        yield _watched_tab(context, problems)
    finally:
        context.close()
    _assert_no_problems(problems)


@pytest.fixture
def own_page(browser: Any, site: str) -> Iterator[Any]:
    """A browser context of its own, for a test that changes the browser beyond a page's
    cookies and storage (test_passkeys.py: a virtual authenticator through the DevTools
    protocol)."""
    with watched_page(browser, site, DESKTOP) as tab:
        yield tab


@pytest.fixture(scope="session")
def shared_context(browser: Any, live_server: Any) -> Iterator[tuple[Any, PageProblems]]:
    """One browser context for every browser test's `page` (`reused_tab`)."""
    context, problems = _watched_context(browser, str(live_server.url), DESKTOP)
    yield context, problems
    context.close()


@pytest.fixture(scope="module")
def module_tab(shared_context: tuple[Any, PageProblems]) -> Iterator[list[Any]]:
    """The module's one tab (in a list: a test that fails has it replaced by a new one)."""
    context, problems = shared_context
    holder = [_watched_tab(context, problems)]
    yield holder
    holder[0].close()


_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Iterator[None]:
    outcome = yield
    if outcome.get_result().failed:
        item.stash[_FAILED] = True


@pytest.fixture
def reused_tab(
    request: pytest.FixtureRequest,
    module_tab: list[Any],
    shared_context: tuple[Any, PageProblems],
    site: str,
) -> Iterator[Any]:
    """The module's one tab, for tests that open pages, click and type: every browser test's
    `page`, left on a blank page of the site between tests. A browser context of its own for
    each test cost Chromium about 1.2 s of CPU more (the static files fetched, a renderer
    started, the GC Design System's scripts compiled again for the first page): a fifth of a
    small catalogue group's. Each test has the tab as a new one: no cookie, an empty
    sessionStorage and localStorage, the desktop window, a blank page; after a failed test, a
    new tab. A script error, a CSP violation or a failed request to our own origin fails the
    test. A test that changes more of the browser (a virtual authenticator) takes `own_page`."""
    context, problems = shared_context
    context.clear_cookies()
    problems.errors.clear()
    tab = module_tab[0]
    tab.set_viewport_size(DESKTOP)
    try:
        yield tab
    finally:
        if request.node.stash.get(_FAILED, False):
            tab.close()
            module_tab[0] = _watched_tab(context, problems)
        else:
            if tab.url.startswith(site):
                tab.evaluate("sessionStorage.clear(); localStorage.clear()")
            tab.goto(BLANK_URL)  # nothing of the test's last page runs on
        context.clear_cookies()
    _assert_no_problems(problems)


def format_violations(where: str, violations: list[dict[str, Any]]) -> str:
    """axe's violations, one paragraph each: rule, impact, help, the elements and a help link."""
    lines = [f"{len(violations)} axe violation(s) on {where}:"]
    for violation in violations:
        lines.append(
            f"- {violation['id']} ({violation.get('impact')}): {violation['help']}"
            f"\n  {violation['helpUrl']}"
        )
        for node in violation["nodes"][:5]:
            target = " >>> ".join(
                " ".join(part) if isinstance(part, list) else part for part in node["target"]
            )
            lines.append(f"    at {target}")
            summary = (node.get("failureSummary") or "").replace("\n", " ")
            if summary:
                lines.append(f"       {summary[:300]}")
        if len(violation["nodes"]) > 5:
            lines.append(f"    … and {len(violation['nodes']) - 5} more element(s)")
    return "\n".join(lines)


class Web:
    """Helpers for one test's page."""

    def __init__(self, page: Any, site: str) -> None:
        self.page = page
        self.site = site

    def goto(self, path: str, status: int | None = 200) -> Any:
        """Open a page and wait for it; check its HTTP status unless status is None."""
        response = self.page.goto(path)
        assert response is not None, f"no response for {path}"
        if status is not None:
            assert response.status == status, f"{path}: HTTP {response.status}, not {status}"
        self.settle()
        return response

    def settle(self) -> None:
        """Wait until the page has loaded, every GC Design System component has rendered, and
        no animation is running. The design system's style sheet fades the body in (opacity 0
        to 1 in 50 ms): axe run within it blends every colour with the white behind it, and
        failed the contrast of a danger button (4.4 for 4.5) on a quick machine."""
        self.page.wait_for_load_state("load")
        self.page.wait_for_function(
            """() => [...document.querySelectorAll('*')]
                .filter((e) => e.localName.startsWith('gcds-'))
                .every((e) => e.classList.contains('hydrated'))
              && document.getAnimations().every((a) => a.playState !== 'running'
                || a.effect?.getComputedTiming().endTime === Infinity)"""
        )

    def sign_in(self, username: str, language: str = "en", password: str = DEMO_PASSWORD) -> None:
        """Sign in through the sign-in page, as a person would."""
        self.goto(page_path(language, "/sign-in/"))
        self.page.fill("#id_username", username)
        self.page.fill("#id_password", password)
        with self.page.expect_navigation():
            self.page.click("main button[type=submit]")
        self.settle()
        if page_path(language, "/sign-in/code/") in self.page.url:  # staff: their app's code
            from tests.personas import totp_code

            self.page.fill("#id_code", totp_code(username))
            with self.page.expect_navigation():
                self.page.click("main button[type=submit]")
            self.settle()
        assert page_path(language, "/sign-in/") not in self.page.url, f"{username} not signed in"

    def sign_in_through_django(self, username: str, language: str = "en") -> None:
        """Signed in through the same sign-in pages (password, then the authenticator's code),
        asked by Django's test client in this process, and its cookies given to the browser.
        For the tests that check the pages behind the sign-in, not the sign-in itself (which
        `sign_in` and tests/e2e/test_sign_in_security.py walk in the browser): three pages
        fewer for Chromium to load and render per test."""
        from django.conf import settings
        from django.test import Client
        from django.urls import reverse
        from django.utils import translation

        client = Client()
        with translation.override(language):
            sign_in, code = reverse("web:sign-in"), reverse("web:second-factor")
        answer = client.post(
            sign_in, {"username": username, "password": DEMO_PASSWORD}, follow=True
        )
        if answer.request["PATH_INFO"] == code:
            from tests.personas import totp_code

            answer = client.post(code, {"code": totp_code(username)}, follow=True)
        where = answer.request["PATH_INFO"]
        assert answer.status_code == 200 and where not in {sign_in, code}, (
            f"{username} could not sign in: {answer.status_code} at {where}"
        )
        assert settings.SESSION_COOKIE_NAME in client.cookies, f"{username} has no session"
        self.page.context.add_cookies(
            [
                {"name": name, "value": morsel.value, "url": self.site}
                for name, morsel in client.cookies.items()
            ]
        )

    def lang(self) -> str:
        return str(self.page.evaluate("document.documentElement.lang"))

    def assert_lang(self, language: str) -> None:
        assert self.lang() == language, f"{self.page.url}: lang={self.lang()!r}, not {language!r}"

    def axe(self) -> list[dict[str, Any]]:
        """axe-core's WCAG 2.0/2.1 A and AA violations on the page as it is now.

        Only the violations cross the DevTools protocol: axe's whole result (43 kB on the
        officer's dashboard: every rule's description and tags, one passing node each) cost this
        process 0.03 to 0.04 s of CPU a check to receive and validate, the violations 0.004 s."""
        if not self.page.evaluate("typeof window.axe !== 'undefined'"):
            self.page.add_script_tag(url=AXE_URL)
        violations = self.page.evaluate(
            "async (tags) => (await axe.run(document, {runOnly: {type: 'tag', values: tags},"
            " resultTypes: ['violations']})).violations",
            AXE_TAGS,
        )
        return list(violations)

    def assert_accessible(self, where: str = "") -> None:
        violations = self.axe()
        assert not violations, format_violations(where or self.page.url, violations)

    def focused(self) -> dict[str, Any]:
        """The element that has the focus (through shadow roots): its tag, id, text and host."""
        return dict(
            self.page.evaluate(
                """() => {
                    let element = document.activeElement, host = null;
                    while (element && element.shadowRoot && element.shadowRoot.activeElement) {
                        host = host || element;
                        element = element.shadowRoot.activeElement;
                    }
                    if (!element) return {};
                    return {tag: element.localName, id: element.id || '',
                            name: element.getAttribute('name') || '',
                            text: (element.innerText || element.value || '').trim().slice(0, 80),
                            host: host ? host.localName + (host.id ? '#' + host.id : '') : ''};
                }"""
            )
        )

    def wait_for_focus_on(self, selector: str, timeout_ms: int = 3000) -> bool:
        """True once the focus is on (or inside the shadow root of) the element `selector`."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            self.page.wait_for_function(
                """(selector) => {
                    const target = document.querySelector(selector);
                    return !!target && (document.activeElement === target
                        || target.contains(document.activeElement)
                        || (target.shadowRoot && target.shadowRoot.activeElement !== null));
                }""",
                arg=selector,
                timeout=timeout_ms,
            )
        except PlaywrightTimeout:
            return False
        return True

    def other_language_link(self) -> str:
        """The href of the language toggle (the gcds-header's lang-href)."""
        return str(self.page.locator("gcds-header").get_attribute("lang-href"))

    def sign_out(self) -> None:
        """The header's sign-out button."""
        with self.page.expect_navigation():
            self.page.click(SIGN_OUT_BUTTON)
        self.settle()

    def apply(self, language: str = "en") -> Apply:
        return Apply(self, language)

    def report(self, where: str, violations: list[dict[str, Any]]) -> str:
        return format_violations(where, violations)


@pytest.fixture
def web(page: Any, site: str) -> Web:
    return Web(page, site)


# --- The application as an employer fills it in -------------------------------------------------

#: The demonstration employers (demo-employer acts for both); their business numbers are made by
#: jobgrant.service.demo.business_number.
ACME = "Acme Precision Machining"
LAKESHORE = "Lakeshore Logistics"
TRAINING = TRAINING_STEP  # read only: each use copies it


def business_number_of(name: str) -> str:
    from jobgrant.service.registry.models import Employer

    return str(Employer.objects.get(name=name).business_number)


@pytest.fixture
def make_body(make_body: Any) -> Any:
    """The browser tests are the demonstration as people use it: they sign in as the demonstration
    accounts (not the other tests' personas), so their applications name the demonstration
    employer."""

    def body(**changes: Any) -> Any:
        employers = [{"id": "acme", "business_number": business_number_of(ACME)}]
        return make_body(**{"employers": employers, **changes})

    return body


#: The header's sign-out button, in either language (/en/sign-out/, /fr/deconnexion/).
SIGN_OUT_BUTTON = ", ".join(
    f"gcds-header form[action$='{page_path(language, '/sign-out/')}'] button"
    for language in ("en", "fr")
)


class Apply:
    """The employer's step-by-step application, filled in with the mouse-free Playwright API."""

    def __init__(self, web: Web, language: str = "en") -> None:
        self.web, self.page, self.language = web, web.page, language

    def url(self, step: str) -> str:
        return page_path(self.language, f"/employer/apply/{step}/")

    def next(self, button: str = "#continue") -> None:
        with self.page.expect_navigation():
            self.page.click(button)
        self.web.settle()

    def organizations(self, lead: str = ACME, partners: tuple[str, ...] = (LAKESHORE,)) -> None:
        self.web.goto(self.url("organizations"))
        value = self.page.locator("#lead option", has_text=lead).get_attribute("value")
        self.page.select_option("#lead", value=value)
        for i, partner in enumerate(partners):
            self.next("#add-partner")
            self.page.fill(f"#partner-{i}", business_number_of(partner))
        self.next()
        assert self.page.url.endswith(self.url("training")), self.page.url

    def training(self, **changes: str) -> None:
        values = {**TRAINING, **changes}
        self.web.goto(self.url("training"))
        self.page.check(f"#setting-{values['setting']}")
        for key in ("course", "start_date", "end_date", "hours", "provider_name"):
            self.page.fill(f"#{key}", values[key])
        self.page.check(f"#third_party-{values['third_party']}")
        self.next()
        assert self.page.url.endswith(self.url("trainees")), self.page.url

    def trainee(
        self,
        index: int,
        employer: str = ACME,
        status: str = "existing-employee",
        tuition: str = "9000",
    ) -> None:
        value = self.page.locator(f"#trainee-{index}-employer option", has_text=employer)
        self.page.select_option(f"#trainee-{index}-employer", value=value.get_attribute("value"))
        self.page.select_option(f"#trainee-{index}-status", value=status)
        self.page.fill(f"#trainee-{index}-tuition", tuition)

    def trainees(self, go_on: bool = True) -> None:
        """Two trainees, one for each organization: $9,000 and $6,000 of tuition."""
        self.web.goto(self.url("trainees"))
        self.trainee(0, ACME, "existing-employee", "9000")
        self.next("#add-trainee")
        self.trainee(1, LAKESHORE, "new-hire", "6000")
        if go_on:
            self.next()
            assert self.page.url.endswith(self.url("declarations")), self.page.url

    def declarations(self, **changes: str) -> None:
        """The declarations step as DECLARATIONS_STEP answers it: radios, text, ticks."""
        values = {**DECLARATIONS_STEP, **changes}
        self.web.goto(self.url("declarations"))
        for key, value in values.items():
            if self.page.locator(f"input[type=radio][name={key}]").count():
                self.page.check(f"#{key}-{value}")
            elif value == "yes" and key.endswith("attests_no_conflict"):
                self.page.check(f"#{key}")
            else:
                self.page.fill(f"#{key}", value)
        self.next()
        assert self.page.url.endswith(self.url("review")), self.page.url

    def wait_for_quote(self) -> str:
        """The live quote's status line, once htmx has brought it (it names the grant)."""
        status = self.page.locator("#quote-status")
        status.filter(has_text="$").wait_for()
        return str(status.inner_text())

    def through_review(self, partners: tuple[str, ...] = (LAKESHORE,)) -> None:
        self.organizations(partners=partners)
        self.training()
        self.trainees()
        self.declarations()


@pytest.fixture
def apply(web: Web) -> Apply:
    return Apply(web)


# --- The keyboard alone ---------------------------------------------------------------------------


class Keyboard:
    """Tab, Shift+Tab, Enter, Space, arrows and typing: no mouse, no element handles to click."""

    def __init__(self, web: Web) -> None:
        self.web, self.page, self.keys = web, web.page, web.page.keyboard
        self.presses = 0

    def active(self) -> str:
        """A short description of the focused element (its id, else its tag and text)."""
        found = self.web.focused()
        return found.get("id") or f"<{found.get('tag')}> {found.get('text', '')[:40]!r}"

    def is_on(self, selector: str) -> bool:
        return bool(
            self.page.evaluate(
                "(s) => !!document.activeElement && document.activeElement.matches(s)", selector
            )
        )

    def tab_to(self, selector: str, *, backwards: bool = False, limit: int = 200) -> None:
        """Press Tab (or Shift+Tab) until the focus is on `selector`; fail if it never does."""
        key = "Shift+Tab" if backwards else "Tab"
        for _ in range(limit):
            if self.is_on(selector):
                return
            self.keys.press(key)
            self.presses += 1
        raise AssertionError(
            f"{limit} presses of {key} never reached {selector} on {self.page.url}"
        )

    def press(self, key: str, *, navigates: bool = False) -> None:
        assert key in {"Enter", "Space", "Tab", "Shift+Tab"} or key.startswith("Arrow"), key
        self.presses += 1
        if navigates:
            with self.page.expect_navigation():
                self.keys.press(key)
            self.web.settle()
        else:
            self.keys.press(key)

    def type(self, text: str) -> None:
        self.keys.type(text)

    def choose(self, select: str, label_start: str) -> None:
        """Pick an option of the focused <select> by typing the start of its label."""
        assert self.is_on(select), f"the focus is on {self.active()}, not {select}"
        self.keys.type(label_start)
        chosen = self.page.evaluate(
            "(s) => { const e = document.querySelector(s);"
            " return e.options[e.selectedIndex].text; }",
            select,
        )
        assert str(chosen).startswith(label_start), f"{select}: typing chose {chosen!r}"

    def date(self, selector: str, iso: str) -> None:
        """Type a date into the focused date field, as its hint asks: YYYY-MM-DD (a text field,
        the same in both languages, whatever the browser's locale)."""
        assert self.is_on(selector), f"the focus is on {self.active()}, not {selector}"
        self.keys.type(iso)
        typed = self.page.evaluate("(s) => document.querySelector(s).value", selector)
        assert typed == iso, f"{selector}: typing {iso} gave {typed!r}"


@pytest.fixture
def keyboard(web: Web) -> Keyboard:
    return Keyboard(web)
