"""The intakes through /api/v1: every staff role reads them; the program manager of the
jurisdiction creates, changes and closes them; a refusal names the field, in both languages;
every answer is of the documented shape."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.utils import timezone
from tests.conftest import api_contract, token_for
from tests.personas import EMPLOYER, FINANCE, OFFICER, PROGRAM_MANAGER

from jobgrant.service.grants.models.applications import Program, Selection

pytestmark = pytest.mark.django_db


def stream_id() -> int:
    program = Program.objects.filter(jurisdiction="ON").order_by("-fiscal_year")[0]
    return program.streams.get(selection=Selection.RANKED).pk


def body(opens: int, closes: int, **more: Any) -> dict[str, Any]:
    today = timezone.localdate()
    return {
        "name_en": "Winter intake",
        "name_fr": "Appel d'hiver",
        "opens_on": (today + dt.timedelta(days=opens)).isoformat(),
        "closes_on": (today + dt.timedelta(days=closes)).isoformat(),
        "federal_budget": "2500.00",
        **more,
    }


def test_the_program_manager_creates_an_intake_that_every_staff_role_reads(as_user) -> None:
    made = as_user(PROGRAM_MANAGER).post(f"/streams/{stream_id()}/intakes", body(3, 20), key="a")
    assert made.status_code == 200, made.json()
    intake = made.json()
    assert (intake["state"], intake["federal_budget"]) == ("scheduled", "2500.00")
    for person in (OFFICER, FINANCE):
        read = as_user(person).get(f"/intakes/{intake['id']}")
        assert read.status_code == 200 and read.json()["name_fr"] == "Appel d'hiver"
    listed = as_user(OFFICER).get("/intakes", jurisdiction="ON").json()
    assert intake["id"] in {item["id"] for item in listed}
    assert as_user(EMPLOYER).get("/intakes").status_code == 403
    programs = as_user(FINANCE).get("/programs", jurisdiction="ON").json()
    assert any(s["selection"] == "ranked" for p in programs for s in p["streams"])


def test_an_overlapping_window_is_a_422_naming_the_field(as_user) -> None:
    manager = as_user(PROGRAM_MANAGER)
    assert manager.post(f"/streams/{stream_id()}/intakes", body(3, 20), key="b").status_code == 200
    refused = manager.post(f"/streams/{stream_id()}/intakes", body(10, 30), key="c")
    assert refused.status_code == 422
    errors = refused.json()["errors"]
    assert [e["field"] for e in errors] == ["opens_on"] and "chevauche" in errors[0]["message_fr"]
    officer = as_user(OFFICER).post(f"/streams/{stream_id()}/intakes", body(40, 50), key="d")
    assert officer.status_code == 403


def test_an_intake_is_changed_before_it_opens_then_closed_with_a_reason(as_user) -> None:
    manager = as_user(PROGRAM_MANAGER)
    made = manager.post(f"/streams/{stream_id()}/intakes", body(3, 20), key="e").json()
    url = f"/api/v1/intakes/{made['id']}"
    changed = manager.client.put(
        url,
        json.dumps(body(4, 21, federal_budget="3000.00")),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token_for(PROGRAM_MANAGER)}", "Idempotency-Key": "f"},
    )
    api_contract().check("PUT", url, changed)
    assert changed.status_code == 200 and changed.json()["federal_budget"] == "3000.00"
    closed = manager.post(f"/intakes/{made['id']}/close", {"reason": "Backlog."}, key="g")
    assert closed.status_code == 200
    assert (closed.json()["state"], closed.json()["closing_reason"]) == ("closed", "Backlog.")
    again = manager.post(f"/intakes/{made['id']}/close", {"reason": "Again."}, key="h")
    assert again.status_code == 409
