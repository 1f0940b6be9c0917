"""T14, PII: a whole run with seeded test SINs — applied for, approved and accepted over the
API, trainees invited, each answering the participant form with their SIN, one trainee
registered in the registry, one typed wrong, the back office reading every page and export —
then a scan of everything the run left: every log record, every page and API answer (headers
and bodies), every URL asked for, every message of the outbox, every audit entry, every export
(CSV), and every column of every table in the database.

0 full SINs anywhere, the database included (ciphertext only); the one place a SIN is shown in
full is the officer's SIN view, for an officer with the permission, and that view writes exactly
one audit entry.
"""

from __future__ import annotations

import io
import json
import logging
import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from tests.addresses import page_path
from tests.conftest import application_body, json_lines, token_for
from tests.participants import answers, latest_link, two_trainees
from tests.personas import APPLICANT, AUDITOR, EMPLOYER, FINANCE, OFFICER, SECOND_OFFICER

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.notifications.models import Message
from jobgrant.service.registry import actions as registry

pytestmark = pytest.mark.django_db
#: Test SINs (valid check digits), typed three ways by the people of the run.
SINS = ("130 692 544", "193-456-787", "415926534", "123456782")
WRONG_SIN = "123 456 789"  # fails its check digit: refused, and not shown back


def written_forms(sin: str) -> set[str]:
    plain = re.sub(r"\D", "", sin)
    return {plain, f"{plain[:3]} {plain[3:6]} {plain[6:]}", f"{plain[:3]}-{plain[3:6]}-{plain[6:]}"}


FORBIDDEN = {form for sin in (*SINS, WRONG_SIN) for form in written_forms(sin)}


class Recorder:
    """Every URL asked for and every answer given (status, headers, body), as text."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def keep(self, url: str, answer: Any) -> Any:
        headers = "\n".join(f"{k}: {v}" for k, v in answer.headers.items())
        body = b"".join(answer.streaming_content) if answer.streaming else answer.content
        self.seen.append(
            (url, f"{answer.status_code}\n{headers}\n\n{body.decode(errors='replace')}")
        )
        return answer

    def api(self, who: Any, method: str, path: str, body: Any = None) -> Any:
        client = Client()
        headers = {"Authorization": f"Bearer {token_for(who)}"}
        url = "/api/v1" + path
        if method == "post":
            answer = client.post(url, json.dumps(body or {}), "application/json", headers=headers)
        else:
            answer = client.get(url, headers=headers)
        return self.keep(url, answer)

    def page(self, client: Client, method: str, url: str, data: Any = None) -> Any:
        answer = (
            getattr(client, method)(url, data) if data is not None else getattr(client, method)(url)
        )
        return self.keep(url, answer)


def signed_in(who: Any) -> Client:
    client = Client()
    client.force_login(who.get())
    return client


def run(record: Recorder) -> int:
    """The whole run; returns the participant whose SIN the officer views."""
    body = application_body(trainees=two_trainees() + two_trainees())
    created = record.api(EMPLOYER, "post", "/applications", body).json()
    application = created["id"]
    record.api(EMPLOYER, "post", f"/applications/{application}/submit")
    record.api(OFFICER, "post", f"/applications/{application}/recommend", {"note": "Fine."})
    record.api(SECOND_OFFICER, "post", f"/applications/{application}/approve")
    accepted = record.api(
        EMPLOYER,
        "post",
        f"/applications/{application}/agreement/accept",
        {
            "signatory": "Pat Birch",
            "title": "Owner",
            "confirmations": ["agreement", "cost_schedule", "general_terms"],
        },
    )
    assert accepted.status_code == 200, accepted.content
    slots = []
    for trainee, sin in enumerate(SINS[:3]):
        invited = record.api(
            EMPLOYER,
            "post",
            f"/applications/{application}/participants",
            {"trainee": trainee, "email": f"trainee{trainee}@example.com", "language": "en"},
        )
        assert invited.status_code == 201, invited.content
        slot = Participant.objects.get(pk=invited.json()["id"])
        language, token = latest_link(slot)
        trainee_browser = Client()
        form = page_path(language, f"/participate/{token}/")
        record.page(trainee_browser, "get", form)
        if trainee == 0:  # a SIN typed wrong first: refused, not shown back
            wrong = record.page(trainee_browser, "post", form, answers(sin=WRONG_SIN))
            assert wrong.status_code == 422
        sent = record.page(trainee_browser, "post", form, answers(sin=sin))
        assert sent.status_code == 302, sent.content[:500]
        record.page(trainee_browser, "get", sent["Location"])
        slots.append(slot.pk)
    registry.register_trainee(
        EMPLOYER.get(),
        {"given_name": "Léa", "family_name": "Roy", "employer": APPLICANT.get().pk, "sin": SINS[3]},
    )
    back_office(record, application)
    return slots[0]


def back_office(record: Recorder, application: int) -> None:
    """Every page and export the people of the back office and the employer read."""
    record.api(EMPLOYER, "get", f"/applications/{application}")
    record.api(EMPLOYER, "get", f"/applications/{application}/participants")
    record.api(OFFICER, "get", f"/applications/{application}/participants")
    record.api(OFFICER, "get", f"/applications/{application}/agreement")
    record.api(OFFICER, "get", "/applications")
    employer, officer = signed_in(EMPLOYER), signed_in(OFFICER)
    for language in ("en", "fr"):
        record.page(employer, "get", page_path(language, "/employer/"))
        record.page(employer, "get", page_path(language, f"/employer/applications/{application}/"))
        record.page(
            employer, "get", page_path(language, f"/employer/applications/{application}/trainees/")
        )
        record.page(officer, "get", page_path(language, "/officer/"))
        record.page(officer, "get", page_path(language, f"/officer/applications/{application}/"))
        record.page(officer, "get", page_path(language, "/officer/participant-flags/"))
        record.page(signed_in(AUDITOR), "get", page_path(language, "/auditor/trail/"))
        record.page(signed_in(FINANCE), "get", page_path(language, "/finance/budgets/"))
    record.page(signed_in(AUDITOR), "get", "/en/auditor/trail.csv")  # the exports
    record.page(signed_in(FINANCE), "get", "/en/finance/budgets.csv")


def database_text() -> str:
    rows = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f'SELECT * FROM "{table}"')
            rows += [repr(row) for row in cursor.fetchall()]
    return "\n".join(rows)


def found_in(text: str) -> set[str]:
    return {form for form in FORBIDDEN if form in text}


def test_no_full_sin_anywhere_after_a_whole_run(
    demo: None, caplog: pytest.LogCaptureFixture, json_log: io.StringIO
) -> None:
    caplog.set_level(logging.DEBUG)
    record = Recorder()
    viewed_slot = run(record)

    # The one place a SIN is shown in full: an officer with the permission, one view, audited.
    officer = OFFICER.get()
    officer.may_view_sin = True
    officer.save()
    view = signed_in(OFFICER).post(f"/en/officer/participants/{viewed_slot}/sin/")
    assert view.status_code == 200  # the flags page, with the SIN of a flagged slot in full
    assert AuditEntry.objects.filter(action="participant.view_sin").count() == 1

    leaks = {url: found_in(url + "\n" + answer) for url, answer in record.seen}
    assert {url: forms for url, forms in leaks.items() if forms} == {}
    assert found_in(caplog.text) == set()
    assert json_lines(json_log) and found_in(json_log.getvalue()) == set()  # as a server prints
    messages = Message.objects.all()
    assert messages.count() >= 6  # received, approved, offer, three invitations
    for message in messages:
        assert found_in(f"{message.subject_line}\n{message.body}\n{message.recipient}") == set()
    for entry in AuditEntry.objects.all():
        assert found_in(json.dumps(entry.summary, ensure_ascii=False) + entry.object_id) == set()
    assert found_in(database_text()) == set()  # ciphertext only
    held = Participant.objects.exclude(sin_ciphertext=None).count()
    assert held == 3
    assert len(record.seen) >= 40
