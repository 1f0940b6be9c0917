"""The program manager's page to rank by hand a closed intake the worker has not ranked, in
English and in French: the intake's page offers it, the confirmation says what the ranking
does and that it is never made again, the POST ranks (audited) and comes back to the intake;
an intake ranked already, or not closed, gets the refusal; other roles the 403 page."""

from __future__ import annotations

import pytest
from tests.addresses import page_path
from tests.personas import OFFICER, PROGRAM_MANAGER
from tests.service.grants.ranking_helpers import closed, ranked_stream, submitted_files
from tests.web.reading import signed_in, text

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.models.applications import Intake, IntakeState
from jobgrant.service.grants.models.ranking import IntakeRank

pytestmark = pytest.mark.django_db


@pytest.fixture
def intake(demo: None) -> Intake:
    made = ranked_stream()
    submitted_files()
    return closed(made)


def test_the_intake_page_offers_the_ranking_and_the_confirmation_says_what_it_does(
    intake,
) -> None:
    client = signed_in(PROGRAM_MANAGER.username)
    page = text(client.get(page_path("en", f"/programs/intakes/{intake.pk}/")))
    assert 'id="rank-intake"' in page and "you can rank it now" in page
    asked = client.get(page_path("en", f"/programs/intakes/{intake.pk}/rank/"))
    english = text(asked)
    assert asked.status_code == 200
    assert "puts the intake's 4 eligible applications awaiting a decision in order" in english
    assert "A ranking, once made, is never made again" in english
    assert 'id="confirm-rank"' in english and "$10,000.00" in english
    french_path = page_path("fr", f"/programs/intakes/{intake.pk}/rank/")
    assert french_path == f"/fr/programmes/appels/{intake.pk}/classer/"
    french = text(client.get(french_path))
    assert "Le classement met en ordre les 4 demandes admissibles" in french
    assert "Oui, le classer maintenant" in french and "ne se refait jamais" in french
    assert not IntakeRank.objects.filter(intake=intake).exists()  # asking changes nothing


def test_without_a_budget_of_its_own_the_confirmation_says_whose_money_it_shows(intake) -> None:
    Intake.objects.filter(pk=intake.pk).update(provincial_budget_cents=0)
    client = signed_in(PROGRAM_MANAGER.username)
    english = text(client.get(page_path("en", f"/programs/intakes/{intake.pk}/rank/")))
    assert "<dt>Federal budget</dt>" in english
    assert "Provincial or territorial money left in the budget account" in english
    french = text(client.get(page_path("fr", f"/programs/intakes/{intake.pk}/rank/")))
    assert "Fonds provinciaux ou territoriaux restant dans le compte budgétaire" in french


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_post_ranks_it_audited_and_comes_back_to_the_intake(intake, language) -> None:
    client = signed_in(PROGRAM_MANAGER.username)
    answer = client.post(page_path(language, f"/programs/intakes/{intake.pk}/rank/"))
    assert answer.status_code == 302
    assert answer["Location"] == page_path(language, f"/programs/intakes/{intake.pk}/")
    intake.refresh_from_db()
    assert intake.state == IntakeState.RANKED
    assert IntakeRank.objects.filter(intake=intake).count() == 4
    entry = AuditEntry.objects.get(action="intake.rank", object_id=str(intake.pk))
    assert entry.actor == PROGRAM_MANAGER.username
    page = text(client.get(answer["Location"]))
    notice = {"en": "The intake was ranked", "fr": "L’appel de demandes a été classé"}
    assert notice[language] in page and 'id="ranked-on"' in page
    assert 'id="rank-intake"' not in page


@pytest.mark.parametrize(
    ("language", "title", "sentence"),
    [
        ("en", "This intake is already ranked", "A ranking, once made, is never made again"),
        ("fr", "Cet appel de demandes est déjà classé", "Un classement, une fois établi"),
    ],
)
def test_an_intake_ranked_already_gets_the_refusal(intake, language, title, sentence) -> None:
    client = signed_in(PROGRAM_MANAGER.username)
    path = page_path(language, f"/programs/intakes/{intake.pk}/rank/")
    assert client.post(path).status_code == 302
    for answer in (client.get(path), client.post(path)):
        assert answer.status_code == 409
        page = text(answer)
        assert title in page and sentence in page and 'id="confirm-rank"' not in page
    assert AuditEntry.objects.filter(action="refused.rank_intake").count() == 1  # the POST


def test_an_open_intake_gets_the_refusal_in_french(demo: None) -> None:
    intake = ranked_stream()
    page = signed_in(PROGRAM_MANAGER.username).get(
        page_path("fr", f"/programs/intakes/{intake.pk}/rank/")
    )
    assert page.status_code == 409
    assert "Seul un appel de demandes fermé d’un volet qui classe ses demandes" in text(page)


def test_an_officer_gets_the_403_page_and_nothing_is_ranked(intake) -> None:
    answer = signed_in(OFFICER.username).post(
        page_path("en", f"/programs/intakes/{intake.pk}/rank/")
    )
    assert answer.status_code == 403
    assert not IntakeRank.objects.filter(intake=intake).exists()


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_ranked_intake_shows_its_ranking_and_the_start_page_the_overrides_waiting(
    intake, language
) -> None:
    from jobgrant.service.grants.ranking import actions as ranking_actions

    client = signed_in(PROGRAM_MANAGER.username)
    start = text(client.get(page_path(language, "/programs/")))
    nothing = {"en": "No decision against a ranking is waiting", "fr": "Aucune décision contraire"}
    assert nothing[language] in start and 'id="to-overrides"' in start
    ranks = ranking_actions.rank_intake(intake)
    page = text(client.get(page_path(language, f"/programs/intakes/{intake.pk}/")))
    word = {"en": "Application", "fr": "Demande"}[language]
    for rank in ranks:
        row = page.split(f'<tr id="rank-{rank.rank}">', 1)[1].split("</tr>", 1)[0]
        assert f"{word} {rank.application_id}<" in row and f">{rank.score}<" in row
    assert 'id="to-out-of-rank"' in page
    within = next(r for r in ranks if r.within_budget).application
    ranking_actions.request_override(OFFICER.get(), within, "deny", "Funded elsewhere already.")
    start = text(client.get(page_path(language, "/programs/")))
    waiting = {
        "en": "1 decision against a ranking is waiting for a program manager's sign-off.",
        "fr": "1 décision contraire à un classement attend l'approbation",
    }
    assert waiting[language] in start
