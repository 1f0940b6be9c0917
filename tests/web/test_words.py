"""One source for words: every code's label in both languages, defined once; the language chosen
by Django's i18n through one helper; money and dates through one formatter each."""

from __future__ import annotations

import datetime as dt
import html
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import models
from django.test import Client
from django.utils import translation
from tests.personas import FINANCE

import jobgrant.service
from jobgrant.rules.batch import COST_CATEGORIES, DELIVERIES, SETTINGS, STATUSES
from jobgrant.rules.codes import JURISDICTIONS
from jobgrant.service.accounts.models import Role
from jobgrant.service.choices import (
    CostCategory,
    Jurisdiction,
    Setting,
    StreamCode,
    TraineeStatus,
)
from jobgrant.service.grants.models.applications import Delivery, State
from jobgrant.service.ledger.models import Funder
from jobgrant.service.web.templatetags.backoffice import moment
from jobgrant.service.web.templatetags.jobgrant import longdate, money

SERVICE = Path(jobgrant.service.__file__).parent
TRANSLATED = (State, Delivery, Funder, Role, StreamCode, Setting, TraineeStatus, CostCategory)
EVERY_CHOICE = (*TRANSLATED, Jurisdiction)


def labels_in(language: str, choices: type[models.TextChoices]) -> dict[str, str]:
    with translation.override(language):
        return {code: str(name) for code, name in choices.choices}


@pytest.mark.parametrize("choices", EVERY_CHOICE, ids=lambda c: c.__name__)
@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_code_has_a_label_in_each_language_and_no_two_codes_share_one(
    choices: type[models.TextChoices], language: str
) -> None:
    labels = labels_in(language, choices)
    assert all(name.strip() for name in labels.values()), labels
    assert len(set(labels.values())) == len(labels), labels


@pytest.mark.parametrize("choices", TRANSLATED, ids=lambda c: c.__name__)
def test_every_label_is_translated_into_french(choices: type[models.TextChoices]) -> None:
    english, french = labels_in("en", choices), labels_in("fr", choices)
    untranslated = [code for code in english if english[code] == french[code]]
    assert not untranslated, f"{choices.__name__}: no French label for {untranslated}"


def test_jurisdictions_are_the_kernels_codes_named_as_the_kernel_names_them() -> None:
    assert list(Jurisdiction.values) == [j.code for j in JURISDICTIONS]
    english, french = labels_in("en", Jurisdiction), labels_in("fr", Jurisdiction)
    assert english == {j.code: j.name_en for j in JURISDICTIONS}
    assert french == {j.code: j.name_fr for j in JURISDICTIONS}
    assert french["BC"] == "Colombie-Britannique" and english["BC"] == "British Columbia"


def test_the_delivery_modes_settings_statuses_and_costs_are_the_kernels_codes() -> None:
    assert tuple(Delivery.values) == DELIVERIES
    assert tuple(Setting.values) == SETTINGS
    assert tuple(TraineeStatus.values) == STATUSES
    assert tuple(CostCategory.values) == (*COST_CATEGORIES, "wages_in_kind")


@pytest.mark.django_db
def test_the_migrations_hold_the_labels_the_models_have() -> None:
    """The choices' labels live in the models now: no migration is missing for them."""
    call_command("makemigrations", check=True, dry_run=True, verbosity=0)


def test_a_state_reads_in_the_language_of_the_page() -> None:
    with translation.override("fr"):
        assert str(State("approved").label) == "Approuvée"
    with translation.override("en"):
        assert str(State("approved").label) == "Approved"


def test_the_stream_is_sce_in_french_and_cjg_in_english() -> None:
    assert labels_in("en", StreamCode) == {"CJG": "CJG"}
    assert labels_in("fr", StreamCode) == {"CJG": "SCE"}


def page_text(response: Any) -> str:
    return html.unescape(response.content.decode())


@pytest.mark.django_db
def test_the_french_budgets_page_names_the_stream_sce(demo: None) -> None:
    client = Client()
    client.force_login(FINANCE.get())
    french = page_text(client.get("/fr/finances/budgets/?jurisdiction=ON&funder=federal"))
    row = french[french.index('id="budget-2026-27-ON-federal-CJG"') :]
    cells = re.findall(r"<td>([^<]*)</td>", row[: row.index("</tr>")])
    assert "SCE" in cells and "CJG" not in cells
    assert '<option value="CJG">SCE</option>' in french
    english = page_text(client.get("/en/finance/budgets/?jurisdiction=ON&funder=federal"))
    assert '<option value="CJG">CJG</option>' in english


# --- The language: one helper decides -------------------------------------------------------------

#: An inline test of the page's language: `== "fr"`, `!= "fr"`, `startswith("fr")`, or choosing a
#: field by a conditional on "fr" ("message_fr" if ... else ...).
INLINE_LANGUAGE_TEST = re.compile(
    r"""[=!]=\s*(?:["']fr["']|FRENCH\b)|startswith\(\s*["']fr|["']fr["']\s+if\b|\w+_fr["']?\s+if\b"""
)
THE_ONE_HELPER = SERVICE / "language.py"


def inline_language_tests() -> list[str]:
    """Every line of the service's code and templates (web/, grants/ and the rest) but the one
    helper's that tests the language itself."""
    found = []
    for path in sorted(SERVICE.rglob("*")):
        if path.suffix not in (".py", ".html") or "static" in path.parts or path == THE_ONE_HELPER:
            continue
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            if INLINE_LANGUAGE_TEST.search(line):
                found.append(f"{path.relative_to(SERVICE)}:{number}: {line.strip()}")
    return found


def test_no_module_of_the_service_tests_the_language_itself() -> None:
    """Only service/language.py asks which language is on; the rest use its helpers or lazy
    translated strings."""
    found = inline_language_tests()
    assert not found, "test the language with jobgrant.service.language instead:\n" + "\n".join(
        found
    )


@pytest.mark.parametrize(
    "line",
    [
        'french = (translation.get_language() or "en").startswith("fr")',
        'return name_fr if language() == "fr" else name_en',
        'message = found["message_fr" if language() == "fr" else "message_en"]',
        "{% if other_language == 'fr' %}Français{% endif %}",
        "return error.message_fr if french else error.message_en",
        'language = "fr" if wanted.startswith("fr") else "en"',
    ],
)
def test_the_inline_language_test_finder_sees_the_forms_it_forbids(line: str) -> None:
    assert INLINE_LANGUAGE_TEST.search(line)


def test_the_one_helper_is_where_the_language_is_tested() -> None:
    assert INLINE_LANGUAGE_TEST.search(THE_ONE_HELPER.read_text("utf-8"))


# --- Dates and money ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "day", "shown"),
    [
        ("fr", dt.date(2026, 12, 1), "1er décembre 2026"),
        ("fr", dt.date(2027, 1, 1), "1er janvier 2027"),
        ("fr", dt.date(2026, 12, 2), "2 décembre 2026"),
        ("fr", dt.date(2026, 12, 11), "11 décembre 2026"),
        ("fr", dt.date(2026, 12, 21), "21 décembre 2026"),
        ("en", dt.date(2026, 12, 1), "December 1, 2026"),
        ("en", dt.date(2026, 3, 4), "March 4, 2026"),
    ],
)
def test_a_long_date_writes_the_first_of_the_month_1er_in_french(
    language: str, day: dt.date, shown: str
) -> None:
    with translation.override(language):
        assert longdate(day) == shown
        assert longdate(day.isoformat()) == shown


def test_a_moment_on_the_first_of_the_month_is_1er_in_french_and_in_toronto_time() -> None:
    noon_utc = dt.datetime(2026, 12, 1, 17, 0, tzinfo=dt.UTC)  # 12:00 in Toronto
    with translation.override("fr"):
        assert moment(noon_utc).startswith("1er décembre 2026, 12")
    with translation.override("en"):
        assert moment(noon_utc).startswith("December 1, 2026, 12")
    just_after_midnight = dt.datetime(2026, 12, 1, 4, 30, tzinfo=dt.UTC)  # Nov 30 in Toronto
    with translation.override("fr"):
        assert moment(just_after_midnight).startswith("30 novembre 2026")


@pytest.mark.parametrize(
    ("language", "value", "shown"),
    [
        ("en", 500000, "$5,000.00"),
        ("fr", 500000, "5\u00a0000,00\u00a0$"),
        ("en", "1234567.89", "$1,234,567.89"),
        ("fr", "1234567.89", "1\u00a0234\u00a0567,89\u00a0$"),
        ("en", -5, "-$0.05"),
        ("fr", "-0.05", "-0,05\u00a0$"),
        ("en", 0, "$0.00"),
    ],
)
def test_the_money_filter_writes_cents_and_decimal_strings_for_the_page(
    language: str, value: int | str, shown: str
) -> None:
    with translation.override(language):
        assert money(value) == shown
