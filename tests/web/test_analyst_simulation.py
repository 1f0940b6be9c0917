"""The analyst's simulator page: a run asked for on the page, run by the real worker
(django-tasks' database worker, as `jobgrant worker` runs it) a slice of draws per task, its
progress, its figures (the same as `jobgrant simulate` gives for the same seed), CSV and plots;
bad input refused with the field named, in both languages; employers kept out.

Small runs (one fiscal year, three draws): the simulator's own tests cover its figures."""

from __future__ import annotations

import html
import io
import re
from typing import Any

import numpy as np
import polars as pl
import pytest
from django.test import Client
from tests.addresses import page_path
from tests.personas import ANALYST, EMPLOYER

from jobgrant.service.analysis.models import RunState, SimulationRun
from jobgrant.service.audit.models import AuditEntry

# The worker's tests commit (the next slice is handed to the worker when a slice commits).
through_the_worker = pytest.mark.django_db(transaction=True)
PAGE = "/analyst/simulations/"
YEAR = "2017-18"


def signed_in(persona: Any) -> Client:
    client = Client()
    client.force_login(persona.get())
    return client


def text(response: Any) -> str:
    return html.unescape(response.content.decode()).replace("\u00a0", " ").replace("\u202f", " ")


def ask(client: Client, lang: str = "en", **changes: Any) -> Any:
    form = {
        "scenario": "budget-2013",
        "first_year": YEAR,
        "last_year": YEAR,
        "draws": "3",
        "seed": "7",
        **changes,
    }
    return client.post(page_path(lang, PAGE), form)


def run_the_worker() -> int:
    from jobgrant.service.notifications.worker import OutboxWorker

    ran = 0
    while (turn := OutboxWorker("test-worker", interval=0).turn()) > 0:
        ran += turn
    return ran


@pytest.fixture
def one_draw_a_slice(settings: Any) -> None:
    settings.JOBGRANT_SIMULATION_DRAW_YEARS_PER_SLICE = 1


@through_the_worker
def test_a_run_goes_from_the_form_through_the_worker_to_its_figures(
    demo: None, one_draw_a_slice: None
) -> None:
    from jobgrant.service.analysis.actions import run_simulation_slice, spec_of
    from jobgrant.simulation.montecarlo import run

    client = signed_in(ANALYST)
    form = client.get(page_path("en", PAGE))
    assert form.status_code == 200
    assert '<option value="budget-2013" selected>' in text(form)

    asked = ask(client)
    assert asked.status_code == 302
    simulation = SimulationRun.objects.get()
    page_url = f"/en/analyst/simulations/{simulation.pk}/"
    assert asked["Location"] == page_url
    waiting = text(client.get(page_url))
    assert "Waiting for the worker: 0 of 3 draws done." in waiting
    assert 'max="3" value="0"' in waiting and 'hx-trigger="every 2s"' in waiting

    # One slice (one draw), run as the worker runs a task: the progress says so.
    assert run_simulation_slice.call(simulation.pk, 0) == "stored"
    progress = client.get(f"{page_url}progress/")
    assert "Running: 1 of 3 draws done." in text(progress)
    assert "HX-Refresh" not in progress

    # The real worker runs the rest: the slice already stored is not stored again.
    assert run_the_worker() >= 2
    simulation.refresh_from_db()
    assert (simulation.state, simulation.draws_done) == (RunState.DONE, 3)
    assert simulation.slices.count() == 3
    assert client.get(f"{page_url}progress/")["HX-Refresh"] == "true"

    expected = run(spec_of(simulation))  # the simulator itself, same seed: same figures
    csv = client.get(f"{page_url}simulation.csv?table=draws")
    assert csv["Content-Type"].startswith("text/csv")
    draws = pl.read_csv(io.BytesIO(csv.content))
    national = draws.filter(pl.col("jurisdiction") == "CA").sort("draw")
    trainees = expected.figures[:, 0, -1, 6]  # (draw, year, CA, trainees_approved)
    assert np.array_equal(national["trainees_approved"].to_numpy(), trainees)
    summary = pl.read_csv(io.BytesIO(client.get(f"{page_url}simulation.csv").content))
    mean = summary.filter((pl.col("jurisdiction") == "CA") & (pl.col("measure") == "federal"))
    assert mean["mean"][0] == pytest.approx(expected.figures[:, 0, -1, 8].mean())

    done = text(client.get(page_url))
    assert 'id="jurisdictions-table"' in done and done.count('<tr id="simulated-') == 14
    assert f"{expected.figures[:, 0, -1, 6].mean():,.0f} [" in done
    assert "plots.svg" in done and 'id="summary-csv"' in done

    actions = list(
        AuditEntry.objects.filter(object_type="simulation").values_list("action", "actor")
    )
    assert actions == [("simulation.request", ANALYST.username), ("simulation.finish", "worker")]

    # In French: the page's words and numbers, and the plots' words.
    french = text(client.get(page_path("fr", page_url[len("/en") :])))
    assert "Par province et territoire, 2017-18" in french
    assert re.search(r"\d[\d ]*,\d \[", french)  # millions written the French way: 12,3
    svg = client.get(f"/fr/analyste/simulations/{simulation.pk}/graphiques.svg")
    assert svg["Content-Type"] == "image/svg+xml" and svg["Content-Language"] == "fr"
    assert "Qui paie quoi" in svg.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "changes", "field", "message"),
    [
        (
            "en",
            {"draws": "0"},
            "draws",
            "The number of draws must be a whole number from 1 to 200.",
        ),
        (
            "fr",
            {"draws": "500"},
            "draws",
            "Le nombre de tirages doit être un nombre entier de 1 à 200.",
        ),
        ("en", {"draws": "many"}, "draws", "The number of draws must be a whole number from 1 to"),
        ("en", {"first_year": "2019-20"}, "last_year", "cannot come before the first"),
        ("fr", {"scenario": "nonsense"}, "scenario", "Choisissez un des scénarios de la liste."),
        ("en", {"seed": "-1"}, "seed", "The seed must be a whole number from 0 to 2,147,483,647."),
        (
            "fr",
            {"seed": "-1"},
            "seed",
            "La graine doit être un nombre entier de 0 à 2 147 483 647.",
        ),
    ],
)
def test_bad_input_is_refused_with_the_field_named_and_nothing_written(
    demo: None, lang: str, changes: dict[str, str], field: str, message: str
) -> None:
    response = ask(signed_in(ANALYST), lang=lang, **changes)
    assert response.status_code == 200
    page = text(response)
    assert f'href="#id_{field}"' in page and message in page
    assert f'id="id_{field}_error"' in page
    assert "Ensure this value" not in page and "Assurez-vous" not in page
    assert not SimulationRun.objects.exists()
    assert not AuditEntry.objects.filter(object_type="simulation").exists()


@pytest.mark.django_db
def test_employers_are_kept_out(demo: None) -> None:
    client = signed_in(EMPLOYER)
    assert client.get(page_path("en", PAGE)).status_code == 403
    assert ask(client).status_code == 403
    assert not SimulationRun.objects.exists()
    assert Client().get(page_path("en", PAGE)).status_code == 302  # to the sign-in page


@through_the_worker
def test_a_run_whose_scenario_breaks_fails_with_the_reason(
    demo: None, settings: Any, tmp_path: Any
) -> None:
    import shutil
    from pathlib import Path

    (tmp_path / "scenarios").mkdir()
    shutil.copy(Path(settings.BASE_DIR) / "scenarios" / "budget-2013.yaml", tmp_path / "scenarios")
    settings.BASE_DIR = tmp_path
    client = signed_in(ANALYST)
    asked = ask(client, draws="1")
    (tmp_path / "scenarios" / "budget-2013.yaml").write_text("kind: nonsense\n")
    run_the_worker()
    simulation = SimulationRun.objects.get()
    assert simulation.state == RunState.FAILED and "kind must be" in simulation.error
    page = text(client.get(asked["Location"]))
    assert 'id="simulation-failed"' in page and 'id="new-simulation-link"' in page
    assert AuditEntry.objects.filter(action="simulation.fail").count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "name"),
    [
        ("en", "Budget 2013 as announced, every province and territory signs"),
        ("fr", "Le budget de 2013 tel qu'annoncé, toutes les provinces et tous les territoires"),
    ],
)
def test_a_run_shows_its_scenario_by_name_not_by_its_code(demo: None, lang: str, name: str) -> None:
    client = signed_in(ANALYST)
    assert ask(client).status_code == 302
    simulation = SimulationRun.objects.get()
    page = text(client.get(page_path(lang, f"/analyst/simulations/{simulation.pk}/")))
    shown = page[page.index('id="simulation-scenario"') :]
    shown = shown[: shown.index("</dd>")]
    assert name in shown, shown
    listed = text(client.get(page_path(lang, PAGE)))
    row = listed[listed.index(page_path(lang, f"/analyst/simulations/{simulation.pk}/")) :]
    assert name in row[: row.index("</tr>")]
