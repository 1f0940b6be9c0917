"""The ranking on the pages: the officer sees the rank, the score and why, asks for an override;
the program manager signs it off; the report of decisions out of rank, EN/FR and CSV."""

from __future__ import annotations

import csv
import io
from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string
from django.utils import translation
from tests.addresses import page_path
from tests.personas import AUDITOR, EMPLOYER, OFFICER, PROGRAM_MANAGER, SECOND_OFFICER
from tests.service.grants.ranking_helpers import closed, ranked_stream, submitted_files
from tests.web.reading import signed_in, text

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.ranking import OverrideState, RankOverride
from jobgrant.service.grants.ranking.actions import rank_intake

pytestmark = pytest.mark.django_db
REASON = "The employer's plant closes in March: the training must start now."


@pytest.fixture
def files(demo: None) -> dict[str, Application]:
    intake = ranked_stream()
    submitted = submitted_files()
    rank_intake(closed(intake))
    for application in submitted.values():
        actions.recommend_application(OFFICER.get(), application)
    return submitted


def test_the_review_shows_the_rank_the_score_and_why_in_both_languages(files) -> None:
    client = signed_in(SECOND_OFFICER)
    english = text(client.get(page_path("en", f"/officer/applications/{files['B'].pk}/")))
    assert "Ranked 1 of 4" in english and "score of 85 points" in english
    assert "Above the cut-off" in english
    assert "1 of 1 trainees is a new hire or unemployed: 25 of 25 points" in english
    assert "Northeast" in english
    french = text(client.get(page_path("fr", f"/officer/applications/{files['D'].pk}/")))
    assert "Classée au rang 4 sur 4" in french and "Sous le seuil de financement" in french
    assert "Demander à approuver sous le seuil de financement" in french
    stream = files["D"].stream
    assert f'<dd id="stream">{stream.name_fr}</dd>' in french  # not the grant's code, SCE
    assert f'<dd id="stream">{stream.name_en}</dd>' in english


def test_the_queue_opens_in_rank_order(files) -> None:
    page = text(signed_in(SECOND_OFFICER).get(page_path("en", "/officer/")))
    positions = [page.index(f'id="open-{files[name].pk}"') for name in ("B", "C", "A", "D")]
    assert positions == sorted(positions)
    assert 'aria-sort="ascending" class="jg-num"><a href="?sort=-rank" id="sort-rank"' in page


def test_an_override_asked_for_on_the_page_then_signed_off_lets_the_approval_through(
    files,
) -> None:
    officer = signed_in(OFFICER)
    asked = officer.post(
        page_path("en", f"/officer/applications/{files['D'].pk}/override/"), {"reason": REASON}
    )
    assert asked.status_code == 302
    override = RankOverride.objects.get(application=files["D"])
    assert override.decision == "approve" and override.reason == REASON
    manager = signed_in(PROGRAM_MANAGER)
    listed = text(manager.get(page_path("fr", "/manager/overrides/")))
    assert f"Dérogation {override.pk}" in listed
    unconfirmed = manager.post(
        page_path("en", f"/manager/overrides/{override.pk}/answer/"), {"choice": "sign_off"}
    )
    assert unconfirmed.status_code == 422 and "Tick the box" in text(unconfirmed)
    answered = manager.post(
        page_path("en", f"/manager/overrides/{override.pk}/answer/"),
        {"choice": "sign_off", "note": "Agreed.", "confirm": "on"},
    )
    assert answered.status_code == 302
    override.refresh_from_db()
    assert override.state == OverrideState.SIGNED_OFF
    actions.approve_application(SECOND_OFFICER.get(), files["D"])
    answered_fr = text(manager.get(page_path("fr", "/manager/overrides/")))
    assert f"Dérogation {override.pk}</a> : Approuver sous le seuil" in answered_fr
    review = text(officer.get(page_path("fr", f"/officer/applications/{files['D'].pk}/")))
    assert "Approuver sous le seuil de financement : " in review


def test_an_override_without_a_reason_is_shown_back_with_the_error(files) -> None:
    response = signed_in(OFFICER).post(
        page_path("fr", f"/officer/applications/{files['D'].pk}/override/"), {"reason": ""}
    )
    assert response.status_code == 422
    assert "Indiquez le motif de la dérogation." in text(response)
    assert not RankOverride.objects.filter(application=files["D"]).exists()


def test_the_language_button_keeps_the_overrides_reason_and_the_managers_answer(files) -> None:
    """ADR 0039: both override forms post what was typed to their address in the other
    language, whose page shows it back, checking nothing and writing nothing."""
    switch = {"switch-language": "yes"}
    asking = f"/officer/applications/{files['D'].pk}/override/"
    officer = signed_in(OFFICER)
    review = text(officer.get(page_path("en", f"/officer/applications/{files['D'].pk}/")))
    assert 'id="switch-language-override"' in review
    assert f'formaction="{page_path("fr", asking)}"' in review
    shown = officer.post(page_path("fr", asking), {"reason": REASON, **switch})
    assert shown.status_code == 200 and '<html lang="fr">' in text(shown)
    assert REASON in text(shown) and "Indiquez le motif" not in text(shown)
    assert not RankOverride.objects.filter(application=files["D"]).exists()
    officer.post(page_path("en", asking), {"reason": REASON})
    override = RankOverride.objects.get(application=files["D"])
    answering = f"/manager/overrides/{override.pk}/answer/"
    manager = signed_in(PROGRAM_MANAGER)
    page = text(manager.get(page_path("en", f"/manager/overrides/{override.pk}/")))
    assert f'formaction="{page_path("fr", answering)}"' in page
    note = "Agreed: the plant closes."
    shown = manager.post(page_path("fr", answering), {"choice": "refuse", "note": note, **switch})
    page = text(shown)
    assert shown.status_code == 200 and '<html lang="fr">' in page and note in page
    assert '<option value="refuse" selected>' in page and "Cochez la case" not in page
    override.refresh_from_db()
    assert override.state == OverrideState.REQUESTED


def test_an_officer_cannot_open_the_sign_off_pages(files) -> None:
    assert signed_in(OFFICER).get(page_path("en", "/manager/overrides/")).status_code == 403
    assert signed_in(EMPLOYER).get(page_path("en", "/manager/overrides/")).status_code == 403


def _decided_out_of_rank(files: dict[str, Application]) -> RankOverride:
    from jobgrant.service.grants.ranking.actions import request_override, sign_off_override

    override = request_override(OFFICER.get(), files["D"], "approve", REASON)
    sign_off_override(PROGRAM_MANAGER.get(), override, "Agreed.")
    actions.approve_application(SECOND_OFFICER.get(), files["D"])
    return override


def test_the_report_lists_each_decision_out_of_rank_with_its_reason_and_two_signatories(
    files,
) -> None:
    _decided_out_of_rank(files)
    english = text(signed_in(AUDITOR).get(page_path("en", "/manager/out-of-rank/")))
    assert f"Application {files['D'].pk}" in english and REASON in english
    assert OFFICER.username in english and PROGRAM_MANAGER.username in english
    assert "Approved below the cut-off" in english
    french = text(signed_in(PROGRAM_MANAGER).get(page_path("fr", "/manager/out-of-rank/")))
    assert "Approuvée sous le seuil de financement" in french
    intake_id = files["D"].intake_id
    answer = signed_in(OFFICER).get(page_path("en", f"/manager/out-of-rank/{intake_id}/csv/"))
    rows = list(csv.DictReader(io.StringIO(answer.content.decode())))
    assert [(r["application"], r["rank"], r["decision"]) for r in rows] == [
        (str(files["D"].pk), "4", "approve")
    ]
    assert rows[0]["requested_by"] == OFFICER.username
    assert rows[0]["signed_off_by"] == PROGRAM_MANAGER.username
    assert rows[0]["reason"] == REASON


def test_the_annual_report_counts_the_decisions_out_of_rank(files) -> None:
    from jobgrant.service.outcomes.kpis import compute
    from jobgrant.service.outcomes.report.integrity import out_of_rank_sentence

    _decided_out_of_rank(files)
    # this test's decision and the demonstration's (a denial in its ranked intake)
    assert out_of_rank_sentence(compute("ON", "2026-27")).endswith(": 2.")
    assert AuditEntry.objects.filter(action="rank_override.sign_off").count() == 2


@pytest.mark.parametrize(
    ("language", "score", "said"),
    [
        ("en", 1, "with a score of 1 point."),
        ("en", 0, "with a score of 0 points."),
        ("en", 2, "with a score of 2 points."),
        ("fr", 0, "avec une note de 0 point."),
        ("fr", 1, "avec une note de 1 point."),
        ("fr", 2, "avec une note de 2 points."),
    ],
)
def test_the_score_agrees_with_its_number_in_both_languages(
    language: str, score: int, said: str
) -> None:
    """French writes 0 and 1 in the singular, English only 1."""
    rank = SimpleNamespace(rank=3, score=score, within_budget=True, points=[])
    with translation.override(language):
        found = render_to_string(
            "web/officer/_rank.html", {"rank": rank, "ranked_count": 9, "intake_name": "X"}
        )
    assert said in text(SimpleNamespace(content=found.encode()))
