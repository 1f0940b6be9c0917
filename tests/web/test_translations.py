"""T15: official languages. The French catalogue is complete, no string escaped translation, and
every page reached by following links, as each kind of user, is in one language: `lang` matches
its /en/ or /fr/ prefix, no known English UI word shows on a French page (nor a French one on an
English page), and the language toggle leads to a 200 page in the other language.

The crawl follows the links of each page (GET only), from the landing page and the user's start
page, with demonstration data in every application state; it opens at most a few URLs per route.
"""

from __future__ import annotations

import os
import re
import shutil
from collections import Counter, deque
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import polib  # type: ignore[import-untyped]
import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import Resolver404, resolve
from django.utils import translation
from tests.addresses import page_path
from tests.personas import (
    ANALYST,
    APPLICANT,
    AUDITOR,
    EMPLOYER,
    FINANCE,
    OFFICER,
    PARTNER,
    SECOND_OFFICER,
)

import jobgrant.service.web
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.demo import DEMO_PASSWORD
from jobgrant.service.grants.applications import actions
from jobgrant.service.web.messages import CATALOGUE, problems

WEB = Path(jobgrant.service.web.__file__).parent


# --- The catalogue --------------------------------------------------------------------------------


def test_the_french_catalogue_has_no_untranslated_fuzzy_or_obsolete_message() -> None:
    assert problems() == []


def keys(path: Path) -> dict[tuple[str, str], polib.POEntry]:
    return {(entry.msgctxt or "", entry.msgid): entry for entry in polib.pofile(str(path))}


def test_makemessages_finds_no_string_missing_from_the_catalogue(
    tmp_path: Path, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Django's makemessages, run on a copy of the service, adds nothing to the catalogue: every
    marked string of the templates and the code (the web app's, and the labels the domain apps
    define for their codes) is translated, and none is left over."""
    if shutil.which("xgettext") is None or shutil.which("msgmerge") is None:
        if os.environ.get("CI"):
            pytest.fail("GNU gettext (xgettext, msgmerge) is missing; `make` installs it")
        pytest.skip("GNU gettext (xgettext, msgmerge) is not installed; `make` installs it")
    copy = tmp_path / "service"
    skipped = shutil.ignore_patterns("static", "__pycache__", "*.mo")
    shutil.copytree(WEB.parent, copy, ignore=skipped)
    catalogue_dir = copy / "web" / "locale"
    settings.LOCALE_PATHS = [catalogue_dir]  # every marked string goes to the one catalogue
    monkeypatch.chdir(copy)
    call_command("makemessages", locale=["fr"], domain="django", no_location=True, verbosity=0)
    before = keys(CATALOGUE)
    after = keys(catalogue_dir / "fr" / "LC_MESSAGES" / "django.po")
    new = sorted(
        msgid for key, (_context, msgid) in zip(after, after, strict=True) if key not in before
    )
    assert not new, f"strings marked for translation but missing from django.po: {new}"
    unused = sorted(msgid for (_context, msgid), entry in after.items() if entry.obsolete)
    assert not unused, f"django.po translates strings that no template or code uses: {unused}"
    untranslated = [e.msgid for e in after.values() if not e.obsolete and not e.translated()]
    assert not untranslated, f"untranslated after makemessages: {untranslated}"


# --- The crawl ------------------------------------------------------------------------------------

#: English words of the interface that are not French words (a dictionary heuristic; words that
#: are also French, such as "date", "total", "budget" or "page", are left out).
ENGLISH_WORDS = """
    the and of with your you this that these from for is are was were will has have not yes
    to at by be it its which there here please required submit submitted apply applied sign
    signed home back next previous save cancel search filter approve approved deny denied
    recommend recommended withdraw withdrawn dashboard review employer employers trainee trainees
    training provider cost costs amount funding grant state step federal committed available
    allocated disbursed verify verified chain entry entries trail policy year years days more than
    any none choose enter must cannot can should only each every other new hire existing employee
    unemployed hours start end error problem what who how when where why about help privacy
    terms skip main work show download calculate add remove change partner partners
    organization organizations details received history reason decision
"""
ENGLISH = frozenset(ENGLISH_WORDS.split())
#: French words that would give away an untranslated English page the other way round.
FRENCH_WORDS = """
    les des une vous votre vos demande demandes subvention employeur employeurs formation
    pour avec sont dans aux sur par être ont était également rechercher afficher étape
"""
FRENCH = frozenset(FRENCH_WORDS.split())
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)
PER_ROUTE = 3  # URLs opened per route name (filters and pages of a list add nothing new)
SHOWN_ATTRIBUTES = ("title", "aria-label", "alt", "placeholder", "heading", "contextual-heading")


class PageText(HTMLParser):
    """What a person reads: text and labelling attributes, without scripts, styles, <code> and
    anything marked as another language (lang=... on the element or an ancestor)."""

    SKIPPED = frozenset({"script", "style", "code", "template", "kbd", "samp"})
    VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta"})

    def __init__(self, language: str) -> None:
        super().__init__(convert_charrefs=True)
        self.language = language
        self.stack: list[tuple[str, bool]] = []  # (tag, skipped)
        self.parts: list[str] = []
        self.html_lang = ""
        self.links: list[str] = []
        self.lang_href = ""

    @property
    def skipping(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {key: value or "" for key, value in attrs}
        if tag == "html":
            self.html_lang = values.get("lang", "")
        if tag == "a" and values.get("href"):
            self.links.append(values["href"])
        if tag == "gcds-header":
            self.lang_href = values.get("lang-href", "")
        other_language = bool(values.get("lang")) and values["lang"][:2] != self.language
        skipped = (
            self.skipping
            or tag in self.SKIPPED
            or other_language
            or values.get("translate") == "no"
        )
        if not skipped:
            self.parts += [values[name] for name in SHOWN_ATTRIBUTES if values.get(name)]
            if tag == "input" and values.get("type") in ("submit", "button"):
                self.parts.append(values.get("value", ""))
        if tag not in self.VOID:
            self.stack.append((tag, skipped))

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                del self.stack[index:]
                break

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)

    def text(self) -> str:
        return " ".join(" ".join(self.parts).split())


def read(html: str, language: str) -> PageText:
    parser = PageText(language)
    parser.feed(html)
    return parser


#: Identifiers shown as they are (a scenario's file name, a parameter, a username): lower-case
#: ASCII words joined by "-", "_" or ".".
IDENTIFIER = re.compile(r"(?<![\w-])[a-z0-9]+(?:[-_.][a-z0-9]+)+(?![\w-])")
#: A hash as the audit trail shows it (hex with a digit): "3be9…" is not the word "be".
DIGEST = re.compile(r"\b(?=[0-9a-f]*\d)[0-9a-f]{7,}\b")


def foreign_words(text: str, language: str, data: tuple[str, ...]) -> list[str]:
    """Words of the other language in the page's text (data such as names taken out first)."""
    for value in data:
        text = text.replace(value, " ")
    words = [w.lower() for w in WORD.findall(IDENTIFIER.sub(" ", DIGEST.sub(" ", text)))]
    wrong = ENGLISH if language == "fr" else FRENCH
    return sorted({w for w in words if w in wrong})


def route_of(path: str, language: str) -> str | None:
    try:
        with translation.override(language):
            match = resolve(urlsplit(path).path)
    except Resolver404:
        return None
    return match.view_name


def crawl(client: Client, language: str, starts: list[str]) -> Iterator[tuple[str, str, Any]]:
    """Breadth first over the same-language links: (url asked for, url answered after any
    redirect, response) of each HTML page."""
    seen: set[str] = set()
    per_route: Counter[str] = Counter()
    queue = deque(starts)
    while queue:
        url = queue.popleft()
        if url in seen:
            continue
        seen.add(url)
        route = route_of(url, language) or url
        if per_route[route] >= PER_ROUTE or route.endswith("-pdf"):
            continue  # a PDF is no page: WeasyPrint's 1 to 3 s each, tested with pypdf elsewhere
        per_route[route] += 1
        response = client.get(url, follow=True)
        if "text/html" not in response.get("Content-Type", ""):
            continue
        final = response.redirect_chain[-1][0] if response.redirect_chain else url
        yield url, final, response
        for href in read(response.content.decode(), language).links:
            target = urljoin(final, href.split("#")[0])
            parts = urlsplit(target)
            if parts.netloc or not parts.path.startswith(f"/{language}/") or not target:
                continue
            queue.append(parts.path + (f"?{parts.query}" if parts.query else ""))


def every_state(make_body: Callable[..., dict[str, Any]]) -> None:
    """Applications in every state, so that every kind of detail and review page exists."""
    employer = EMPLOYER.get()
    first, second = OFFICER.get(), SECOND_OFFICER.get()

    def submitted() -> Any:
        application = actions.create_application(employer, make_body())
        return actions.submit_application(employer, application)

    actions.create_application(employer, make_body())  # a draft
    submitted()
    recommended = actions.recommend_application(first, submitted())
    actions.approve_application(second, actions.recommend_application(first, submitted()))
    actions.deny_application(first, submitted(), DENIAL)
    actions.withdraw_application(employer, submitted())
    assert recommended.state == "recommended"


#: The people whose pages are crawled: None is a visitor who has not signed in.
PEOPLE = [
    None,
    EMPLOYER.username,
    OFFICER.username,
    FINANCE.username,
    ANALYST.username,
    AUDITOR.username,
    "admin",
]
DENIAL = "Training plan incomplete / Plan de formation incomplet"
#: What people typed and the names of the demonstration data: the same in both languages.
DATA = (
    DENIAL,
    APPLICANT.name,
    PARTNER.name,
    "Mohawk College",
    "Canada Job Grant",  # the stream's English name stays beside the French one in lists
)


@pytest.fixture
def everything(demo: None, make_body: Callable[..., dict[str, Any]]) -> None:
    every_state(make_body)
    User.objects.create_user(username="admin", password=DEMO_PASSWORD, role=Role.ADMIN)


def client_for(username: str | None) -> Client:
    client = Client()
    if username:
        client.force_login(User.objects.get(username=username))
    return client


#: What a URL answered a person: its first status (a redirect's, if it redirected) and the
#: `lang` of the page it ended on.
Answer = tuple[int, str]


HEADING = re.compile(r"<(h[12])\b[^>]*>(.*?)</\1>", re.DOTALL)


def repeated_headings(html: str) -> list[str]:
    """The page's title and section headings (h1, h2) that say the same thing twice: a section
    headed like the page itself tells a screen reader's user nothing (the French dashboard's
    "Vos demandes" was both)."""
    said = [" ".join(re.sub(r"<[^>]+>", " ", text).split()) for _, text in HEADING.findall(html)]
    return sorted({text for text in said if text and said.count(text) > 1})


def answer(response: Any, language: str) -> Answer:
    redirects = getattr(response, "redirect_chain", None)  # only when the client followed
    status = redirects[0][1] if redirects else response.status_code
    return status, read(response.content.decode(), language).html_lang


def crawl_one_language(
    client: Client, language: str, data: tuple[str, ...]
) -> tuple[int, list[str], dict[str, Answer], list[tuple[str, str, int]]]:
    """The crawl in `language`: the pages read, what was wrong with them, each URL's answer,
    and the toggles still to follow: (page, its toggle's address, the status expected)."""
    other = "en" if language == "fr" else "fr"
    starts = [f"/{language}/", page_path(language, "/home/"), f"/{language}/no-such-page/"]
    found: list[str] = []
    answers: dict[str, Answer] = {}
    toggles: list[tuple[str, str, int]] = []
    for asked, url, response in crawl(client, language, starts):
        answers[asked] = answer(response, language)
        page = read(response.content.decode(), language)
        if page.html_lang != language:
            found.append(f"{url}: <html lang={page.html_lang!r}>")
        words = foreign_words(page.text(), language, data)
        if words:
            found.append(f"{url}: {'English' if language == 'fr' else 'French'} words {words}")
        repeated = repeated_headings(response.content.decode())
        if repeated:
            found.append(f"{url}: headings said twice {repeated}")
        if not page.lang_href.startswith(f"/{other}/"):
            found.append(f"{url}: the toggle leads to {page.lang_href!r}")
            continue
        toggles.append((url, page.lang_href, 404 if response.status_code == 404 else 200))
    return len(answers), found, answers, toggles


@pytest.mark.parametrize("person", PEOPLE, ids=lambda person: person or "visitor")
def test_every_page_is_in_one_language_and_toggles_to_the_other(
    everything: None, person: str | None
) -> None:
    """Each language crawled as the person, then each page's toggle followed: it answers the
    page's status (200, or 404 for a page not found) in the other language. Most toggles lead
    to a page the other language's crawl has read already, as the same person: its answer is
    taken from there rather than asked for a second time."""
    client = client_for(person)
    # Usernames and email addresses are data, the same in both languages; the longest are
    # taken out first ("partner-employer" before "employer").
    names = [*User.objects.values_list("username", flat=True)]
    names += User.objects.exclude(email="").values_list("email", flat=True)
    data = DATA + tuple(sorted(names, key=len, reverse=True))
    crawled = {language: crawl_one_language(client, language, data) for language in ("fr", "en")}
    reports = []
    for language, (pages, found, _answers, toggles) in crawled.items():
        other = "en" if language == "fr" else "fr"
        known = crawled[other][2]
        for url, toggle, expected in toggles:
            status, lang = known.get(toggle) or answer(client.get(toggle), other)
            if status != expected:
                found.append(f"{url}: its toggle {toggle} answers {status}")
            elif lang != other:
                found.append(f"{url}: its toggle {toggle} is not in {other}")
        if pages < 2:
            found.append(f"the crawl reached only {pages} page(s)")
        if found:
            reports.append(f"{pages} pages crawled in {language} as {person}:\n" + "\n".join(found))
    assert not reports, "\n".join(reports)
