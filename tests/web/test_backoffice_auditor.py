"""The auditor's trail: filters, pages, and the chain verification run from the page."""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import Client
from tests.addresses import page_path
from tests.personas import AUDITOR, EMPLOYER, FEDERAL_OFFICER, OFFICER, SECOND_OFFICER

from jobgrant.service.audit import append_only
from jobgrant.service.audit.chain import record
from jobgrant.service.audit.models import AuditEntry

pytestmark = pytest.mark.django_db
TRAIL = "/auditor/trail/"


def auditor() -> Client:
    client = Client()
    client.force_login(AUDITOR.get())
    return client


def text(response: Any) -> str:
    return html.unescape(response.content.decode()).replace("\u00a0", " ").replace("\u202f", " ")


def shown(page: str) -> list[int]:
    return [int(n) for n in re.findall(r'<tr id="entry-(\d+)">', page)]


@contextmanager
def superuser() -> Iterator[None]:
    """What only the database's superuser can do: get past the append-only guard."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL session_replication_role = replica")
            yield
            cursor.execute("SET LOCAL session_replication_role = origin")
    else:
        append_only.uninstall(connection)
        yield
        append_only.install(connection)


@pytest.mark.parametrize(
    ("language", "heading", "label"),
    [("en", "Audit trail", "Budget allocated"), ("fr", "Piste de vérification", "Budget alloué")],
)
def test_the_trail_newest_first_by_pages_in_both_languages(
    demo: None, language: str, heading: str, label: str
) -> None:
    client = auditor()  # one sign-in (itself an entry), then the two pages
    response = client.get(page_path(language, TRAIL))
    assert response.status_code == 200
    page = text(response)
    assert f'<html lang="{language}">' in page and f"<h1>{heading}</h1>" in page
    count = AuditEntry.objects.count()
    assert shown(page) == list(range(count, count - 50, -1))
    assert label in page
    second = text(client.get(page_path(language, TRAIL) + "?page=2"))
    assert shown(second)[0] == count - 50
    assert 'id="page-previous"' in second


def test_the_filters_by_actor_action_object_and_dates(demo: None) -> None:
    client = auditor()  # signed in first: the sign-in is an entry of its own
    with transaction.atomic():
        record(OFFICER.username, "application.approve", "application", 41, {"state": "approved"})
        record(SECOND_OFFICER.username, "application.deny", "application", 42, {"state": "denied"})
    last = AuditEntry.objects.order_by("-sequence")[:2]
    newest, before = last[0].sequence, last[1].sequence

    def entries(query: str) -> list[int]:
        return shown(text(client.get(page_path("en", TRAIL) + "?" + query)))

    assert entries(f"actor={OFFICER.username}") == [before]
    # newest first; the demonstration's denial in its ranked intake is older
    denials = entries("action=application.deny")
    assert denials[0] == newest and before not in denials
    assert entries("object_type=application&object_id=41") == [before]
    assert entries(f"sequence={newest}") == [newest]
    today = dt.date(2026, 11, 29).isoformat()
    assert newest in entries(f"since={today}&until={today}")
    earlier = entries("until=2026-11-28")  # the seed's ranked intake's entries: before the 20th
    assert newest not in earlier and before not in earlier
    refused = text(client.get(page_path("fr", TRAIL) + "?since=2026-11-30&until=2026-11-01"))
    assert "gcds-error-summary" in refused
    assert "La date de fin ne doit pas précéder la date de début." in refused
    bad = text(client.get(page_path("en", TRAIL) + "?since=yesterday&action=nonsense"))
    assert 'href="#id_since"' in bad and 'href="#id_action"' in bad


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            "en",
            "The chain is intact.</strong> On November 29, 2026, 10:00 a.m., "
            "{n} entries were verified.",
        ),
        (
            "fr",
            "La chaîne est intacte.</strong> Le 29 novembre 2026, 10 h 00, "
            "{n} entrées ont été vérifiées.",
        ),
    ],
)
def test_verifying_an_intact_chain_from_the_page(demo: None, language: str, words: str) -> None:
    client = auditor()
    response = client.post(page_path(language, "/auditor/trail/verify/"))
    assert response.status_code == 302
    assert response["Location"] == page_path(language, "/auditor/trail/#verification")
    page = text(client.get(page_path(language, "/auditor/trail/")))
    assert words.format(n=AuditEntry.objects.count()) in page
    assert 'id="verification-result"' in page
    # the result is shown once, after the verification it reports
    assert 'id="verification-result"' not in text(
        client.get(page_path(language, "/auditor/trail/"))
    )


def test_a_tampered_entry_is_named_with_a_link_to_it(demo: None) -> None:
    target = AuditEntry.objects.order_by("sequence")[4]
    with superuser():
        AuditEntry.objects.filter(pk=target.pk).update(actor="intruder")
    client = auditor()
    client.post("/en/auditor/trail/verify/")
    page = text(client.get("/en/auditor/trail/"))
    broken = f"The chain is broken at entry {target.sequence}: "
    assert broken + "its content does not match its hash (edited)." in page
    assert "its content does not match its hash (edited)" in page
    assert f'href="?sequence={target.sequence}" id="broken-entry-link"' in page
    client.post("/fr/verificateur/piste/verifier/")
    french = text(client.get("/fr/verificateur/piste/"))
    rompue = f"La chaîne est rompue à l'entrée {target.sequence} : "
    assert rompue + "son contenu ne correspond pas à son empreinte (modifiée)." in french
    assert "son contenu ne correspond pas à son empreinte (modifiée)" in french


def test_only_a_post_verifies_a_get_goes_to_the_trail(demo: None) -> None:
    client = auditor()
    response = client.get("/fr/verificateur/piste/verifier/")
    assert response.status_code == 302 and response["Location"] == "/fr/verificateur/piste/"
    assert 'id="verification-result"' not in text(client.get(response["Location"]))


# --- Entries in words, and their CSV -------------------------------------------------------


def row_of(page: str, sequence: int) -> str:
    row = page[page.index(f'<tr id="entry-{sequence}">') :]
    return row[: row.index("</tr>")]


def denied_and_refused(make_body: Any) -> tuple[int, int]:
    """An application denied with a reason, then a refused approval of it: their entries."""
    from jobgrant.service.errors import ServiceError
    from jobgrant.service.grants.applications import actions

    employer = EMPLOYER.get()
    officer = OFFICER.get()
    application = actions.submit_application(
        employer, actions.create_application(employer, make_body())
    )
    actions.deny_application(officer, application, '=HYPERLINK("x") no job follows')
    # the newest: the demonstration's ranked intake has a denial of its own
    denied = AuditEntry.objects.filter(action="application.deny").latest("sequence").sequence
    with pytest.raises(ServiceError):
        actions.approve_application(FEDERAL_OFFICER.get(), application)
    refused = AuditEntry.objects.get(action="refused.approve_application").sequence
    return denied, refused


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            "en",
            (
                "Application denied",
                "Application",
                "Reason: =HYPERLINK",
                "State: Denied",
                "Employer share: $5,000.00",
                "Jurisdiction: Ontario",
            ),
        ),
        (
            "fr",
            (
                "Demande refusée",
                "Motif : =HYPERLINK",
                "État : Refusée",
                "Part de l'employeur : 5 000,00 $",
                "Province ou territoire : Ontario",
            ),
        ),
    ],
)
def test_an_entry_is_shown_in_words_money_formatted_and_the_reason_included(
    make_body: Any, language: str, words: tuple[str, ...]
) -> None:
    denied, _refused = denied_and_refused(make_body)
    row = row_of(text(auditor().get(page_path(language, TRAIL))), denied)
    for word in words:
        assert word in row
    assert "employer_cents" not in row and "500000" not in row
    assert "application.deny" not in row


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "Refused: approve an application"), ("fr", "Refusé : approuver une demande")],
)
def test_a_refusal_says_what_was_attempted_and_why_in_the_pages_language(
    make_body: Any, language: str, words: str
) -> None:
    _denied, refused = denied_and_refused(make_body)
    row = row_of(text(auditor().get(page_path(language, TRAIL))), refused)
    assert words in row
    assert (
        "not in the officer's files" if language == "en" else "hors des dossiers de l'agent"
    ) in row
    assert "approve_application" not in row and "NOT_YOUR_FILE" not in row


def test_the_csv_has_the_filtered_entries_in_words_guarded_against_formulas(
    make_body: Any,
) -> None:
    import csv
    import io

    denied, _refused = denied_and_refused(make_body)
    client = auditor()
    page = text(client.get(page_path("fr", TRAIL) + "?object_type=application"))
    assert 'href="/fr/verificateur/piste.csv?object_type=application" id="trail-csv"' in page
    response = client.get("/fr/verificateur/piste.csv?object_type=application")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "no-store" in response["Cache-Control"]
    body = b"".join(response.streaming_content)
    assert body.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    assert rows[0][:4] == ["Entrée", "Moment (heure d'Ottawa)", "Auteur", "Action"]
    expected = AuditEntry.objects.filter(object_type="application").count()
    assert len(rows) == 1 + expected
    row = next(r for r in rows[1:] if r[0] == str(denied))
    assert row[3:6] == ["Demande refusée", "Demande", row[5]]
    assert "Part de l'employeur\u00a0: 5\u00a0000,00\u00a0$" in row[6]
    assert all(not cell.startswith(("=", "+", "-", "@")) for r in rows for cell in r)


def test_a_cell_that_would_be_a_formula_is_quoted() -> None:
    from jobgrant.service.web.views.auditor import csv_cell

    assert [csv_cell(v) for v in ("=1+1", "+1", "-1", "@SUM(A1)", "a=b", "")] == [
        "'=1+1",
        "'+1",
        "'-1",
        "'@SUM(A1)",
        "a=b",
        "",
    ]


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ("Refused: open a page", "Page", "the role does not allow it", "HTTP status: 403")),
        (
            "fr",
            ("Refusé : ouvrir une page", "Page", "le rôle ne le permet pas", "Statut HTTP : 403"),
        ),
    ],
)
def test_a_refused_page_as_the_role_gate_records_it_is_shown_in_words(
    demo: None, language: str, words: tuple[str, ...]
) -> None:
    with transaction.atomic():
        entry = record(
            OFFICER.username,
            "refused.open_page",
            "page",
            "web:auditor-trail",
            {"code": "ROLE_NOT_ALLOWED", "status": 403},
        )
    row = row_of(text(auditor().get(page_path(language, TRAIL))), entry.sequence)
    for word in words:
        assert word in row
