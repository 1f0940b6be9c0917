"""The replay page (/en/analyst/replay/, /fr/analyste/rejouer/): an analyst replays a closed
intake under another policy, in English and in French; the CSV; bad choices named; others
refused."""

from __future__ import annotations

import csv
import io

import pytest
from tests.personas import ANALYST, OFFICER
from tests.service.outcomes.replay_fixture import intake_of_four, ranked_intake_of_two
from tests.web.reading import signed_in

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.models.applications import Intake, IntakeState

pytestmark = pytest.mark.django_db


def test_an_analyst_replays_a_closed_intake_in_english_and_in_french(demo: None) -> None:
    intake = intake_of_four(16_000_00, 16_000_00)
    client = signed_in(ANALYST)
    asked = {"intake": str(intake.pk), "policy": "cjg-2014"}
    page = client.get("/en/analyst/replay/", asked)
    html = page.content.decode()
    assert page.status_code == 200, html
    assert "4 files replayed under “Canada Job Fund agreements as signed in 2014”" in html
    assert "1 file funded would no longer be." in html
    assert "$16,000.00" in html and "November 16, 2026" in html
    assert 'src="data:image/svg+xml;base64,' in html
    assert "1 to 49 employees" in html
    french = client.get("/fr/analyste/rejouer/", asked).content.decode()
    assert (
        "4 dossiers rejoués sous « Ententes sur le Fonds canadien pour l’emploi"
        in french.replace("&#x27;", "’").replace("'", "’")
    )
    assert "16\u00a0000,00\u00a0$" in french and "16 novembre 2026" in french
    download = client.get("/fr/analyste/rejouer/dossiers.csv", asked)
    assert download.status_code == 200
    assert download["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(download.content.decode())))
    assert [row["finance_maintenant"] for row in rows] == ["oui", "oui", "non", "oui"]


def test_a_ranked_intake_shows_each_files_rank_as_decided_and_replayed(demo: None) -> None:
    intake, files = ranked_intake_of_two()
    x, y = files["X"].pk, files["Y"].pk
    client = signed_in(ANALYST)
    # Under cjg-2014 (tests/service/outcomes/test_replay.py): the same government money per
    # trainee, all of it federal; the same ranks, and the cut-off now falls before Y.
    asked = {"intake": str(intake.pk), "policy": "cjg-2014"}
    html = client.get("/en/analyst/replay/", asked).content.decode()
    assert "0 files change rank under the other policy." in html
    assert f'id="replay-rank-{y}"' in html and f'id="replay-rank-{x}"' not in html
    row = html.split(f'id="replay-rank-{y}"')[1].split("</tr>")[0]
    cells = [cell.split(">")[-1] for cell in row.split("</td>")[:-1]]
    assert cells == ["1", "52", "1", "52", "Would no longer be funded"]
    french = client.get("/fr/analyste/rejouer/", asked).content.decode()
    assert "0 dossier change de rang sous l’autre politique." in french
    assert "Ne serait plus financé" in french
    download = client.get("/en/analyst/replay/replay.csv", asked)
    rows = list(csv.DictReader(io.StringIO(download.content.decode())))
    assert [(r["application"], r["rank_then"], r["rank_now"]) for r in rows] == [
        (str(y), "1", "1"),
        (str(x), "2", "2"),
    ]


def test_a_bad_choice_is_named_in_the_readers_language_and_nothing_runs(demo: None) -> None:
    intake_of_four(0, 0)
    client = signed_in(ANALYST)
    page = client.get("/fr/analyste/rejouer/", {"intake": "987654", "policy": "/etc/passwd"})
    assert page.status_code == 422
    html = page.content.decode()
    assert "Choisissez l’appel de demandes clos à rejouer." in html
    assert "Choisissez la politique sous laquelle rejouer l’appel de demandes." in html
    assert client.get("/en/analyst/replay/replay.csv", {"intake": "1"}).status_code == 422


def test_with_no_closed_intake_the_page_says_so_and_leads_elsewhere(demo: None) -> None:
    Intake.objects.exclude(state=IntakeState.OPEN).update(state=IntakeState.OPEN)
    html = signed_in(ANALYST).get("/en/analyst/replay/").content.decode()
    assert 'id="no-closed-intake"' in html
    assert 'id="kpis-link"' in html and 'id="simulations-link"' in html


def test_an_officer_is_refused(demo: None) -> None:
    intake = intake_of_four(0, 0)
    asked = {"intake": str(intake.pk), "policy": "cjg-2014"}
    assert signed_in(OFFICER).get("/en/analyst/replay/", asked).status_code == 403


def test_a_refusal_of_the_replay_is_audited(demo: None) -> None:
    from jobgrant.service.errors import ServiceError
    from jobgrant.service.outcomes.access import replay_intake

    officer = User.objects.get(username=OFFICER.username)
    with pytest.raises(ServiceError):
        replay_intake(officer, 1, "cjg-2014")
    entry = AuditEntry.objects.filter(action="refused.replay_intake").latest("pk")
    assert entry.actor == OFFICER.username
