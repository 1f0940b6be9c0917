"""Every refusal of a signed-in caller is in the trail exactly once, whatever its status, and the
chain still verifies: an action's, by the one decorator (walked here over every action it
wraps), and one met before any action (a route, the role gate, a page not found) by the HTTP-level
nets, all through the one `record_refusal`."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from tests.personas import EMPLOYER, FINANCE, OFFICER, OTHER_JURISDICTION_OFFICER

import jobgrant.service
from jobgrant.service.accounts.models import User
from jobgrant.service.api.schemas import MAX_DATABASE_ID
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError

pytestmark = pytest.mark.django_db


def refusals() -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(action__startswith="refused.").order_by("sequence"))


def recorded(make: Any) -> list[AuditEntry]:
    """The refusals recorded while `make()` ran."""
    before = len(refusals())
    make()
    return refusals()[before:]


def submitted(as_user: Any, make_body: Any) -> int:
    created = as_user(EMPLOYER).post("/applications", make_body(), key="c").json()
    as_user(EMPLOYER).post(f"/applications/{created['id']}/submit", key="s")
    return int(created["id"])


@pytest.mark.parametrize(
    ("who", "method", "path", "body", "status", "code"),
    [
        (EMPLOYER, "post", "/applications/{id}/submit", None, 409, "ILLEGAL_TRANSITION"),
        (FINANCE, "post", "/applications/{id}/recommend", None, 403, "NOT_YOUR_FILE"),
        (OTHER_JURISDICTION_OFFICER, "get", "/applications/{id}", None, 404, "NOT_FOUND"),
        (EMPLOYER, "get", f"/applications/{MAX_DATABASE_ID}", None, 404, "NOT_FOUND"),
        (EMPLOYER, "get", f"/applications/{MAX_DATABASE_ID + 1}", None, 422, "INVALID_INPUT"),
        (EMPLOYER, "post", "/applications", {"jurisdiction": "ZZ"}, 422, "INVALID_INPUT"),
        (EMPLOYER, "post", "/applications", "{not json", 400, "MALFORMED_BODY"),
        (OFFICER, "post", "/applications/{id}/deny", {"reason": " "}, 422, "INVALID_INPUT"),
        (EMPLOYER, "get", "/applications?limit=0", None, 422, "INVALID_INPUT"),
    ],
)
def test_each_api_refusal_is_recorded_once(
    as_user, make_body, who, method, path, body, status, code
) -> None:
    application = submitted(as_user, make_body)
    url = path.format(id=application)

    def ask() -> None:
        client = as_user(who)
        if method == "post":
            answer = client.post(url, body, key="refused")
        else:
            address, _, query = url.partition("?")
            answer = client.get(address, **dict([query.split("=")] if query else []))
        assert answer.status_code == status, answer.content

    [entry] = recorded(ask)
    assert entry.actor == who.username
    assert entry.summary == {"code": code, "status": status}
    assert verify().ok


def test_an_anonymous_refusal_goes_to_the_log_not_the_chain(as_user) -> None:
    assert recorded(lambda: as_user(None).get("/applications")) == []


def signed_in(who: Any) -> Client:
    client = Client()
    client.force_login(who.get())
    return client


@pytest.mark.parametrize(
    "path",
    ["/en/no-such-page/", f"/en/employer/applications/{MAX_DATABASE_ID + 1}/", "/fr/officer/x/"],
)
def test_a_page_not_found_for_a_signed_in_person_is_recorded(path: str) -> None:
    [entry] = recorded(lambda: signed_in(EMPLOYER).get(path))
    assert (entry.actor, entry.action, entry.object_type) == (
        EMPLOYER.username,
        "refused.open_page",
        "page",
    )
    assert entry.object_id == path
    assert entry.summary == {"code": "NOT_FOUND", "status": 404}


def test_a_page_404_an_action_recorded_is_not_recorded_twice(as_user, make_body) -> None:
    application = submitted(as_user, make_body)
    path = f"/en/officer/applications/{application}/"
    [entry] = recorded(lambda: signed_in(OTHER_JURISDICTION_OFFICER).get(path))
    assert entry.action == "refused.get_visible"


def test_an_unknown_api_address_is_problem_json() -> None:
    answer = Client().get("/api/v1/no-such-thing")
    assert answer.status_code == 404
    assert answer["Content-Type"] == "application/problem+json"


def test_the_participant_link_token_never_reaches_the_trail() -> None:
    path = "/en/participate/secret-token-value/nowhere/"
    entries = recorded(lambda: signed_in(EMPLOYER).get(path))
    assert all("secret-token-value" not in str(e.object_id) for e in entries)


# --- Every action's refusal, by the one decorator --------------------------------------------

SERVICE = Path(jobgrant.service.__file__).parent
REFUSAL_STATUSES = (400, 403, 404, 409, 422)
#: The HTTP-level nets: refusals met before any action runs (a route, the role gate, the 404
#: page). Every other refusal is an action's, audited by its decorator.
HTTP_NETS = {"audit/actions.py", "api/refusal_audit.py", "web/pages.py", "not_found.py"}


def decorated_actions() -> list[tuple[str, Callable[..., Any]]]:
    """Every function of the service that `audited_refusals_of` wraps, by its module and name:
    the wrappers share one code object, which is how they are told from other functions."""
    marker = audited_refusals_of("application", action="get_visible")(lambda *args: None).__code__
    found = []
    for path in sorted(SERVICE.rglob("*.py")):
        if "audited_refusals_of(" not in path.read_text():
            continue
        dotted = ".".join(path.relative_to(SERVICE.parents[1]).with_suffix("").parts)
        for name, value in vars(importlib.import_module(dotted)).items():
            if getattr(value, "__code__", None) is marker and value.__module__ == dotted:
                found.append((f"{dotted}.{name}", value))
    return found


def audited_as(action: Callable[..., Any]) -> str:
    return str(inspect.getclosurevars(action).nonlocals["name"])


def test_the_walk_finds_every_decorated_action() -> None:
    decorations = sum(
        line.startswith("@audited_refusals_of(")
        for path in SERVICE.rglob("*.py")
        for line in path.read_text().splitlines()
    )
    assert len(decorated_actions()) == decorations


def test_the_actions_that_recorded_their_refusals_by_hand_are_decorated() -> None:
    names = {audited_as(action) for _, action in decorated_actions()}
    formerly_by_hand = {
        "organization.open",
        "organization.invite",
        "organization.remove",
        "staff.open",
        "staff.create",
        "staff.deactivate",
        "employer.register",
        "trainee.register",
        "trainee.view_sin",
        "partner.open",
        "partner.accept",
        "partner.decline",
    }
    assert formerly_by_hand | {"get_visible", "approve_application", "read_kpis"} <= names


@pytest.mark.parametrize("status", REFUSAL_STATUSES)
def test_every_decorated_action_records_its_refusal_once_whatever_the_status(
    monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    asking = User(username="asking")
    for where, action in decorated_actions():
        refusal = ServiceError(status, f"REFUSED_{status}", "Refused.", "Refusé.")

        def refuse(*args: Any, refusal: ServiceError = refusal, **kwargs: Any) -> None:
            raise refusal

        monkeypatch.setattr(action, "__wrapped__", refuse)
        before = len(refusals())
        with pytest.raises(ServiceError):
            action(asking, None)
        [entry] = refusals()[before:]
        assert (entry.actor, entry.action) == ("asking", f"refused.{audited_as(action)}"), where
        assert entry.summary == {"code": f"REFUSED_{status}", "status": status}, where
        assert refusal.audited, where
    assert verify().ok


def test_only_the_decorator_and_the_http_level_nets_record_a_refusal() -> None:
    writers = {
        path.relative_to(SERVICE).as_posix()
        for path in SERVICE.rglob("*.py")
        if "record_refusal(" in path.read_text()
    }
    assert writers == HTTP_NETS
