"""T9: every route is protected, and every route is classified.

The routes come from Django's URL resolver (both languages) and the API's operations from its
OpenAPI schema at /api/v1/openapi.json. A route is public only if it is on an allow-list below;
every other route must turn anonymous callers away (302 to sign-in, 401 or 403), pages must
refuse other roles and any POST without a CSRF token, and the API must not accept a session
cookie in place of a bearer token. A new route fails these tests until it is classified here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import translation
from tests.addresses import page_path
from tests.personas import ADMIN, ANALYST, AUDITOR, EMPLOYER, FINANCE, OFFICER, PROGRAM_MANAGER

from jobgrant.service.accounts.models import User

pytestmark = pytest.mark.django_db
API = "api/v1/"
LANGUAGES = ("en", "fr")

# --- The classification (a new route must be added here) ---------------------------------

PUBLIC_ROUTES = {  # route -> what an anonymous GET answers
    "": 302,  # to the landing page in the visitor's language
    "api/v1/": 404,  # Ninja's index, which only tells Ninja where it is mounted
    "api/v1/docs": 200,
    "api/v1/openapi.json": 200,
    "healthz": 200,  # {"status": "ok"}: for the reverse proxy's health checks
    "readyz": 200,  # {"status": "ready"}: for the load balancer's readiness checks
    "{lang}/": 200,
    "{lang}/sign-in/": 200,
    "{lang}/sign-out/": 405,  # POST only; signing out nobody does nothing
    # Signing in's second step: to the sign-in page (or home) when nobody has signed in.
    "{lang}/sign-in/code/": 302,
    "{lang}/sign-in/set-up/": 302,
    "{lang}/sign-in/recovery-codes/": 302,
    "{lang}/sign-in/passkey/": 405,  # POST only: the code step's passkey form
    # A forgotten password: asking for the link, and the link ("1": one that does not work).
    "{lang}/password-reset/": 200,
    "{lang}/password-reset/sent/": 200,
    "{lang}/password-reset/done/": 200,
    "{lang}/password-reset/<str:token>/": 200,
    # A trainee's participant form: the link's token is the key (no account); "1" is no token.
    "{lang}/participate/<str:token>/": 404,
    # A trainee's follow-up survey at 3 or 12 months: the same kind of link (no account).
    "{lang}/follow-up/<str:token>/": 404,
    "{lang}/comparison/<str:token>/": 404,
    # Registering an organization, and the links its messages carry (the token is the key).
    "{lang}/register/": 200,
    "{lang}/register/sent/": 200,
    "{lang}/register/verified/": 200,
    "{lang}/register/verify/<str:token>/": 404,
    "{lang}/invitation/<str:token>/": 404,
    "{lang}/dispute/<str:token>/": 404,  # the link the "already registered" message carries
    "{lang}/dispute-filed/": 200,
    "{lang}/account/setup/<str:token>/": 404,
    "{lang}/account/email/confirm/<str:token>/": 404,
    # The demonstration's mailbox: off (404) unless JOBGRANT_DEMO_MAIL; then a visitor sees only
    # the messages to the address they registered with in that browser (docs/guide/running.md).
    "{lang}/demo/mail/": 404,
    # The service standards and how often they are met, with the results as CSV: public data.
    "{lang}/service-standards/": 200,
    "{lang}/service-standards/csv/": 200,
}
PUBLIC_API_OPERATIONS = {("POST", "/api/v1/auth/token")}
ANY_SIGNED_IN_PAGES = {
    "{lang}/home/",
    # One's own account (the last two: an employer's, an administrator's).
    "{lang}/account/",
    "{lang}/account/confirm/",
    "{lang}/account/password/",
    "{lang}/account/email/",
    "{lang}/account/recovery-codes/",
    "{lang}/account/tokens/<id:token_id>/revoke/",
    "{lang}/account/second-factor/off/",
    "{lang}/account/passkeys/add/",
    "{lang}/account/passkeys/<id:passkey_id>/remove/",
    "{lang}/account/tokens/",
}
SECTION_ROLES = {  # pages under /{lang}/<section>/ serve exactly one role...
    "employer": "employer",
    "officer": "officer",
    "finance": "finance",
    "analyst": "analyst",
    "auditor": "auditor",
    "staff": "admin",
}
#: Pages of a section that serve another role besides the section's own.
SHARED_PAGES = {
    "{lang}/analyst/kpis/": {"analyst", "officer"},  # the KPIs: analysts and officers
    # The decisions taken against an intake's ranking: officers and auditors read them too.
    "{lang}/manager/out-of-rank/": {"officer", "auditor"},
    "{lang}/manager/out-of-rank/<id:intake_id>/csv/": {"officer", "auditor"},
    # the risk flags per intake and per provider: the report's roles and auditors
    "{lang}/reports/risk-flags/": {"analyst", "officer", "auditor"},
    "{lang}/analyst/burden/": {"analyst", "officer"},  # the burden on employers: as the KPIs
}
SHARED_SECTION_ROLES = {  # ...or, for these sections, exactly these roles
    "reports": {"analyst", "officer"},  # the annual accountability report
    "programs": {"program_manager", "admin"},  # programs, streams and intakes
    "manager": {"program_manager", "admin"},  # overrides' sign-off; intakes' ranking
}
PERSONA = {
    "employer": EMPLOYER.username,
    "officer": OFFICER.username,
    "finance": FINANCE.username,
    "analyst": ANALYST.username,
    "auditor": AUDITOR.username,
    "admin": ADMIN.username,
    "program_manager": PROGRAM_MANAGER.username,
}
REFUSED_ANONYMOUS = {401, 403}
SAMPLE_VALUES = {
    "int": "1",
    "id": "1",  # web/converters.py: a database id
    "str": "1",
    "slug": "x",
    "path": "x",
    "uuid": "00000000-0000-0000-0000-000000000001",
}


# --- Walking the resolver ----------------------------------------------------------------


def _walk(patterns: list[Any], prefix: str = "") -> Iterator[str]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern)


def routes() -> set[str]:
    """Every route Django serves, with the language prefix written {lang}, in its English words
    (the same route's French words are its address in French: `concrete`)."""
    with translation.override("en"):
        return {re.sub(r"^en/", "{lang}/", route) for route in _walk(get_resolver().url_patterns)}


def concrete(route: str, language: str = "en") -> str:
    """A URL for the route, with sample values for its parameters, in `language`'s words."""

    def sample(match: re.Match[str]) -> str:
        return SAMPLE_VALUES[match.group(1) or "str"]

    english = "/" + re.sub(r"<(?:(\w+):)?\w+>", sample, route.replace("{lang}", "en"))
    if language == "en" or not route.startswith("{lang}/"):
        return english
    return page_path(language, english[len("/en") :])


def page_routes() -> list[str]:
    return sorted(r for r in routes() if not r.startswith(API) and r not in PUBLIC_ROUTES)


def section_of(route: str) -> str | None:
    parts = route.split("/")
    known = parts[1] in SECTION_ROLES or parts[1] in SHARED_SECTION_ROLES
    return parts[1] if len(parts) > 2 and known else None


def section_serves(section: str, role: str) -> bool:
    return role in SHARED_SECTION_ROLES.get(section, {SECTION_ROLES.get(section)})


def api_operations(client: Client) -> list[tuple[str, str, bool]]:
    """(method, path, secured) for every operation in the served OpenAPI schema."""
    schema = client.get("/api/v1/openapi.json").json()
    return [
        (method.upper(), path, bool(operation.get("security")))
        for path, item in schema["paths"].items()
        for method, operation in item.items()
    ]


def call(client: Client, method: str, path: str, **headers: str) -> Any:
    url = re.sub(r"\{\w+\}", "1", path)
    send = getattr(client, method.lower())
    if method in ("POST", "PUT", "PATCH"):
        return send(url, data="{}", content_type="application/json", headers=headers)
    return send(url, headers=headers)


def signed_in(role: str, *, enforce_csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=enforce_csrf)
    client.force_login(User.objects.get(username=PERSONA[role]))
    return client


# --- Every route is classified ------------------------------------------------------------


def test_every_route_is_public_by_name_an_api_operation_or_a_page_of_a_known_kind(
    demo: None,
) -> None:
    api_paths = {path.removeprefix("/") for _, path, _ in api_operations(Client())}
    unclassified = [
        route
        for route in routes()
        if route not in PUBLIC_ROUTES
        and route not in ANY_SIGNED_IN_PAGES
        and not section_of(route)
        and re.sub(r"<(\w+)>", r"{\1}", route) not in api_paths
    ]
    assert unclassified == []


def test_the_allow_lists_name_only_routes_that_exist(demo: None) -> None:
    served = routes()
    assert set(PUBLIC_ROUTES) - served == set()
    assert ANY_SIGNED_IN_PAGES - served == set()
    assert set(SHARED_PAGES) - served == set()
    operations = {(method, path) for method, path, _ in api_operations(Client())}
    assert PUBLIC_API_OPERATIONS - operations == set()


def test_every_api_route_django_serves_is_in_the_openapi_schema(demo: None) -> None:
    api_paths = {path.removeprefix("/") for _, path, _ in api_operations(Client())}
    served = {re.sub(r"<(\w+)>", r"{\1}", r) for r in routes() if r.startswith(API)}
    assert served - set(PUBLIC_ROUTES) - api_paths == set()


def test_only_the_allow_listed_api_operations_need_no_authentication(demo: None) -> None:
    public = {(method, path) for method, path, secured in api_operations(Client()) if not secured}
    assert public == PUBLIC_API_OPERATIONS


# --- The API -----------------------------------------------------------------------------


def test_every_protected_api_operation_refuses_anonymous_callers(demo: None) -> None:
    client = Client()
    secured = [(m, p) for m, p, is_secured in api_operations(client) if is_secured]
    answers = {(m, p): call(client, m, p).status_code for m, p in secured}
    assert len(answers) >= 10
    assert {op: status for op, status in answers.items() if status not in REFUSED_ANONYMOUS} == {}


def test_every_protected_api_operation_refuses_a_made_up_bearer_token(demo: None) -> None:
    client = Client()
    secured = [(m, p) for m, p, is_secured in api_operations(client) if is_secured]
    answers = {
        (m, p): call(client, m, p, Authorization="Bearer not-a-token").status_code
        for m, p in secured
    }
    assert {op: status for op, status in answers.items() if status != 401} == {}


@pytest.mark.parametrize("role", sorted(PERSONA))
def test_a_signed_in_session_cookie_does_not_authenticate_api_calls(demo: None, role: str) -> None:
    client = signed_in(role)
    secured = [(m, p) for m, p, is_secured in api_operations(client) if is_secured]
    answers = {(m, p): call(client, m, p).status_code for m, p in secured}
    assert {op: status for op, status in answers.items() if status != 401} == {}


# --- Pages -------------------------------------------------------------------------------


def test_every_protected_page_sends_anonymous_visitors_to_sign_in(demo: None) -> None:
    client, wrong = Client(), {}
    for route in page_routes():
        for language in LANGUAGES:
            url = concrete(route, language)
            get, post = client.get(url), client.post(url)
            answers = [get.status_code, post.status_code]
            to_sign_in = all(
                r.status_code != 302 or page_path(language, "/sign-in/") in r["Location"]
                for r in (get, post)
            )
            refused = set(answers) <= {302, 401, 403, 405} and answers != [405, 405]
            if not (refused and to_sign_in):
                wrong[url] = answers
    assert len(page_routes()) >= 10
    assert wrong == {}


def test_every_section_page_refuses_signed_in_people_of_another_role(demo: None) -> None:
    wrong = {}
    for role in PERSONA:
        client = signed_in(role)
        for route in page_routes():
            section = section_of(route)
            if section is None or role in SHARED_PAGES.get(route, set()):
                continue
            if section_serves(section, role):
                continue
            url = concrete(route)
            answers = [client.get(url).status_code, client.post(url).status_code]
            if not (set(answers) <= {403, 405} and answers != [405, 405]):
                wrong[f"{role} {url}"] = answers
    assert wrong == {}


@pytest.mark.parametrize("role", sorted(PERSONA))
def test_every_page_refuses_a_post_without_a_csrf_token(demo: None, role: str) -> None:
    client = signed_in(role, enforce_csrf=True)
    pages = sorted(r for r in routes() if not r.startswith(API))
    answers = {concrete(route): client.post(concrete(route)).status_code for route in pages}
    assert {url: status for url, status in answers.items() if status != 403} == {}


def test_an_anonymous_post_without_a_csrf_token_is_refused_too(demo: None) -> None:
    client = Client(enforce_csrf_checks=True)
    pages = sorted(r for r in routes() if not r.startswith(API))
    answers = {concrete(route): client.post(concrete(route)).status_code for route in pages}
    assert {url: status for url, status in answers.items() if status != 403} == {}


def test_the_public_routes_answer_anonymous_visitors_as_expected(demo: None) -> None:
    client = Client()
    answers = {
        (route, language): client.get(concrete(route, language)).status_code
        for route in PUBLIC_ROUTES
        for language in LANGUAGES
    }
    assert answers == {(route, language): PUBLIC_ROUTES[route] for route, language in answers}


def test_a_shared_section_page_opens_for_each_of_its_roles(demo: None) -> None:
    wrong = {}
    for route in page_routes():
        section = section_of(route)
        if section not in SHARED_SECTION_ROLES or "<" in route:
            continue
        for role in SHARED_SECTION_ROLES[section]:
            status = signed_in(role).get(concrete(route)).status_code
            if status in (302, 401, 403):
                wrong[f"{role} {route}"] = status
    assert wrong == {}
