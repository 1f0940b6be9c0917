"""The audit trail in words: every action the service can record, every kind of object, every
refusal (an action's, a page's, an API operation's) and every detail the history writes has its
words in English and in French; money is in dollars; the actor is always named.

The codes are found from the code itself: `audit.codes` declares every action and object type
(`chain.record` refuses any other), every module is imported so that each refusal the
decorator audits registers its name, the API's routes are walked, and the source is read for
every literal action passed to `record`. An action added without its words fails here.
"""

from __future__ import annotations

import ast
import datetime as dt
import html
import importlib
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.test import Client
from django.utils import translation
from django.utils.translation import trans_real
from tests.addresses import page_path
from tests.conftest import TODAY
from tests.personas import AUDITOR, create_personas

import jobgrant.service
from jobgrant.service.api.api import api
from jobgrant.service.audit import codes
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.demo import seed
from jobgrant.service.demo_history.load import Loaded, seed_history
from jobgrant.service.errors import ServiceError
from jobgrant.service.web import audit_entries
from jobgrant.service.web.audit_entries import (
    ACTION_LABELS,
    ATTEMPT_LABELS,
    FIELD_LABELS,
    OBJECT_TYPE_LABELS,
    action_label,
    actor_label,
    details,
)

SOURCE = Path(jobgrant.service.__file__).parent


def _import_every_module() -> None:
    for found in pkgutil.walk_packages([str(SOURCE)], "jobgrant.service."):
        if ".migrations" not in found.name:
            importlib.import_module(found.name)


def _refusal_names() -> set[str]:
    """Every name a refusal can be recorded under: each decorated action's, the pages' and the
    API's operations (the route's name)."""
    _import_every_module()
    operations = {pattern.name for pattern in api.urls[0] if pattern.name}
    undocumented = operations - {"api-root", "openapi-json", "openapi-view"}
    return set(codes.REFUSALS) | {codes.PAGE_REFUSAL} | undocumented


def _french(label: object) -> bool:
    """The label's English text has a French translation in the compiled catalogue (a label with
    a context, pgettext_lazy's, is catalogued as "context\x04text")."""
    msgid = "\x04".join(str(part) for part in getattr(label, "_args", [label]))
    catalog = trans_real.translation("fr")._catalog  # type: ignore[attr-defined]
    return bool(catalog.get(msgid))


def _without_words(labels: dict[str, Any], wanted: set[str]) -> list[str]:
    return sorted(code for code in wanted if code not in labels or not _french(labels[code]))


def test_every_action_the_service_can_record_has_words_in_both_languages() -> None:
    assert _without_words(ACTION_LABELS, set(codes.ACTIONS)) == []


def test_every_kind_of_object_has_words_in_both_languages() -> None:
    assert _without_words(OBJECT_TYPE_LABELS, set(codes.OBJECT_TYPES)) == []


def test_every_refusal_names_what_was_attempted_in_both_languages() -> None:
    names = _refusal_names()
    assert {"approve_application", "build_batch", "open_page", "assign_application"} <= names
    assert _without_words(ATTEMPT_LABELS, names) == []


def test_every_label_of_the_trail_has_its_french() -> None:
    """Every detail's name, and every word of a coded value, too."""
    coded = [
        (f"{key}={code}", words)
        for key, labels in audit_entries.CODED_FIELDS.items()
        if isinstance(labels, dict)
        for code, words in labels.items()
    ]
    missing = [name for name, words in [*FIELD_LABELS.items(), *coded] if not _french(words)]
    assert missing == []


def _recorded_in_source() -> Iterator[tuple[str, int, str, str]]:
    """(file, line, action, object type) of every call to `record` whose action is written in
    the call: a literal, or an f-string's fixed start ("claim." in f"claim.{action}")."""
    for path in sorted(SOURCE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "record"):
                continue
            if len(node.args) < 3:
                continue
            action, kind = node.args[1], node.args[2]
            if isinstance(action, ast.JoinedStr) and "refused." in ast.unparse(action):
                continue  # a refusal: worded by what was attempted (the test above)
            if isinstance(action, ast.Constant) and isinstance(action.value, str):
                text = action.value
            elif isinstance(action, ast.JoinedStr) and isinstance(action.values[0], ast.Constant):
                text = str(action.values[0].value) + "*"
            else:
                continue
            kind_text = kind.value if isinstance(kind, ast.Constant) else ""
            yield str(path.relative_to(SOURCE)), node.lineno, text, str(kind_text)


def test_every_action_written_in_a_call_to_record_is_declared() -> None:
    """What the runtime check would refuse, found before any test walks that path."""
    found = list(_recorded_in_source())
    assert len(found) > 60
    undeclared = []
    for path, line, action, kind in found:
        if action.endswith("*"):
            known = any(code.startswith(action[:-1]) for code in codes.ACTIONS)
        else:
            known = action in codes.ACTIONS
        if not known or (kind and kind not in codes.OBJECT_TYPES):
            undeclared.append(f"{path}:{line} {action} {kind}")
    assert undeclared == []


@pytest.mark.django_db
def test_record_refuses_an_undeclared_action_an_undeclared_object_or_no_actor() -> None:
    before = AuditEntry.objects.count()
    with transaction.atomic():
        with pytest.raises(ValueError, match="not declared"):
            record("someone", "claim.teleport", "claim", 1, {})
        with pytest.raises(ValueError, match="not declared"):
            record("someone", "claim.submit", "spaceship", 1, {})
        with pytest.raises(ValueError, match="no actor"):
            record("", "claim.submit", "claim", 1, {})
    assert AuditEntry.objects.count() == before


def test_a_decorator_for_an_undeclared_kind_of_object_is_refused() -> None:
    with pytest.raises(ValueError, match="not declared"):
        audited_refusals_of("spaceship")


@pytest.mark.django_db
def test_a_refusal_with_no_one_signed_in_names_the_anonymous_visitor() -> None:
    """A trainee's link, a form's token: the first argument is no account."""

    @audited_refusals_of("participant", action="get_participant")
    def refuse(user: object, target: object) -> None:
        raise ServiceError(404, "NOT_FOUND", "No.", "Non.")

    before = AuditEntry.objects.count()
    for who in ("a-link-token", None, AnonymousUser()):
        with pytest.raises(ServiceError):
            refuse(who, 7)
    added = AuditEntry.objects.order_by("sequence")[before:]
    assert [entry.actor for entry in added] == ["anonymous"] * 3
    with translation.override("fr"):
        assert actor_label("anonymous") == "Visiteur anonyme"
    with translation.override("en"):
        assert actor_label("anonymous") == "Anonymous visitor"
        assert actor_label("worker") == "System (the worker)"
        assert actor_label("") == "Anonymous visitor"


@pytest.fixture(scope="module")
def small_history(django_db_setup: None, django_db_blocker: Any) -> Iterator[Loaded]:
    """Three files walked from their application to their follow-ups (the history's small
    plan), rolled back after the tests."""
    with (
        django_db_blocker.unblock(),
        time_machine.travel(dt.datetime(2026, 11, 29, 15, 0, tzinfo=dt.UTC), tick=True),
        transaction.atomic(),
    ):
        seed(TODAY)
        create_personas()
        loaded = seed_history(15, files_per_year={"ON": 2, "PE": 1}, years=(2024, 2024))
        assert loaded is not None
        yield loaded
        transaction.set_rollback(True)


CODE = re.compile(r"\b[a-z]{2,}_?[a-z]*\.[a-z_]{2,}\b|\b[a-z]+_[a-z_]+\b")


def _cells(page: str) -> list[str]:
    body = page.split('id="trail-table"', 1)[1].split("</table>", 1)[0]
    body = re.sub(r"<code>.*?</code>", "", body)
    return [re.sub(r"<[^>]+>", " ", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", body)]


@pytest.mark.django_db  # a database test: in the PostgreSQL set, its database set up for it
@pytest.mark.usefixtures("small_history")
class TestTheHistoryInWords:
    def test_every_entry_has_words_for_its_action_object_and_details(self) -> None:
        entries = list(AuditEntry.objects.all())
        assert {"agreement.accept", "participant.confirm", "claim.approve"} <= {
            e.action for e in entries
        }
        raw = set()
        for entry in entries:
            attempt = entry.action.removeprefix("refused.")
            refusal = entry.action.startswith("refused.") and attempt in ATTEMPT_LABELS
            if entry.action not in ACTION_LABELS and not refusal:
                raw.add(entry.action)
            if entry.object_type not in OBJECT_TYPE_LABELS:
                raw.add(entry.object_type)
            raw |= {key for key in entry.summary if key not in FIELD_LABELS}
            if entry.actor == "" or actor_label(entry.actor) == "":
                raw.add(f"no actor: {entry.sequence}")
        assert raw == set()

    @pytest.mark.parametrize("language", ["en", "fr"])
    def test_the_trail_page_shows_no_code_and_money_in_dollars(self, language: str) -> None:
        client = Client()
        client.force_login(AUDITOR.get())
        seen: list[str] = []
        for action in ("claim.approve", "payment_batch.build", "participant.invite"):
            response = client.get(page_path(language, f"/auditor/trail/?action={action}"))
            page = html.unescape(response.content.decode()).replace("\u00a0", " ")
            cells = _cells(page)
            assert cells, action
            seen += cells
        codes_shown = sorted({m for cell in seen for m in CODE.findall(cell)} - {"demo-seed"})
        assert codes_shown == []
        text = " ".join(seen)
        assert ("$" in text) and not re.search(r"\b\d{5,}\b(?![^\s]*\$)", text.replace(" ", ""))
        words = {"en": "Claim approved and certified", "fr": "approuvée et certifiée"}
        assert words[language] in text

    def test_a_detail_in_cents_is_dollars(self) -> None:
        entry = AuditEntry.objects.filter(action="claim.approve").first()
        assert entry is not None
        shown = dict(details(entry))
        assert any("$" in value for value in shown.values())
        assert all(not re.fullmatch(r"\d{4,}", value) for value in shown.values())


def test_an_api_address_with_no_route_is_worded() -> None:
    with translation.override("en"):
        assert action_label("refused./api/v1/nowhere") == (
            "Refused: send a request to /api/v1/nowhere"
        )


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_details_the_issue_named_are_in_words(language: str) -> None:
    """`expires_at`, `via`, `method`, `address`, a group of shares in cents (616666), the
    fields a change touched: each in words, money in dollars."""
    change = AuditEntry(
        actor="demo-employer",
        action="change_request.submit",
        object_type="changerequest",
        object_id="3",
        summary={
            "kind": "dates",
            "fields": ["training.end_date"],
            "figures": {"before": {"federal": 616666}, "after": {"federal": 500000}},
            "self_service": False,
        },
    )
    sign_in = AuditEntry(
        actor="demo-officer-on-1",
        action="auth.sign_in",
        object_type="user",
        object_id="3",
        summary={
            "via": "page",
            "method": "app",
            "address": "127.0.0.1",
            "expires_at": "2026-12-04T15:00:00+00:00",
        },
    )
    with translation.override(language):
        shown = dict(details(change)) | dict(details(sign_in))
    text = " ".join(f"{name} {value}" for name, value in shown.items()).replace("\u00a0", " ")
    raw = {"expires_at", "via", "method", "address", "figures", "fields", "kind", "self_service"}
    assert not raw & set(shown)
    assert "616666" not in text and "end_date" not in text and "page" not in shown.values()
    expected = {
        "en": ("$6,166.66", "Training end date", "authenticator app", "December 4, 2026"),
        "fr": ("6 166,66 $", "Date de fin de la formation", "application d'authentification"),
    }
    for words in expected[language]:
        assert words in text


@pytest.mark.django_db
def test_the_trails_dates_are_typed_as_their_hint_says_with_no_picker_beside_it() -> None:
    client = Client()
    client.force_login(AUDITOR.get())
    page = client.get("/en/auditor/trail/").content.decode()
    assert 'type="date"' not in page
    assert page.count("Year-month-day, for example 2026-11-29.") == 2
    assert "entry-" in client.get("/en/auditor/trail/?since=2020-01-01").content.decode()
