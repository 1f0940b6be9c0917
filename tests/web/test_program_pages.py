"""A program manager's pages, in English and in French: the programs, a stream's rules read
from the rules kernel, an intake created (a window that overlaps is refused, naming the field),
and an intake closed early after a confirmation with a reason. Other roles get the 403 page."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from tests.addresses import page_path
from tests.personas import ADMIN, OFFICER, PROGRAM_MANAGER
from tests.web.reading import signed_in

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.core.quoting import open_intake
from jobgrant.service.grants.intakes.kernel_rules import program_rules
from jobgrant.service.grants.models.applications import Intake, IntakeState, Program, Selection

pytestmark = pytest.mark.django_db


def ontario() -> Program:
    return Program.objects.filter(jurisdiction="ON").order_by("-fiscal_year")[0]


def ranked_stream_id() -> int:
    return ontario().streams.get(selection=Selection.RANKED).pk


def later(days: int) -> str:
    return (timezone.localdate() + dt.timedelta(days=days)).isoformat()


def intake_form(opens: str, closes: str, federal: str = "0") -> dict[str, str]:
    return {
        "name_en": "Autumn intake",
        "name_fr": "Appel d'automne",
        "opens_on": opens,
        "closes_on": closes,
        "federal_budget": federal,
        "provincial_budget": "0",
    }


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_program_manager_sees_ontario_s_programs_and_streams(demo: None, language: str) -> None:
    page = signed_in(PROGRAM_MANAGER.username).get(page_path(language, "/programs/"))
    assert page.status_code == 200
    text = page.content.decode()
    assert ("Programs by jurisdiction" if language == "en" else "Programmes par province") in text
    assert f'id="program-{ontario().pk}"' in text
    assert (
        "program-"
        + str(Program.objects.get(jurisdiction="BC", fiscal_year=ontario().fiscal_year).pk)
        not in text
    )


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_stream_s_page_shows_its_rules_from_the_kernel_and_its_intakes(
    demo: None, language: str
) -> None:
    page = signed_in(PROGRAM_MANAGER.username).get(
        page_path(language, f"/programs/streams/{ranked_stream_id()}/")
    )
    text = page.content.decode()
    assert page.status_code == 200
    rate = program_rules(ontario(), dt.date(int(ontario().fiscal_year[:4]), 4, 1))["rates"][0]
    assert (rate.name, f"<td>{rate.value}</td>") == ("cjg.federal.rate", "<td>1/3</td>")
    assert "<td>1/3</td>" in text  # the federal share, read from the policy
    said = "No policy of the rules kernel" if language == "en" else "Aucune politique du noyau"
    assert said in text
    assert ("Ranked" if language == "en" else "Classé") in text  # the ranked intake


def test_the_home_page_of_a_program_manager_is_the_programs(demo: None) -> None:
    answer = signed_in(PROGRAM_MANAGER.username).get("/en/home/")
    assert answer["Location"] == "/en/programs/"


def test_an_intake_is_created_from_its_page_and_an_overlapping_one_refused(demo: None) -> None:
    client = signed_in(PROGRAM_MANAGER.username)
    new = page_path("en", f"/programs/streams/{ranked_stream_id()}/intakes/new/")
    created = client.post(new, intake_form(later(5), later(30), "1000.00"))
    assert created.status_code == 302
    intake = Intake.objects.get(name_en="Autumn intake")
    assert (intake.state, intake.federal_budget_cents) == (IntakeState.SCHEDULED, 100_000)
    assert created["Location"] == f"/en/programs/intakes/{intake.pk}/"
    french = page_path("fr", f"/programs/streams/{ranked_stream_id()}/intakes/new/")
    refused = client.post(french, intake_form(later(10), later(40)))
    assert refused.status_code == 422
    text = refused.content.decode()
    assert "chevauche" in text and 'href="#opens_on"' in text
    assert Intake.objects.filter(name_en="Autumn intake").count() == 1


def test_an_intake_is_closed_early_after_a_confirmation_with_a_reason(demo: None) -> None:
    client = signed_in(PROGRAM_MANAGER.username)
    intake = open_intake(ontario(), timezone.localdate())
    assert intake is not None
    address = page_path("fr", f"/programs/intakes/{intake.pk}/close/")
    confirm = client.get(address)
    assert confirm.status_code == 200 and "Oui, le fermer maintenant" in confirm.content.decode()
    assert client.post(address, {"reason": ""}).status_code == 422
    intake.refresh_from_db()
    assert intake.state == IntakeState.OPEN
    closed = client.post(address, {"reason": "Arriéré : suspendu trois semaines."})
    assert closed.status_code == 302
    intake.refresh_from_db()
    assert intake.state == IntakeState.CLOSED
    assert AuditEntry.objects.filter(action="intake.close", object_id=str(intake.pk)).exists()
    page = client.get(closed["Location"]).content.decode()
    assert "Arriéré" in page


def test_other_roles_get_the_403_page_and_the_administrator_manages_too(demo: None) -> None:
    assert signed_in(OFFICER.username).get("/en/programs/").status_code == 403
    assert signed_in(ADMIN.username).get("/en/programs/").status_code == 200
    stream = signed_in(ADMIN.username).get(f"/en/programs/streams/{ranked_stream_id()}/")
    assert 'id="new-intake"' in stream.content.decode()
