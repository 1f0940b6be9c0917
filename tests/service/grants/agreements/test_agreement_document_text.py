"""The agreement's document is the same text, byte for byte, however it is written.

A version's document is stored and hashed when the version is made, and what the applicant
accepts is that hash: a faster way of writing it must write exactly what the Django template
grants/agreement/document.html wrote, or a document read before and after the change
would differ. Three checks:

- fixed cases (one trainee; a consortium with names full of characters HTML escapes, no course,
  large sums, the first of the month; no employer at all), each compared with the text the
  template wrote, kept in agreement_documents/ (written by the template before it was replaced,
  with write_golden_files);
- generated cases (Hypothesis: any names, courses, providers, sums, dates), each compared with
  the template itself, rendered by Django from agreement_document_reference.html beside this
  file (the template as it was first written);
- the versions real approvals store (several applications, English and French), compared with
  the template and with their stored hash.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from django.template import engines
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobgrant.service.grants.agreements.actions import rendered
from jobgrant.service.grants.agreements.document import (
    _document_context,
    content_hash,
    employers_of,
    render_document,
)
from jobgrant.service.grants.models.agreements import Agreement, AgreementVersion
from jobgrant.service.grants.models.applications import Application, ApplicationEmployer
from jobgrant.service.registry.models import Employer

HERE = Path(__file__).parent
GOLDEN = HERE / "agreement_documents"
REFERENCE = HERE / "agreement_document_reference.html"
TORONTO = dt.timezone(dt.timedelta(hours=-5))
NASTY = 'Tremblay & Fils <Ltée> "l\'atelier" 100% {{ x }} %(number)s'


def _employer(name: str, bn: str, reference: str) -> ApplicationEmployer:
    return ApplicationEmployer(
        reference=reference, employer=Employer(name=name, business_number=bn)
    )


def version_of(
    *,
    number: int = 7,
    version: int = 1,
    created: dt.datetime = dt.datetime(2026, 11, 29, 15, 4, tzinfo=dt.UTC),
    schedule: dict[str, str] | None = None,
    lines: list[dict[str, Any]] | None = None,
    shares: list[dict[str, Any]] | None = None,
    totals: tuple[int, int, int, int] = (1_500_000, 500_000, 500_000, 500_000),
    due: tuple[dt.date, dt.date, dt.date] = (
        dt.date(2026, 12, 28),
        dt.date(2027, 2, 10),
        dt.date(2027, 4, 25),
    ),
    accept_by: dt.datetime | None = None,
    policy: str = "cjg-2026",
    policy_version: str = "3f2a9c1d",
) -> AgreementVersion:
    """An agreement version in memory (no database): what render_document reads of one."""
    application = Application(pk=number)
    agreement = Agreement(application=application, version=version)
    eligible, federal, provincial, employer = totals
    return AgreementVersion(
        agreement=agreement,
        number=version,
        created_at=created,
        schedule=schedule
        or {
            "course": "CNC machining certificate",
            "provider": "Mohawk College",
            "setting": "off-site",
            "start_date": "2027-01-11",
            "end_date": "2027-03-26",
            "hours": "120",
        },
        cost_lines=lines
        if lines is not None
        else [{"trainee": 1, "employer_id": "acme", "category": "tuition", "cents": 1_500_000}],
        trainee_shares=shares
        if shares is not None
        else [
            {
                "trainee": 1,
                "employer_id": "acme",
                "status": "existing-employee",
                "eligible_cost_cents": eligible,
                "federal_cents": federal,
                "provincial_cents": provincial,
                "employer_cents": employer,
            }
        ],
        eligible_cents=eligible,
        federal_cents=federal,
        provincial_cents=provincial,
        employer_cents=employer,
        accept_by=accept_by or created + dt.timedelta(days=30),
        participants_by=due[0],
        first_claim_by=due[1],
        completion_report_by=due[2],
        due_date_parameters=[],
        policy=policy,
        policy_version=policy_version,
    )


def _consortium() -> tuple[AgreementVersion, list[ApplicationEmployer]]:
    links = [
        _employer(NASTY, "123456782RT0001", "lead"),
        _employer("Lakeshore Logistics", "987654321", "lake"),
        _employer("Café <Chez Ève> & Cie", "111111118", "cafe"),
    ]
    categories = ["tuition", "student_fees", "materials", "exam_fees", "wages_in_kind"]
    lines = [
        {"trainee": t, "employer_id": ref, "category": c, "cents": 123_456_789 + t * 7 + i}
        for t, ref in ((1, "lead"), (2, "lake"), (3, "gone"))
        for i, c in enumerate(categories)
    ]
    statuses = ["existing-employee", "new-hire", "unemployed"]
    shares = [
        {
            "trainee": t,
            "employer_id": ref,
            "status": statuses[t - 1] if t < 3 else "no-such-status",
            "eligible_cost_cents": 100_000_000 + t,
            "federal_cents": 66_666_666 + t,
            "provincial_cents": 0,
            "employer_cents": 33_333_334 - t,
        }
        for t, ref in ((1, "lead"), (2, "lake"), (3, "gone"))
    ]
    schedule = {
        "course": "",
        "provider": NASTY,
        "setting": "somewhere-else",
        "start_date": "2027-02-01",
        "end_date": "2027-03-01",
        "hours": "37.5",
    }
    version = version_of(
        number=12345,
        version=3,
        created=dt.datetime(2026, 12, 1, 4, 30, tzinfo=dt.UTC),  # Nov 30 in Toronto
        schedule=schedule,
        lines=lines,
        shares=shares,
        totals=(300_000_006, 200_000_004, 0, 99_999_999_999),
        due=(dt.date(2027, 1, 1), dt.date(2027, 3, 1), dt.date(2027, 5, 31)),
        accept_by=dt.datetime(2027, 1, 1, 17, 5, tzinfo=dt.UTC),
        policy="scenarios/<lean> & 'tight'.yaml",
        policy_version="v%s",
    )
    return version, links


def cases() -> dict[str, tuple[AgreementVersion, list[ApplicationEmployer]]]:
    """The fixed cases, by name."""
    plain = version_of()
    return {
        "one-trainee": (plain, [_employer("Acme Precision Machining", "123456782", "acme")]),
        "consortium": _consortium(),
        "no-employer": (
            version_of(
                number=1,
                lines=[],
                shares=[],
                totals=(0, 0, 0, 0),
                schedule={
                    "course": "Soudure",
                    "provider": "",
                    "setting": "online",
                    "start_date": "2027-12-31",
                    "end_date": "2028-01-01",
                    "hours": "",
                },
                created=dt.datetime(2027, 7, 1, 12, 0, tzinfo=dt.UTC),
            ),
            [],
        ),
    }


def reference_document(
    version: AgreementVersion, language: str, links: list[ApplicationEmployer]
) -> str:
    """The document as the Django template wrote it (the first render_document)."""
    template = engines["django"].from_string(REFERENCE.read_text())
    with translation.override(language):
        html = template.render(_document_context(version, language, links))
    return "\n".join(line.rstrip() for line in html.strip().splitlines()) + "\n"


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("name", sorted(cases()))
def test_the_document_is_the_text_the_template_wrote(name: str, language: str) -> None:
    version, links = cases()[name]
    expected = (GOLDEN / f"{name}.{language}.html").read_text()
    assert render_document(version, language, links) == expected
    assert reference_document(version, language, links) == expected


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
_CENTS = st.integers(min_value=0, max_value=10**13)


@st.composite
def _versions(draw: st.DrawFn) -> tuple[AgreementVersion, list[ApplicationEmployer]]:
    names = draw(st.lists(_TEXT, max_size=3))
    links = [_employer(name, draw(_TEXT), f"e{i}") for i, name in enumerate(names)]
    references = [link.reference for link in links] + ["other"]
    trainees = draw(st.integers(min_value=0, max_value=3))
    lines = [
        {
            "trainee": t + 1,
            "employer_id": draw(st.sampled_from(references)),
            "category": draw(st.sampled_from(["tuition", "exam_fees", "wages_in_kind", "what"])),
            "cents": draw(_CENTS),
        }
        for t in range(trainees)
    ]
    shares = [
        {
            "trainee": t + 1,
            "employer_id": draw(st.sampled_from(references)),
            "status": draw(st.sampled_from(["new-hire", "unemployed", "", "x"])),
            **{
                f"{key}_cents": draw(_CENTS)
                for key in ("eligible_cost", "federal", "provincial", "employer")
            },
        }
        for t in range(trainees)
    ]
    start = draw(st.dates(dt.date(2026, 1, 1), dt.date(2030, 12, 31)))
    created = draw(
        st.datetimes(
            dt.datetime(2026, 1, 1),  # noqa: DTZ001 (Hypothesis's bounds are naive)
            dt.datetime(2030, 12, 31),  # noqa: DTZ001
            timezones=st.just(dt.UTC),
        )
    )
    day = st.dates(dt.date(2026, 1, 1), dt.date(2031, 12, 31))
    version = version_of(
        number=draw(st.integers(min_value=1, max_value=10**9)),
        version=draw(st.integers(min_value=1, max_value=2000)),
        created=created,
        schedule={
            "course": draw(_TEXT),
            "provider": draw(_TEXT),
            "setting": draw(st.sampled_from(["on-site", "off-site", "online", "elsewhere"])),
            "start_date": start.isoformat(),
            "end_date": (start + dt.timedelta(days=draw(st.integers(0, 400)))).isoformat(),
            "hours": draw(_TEXT),
        },
        lines=lines,
        shares=shares,
        totals=(draw(_CENTS), draw(_CENTS), draw(_CENTS), draw(_CENTS)),
        due=(draw(day), draw(day), draw(day)),
        accept_by=created + dt.timedelta(days=draw(st.integers(0, 90))),
        policy=draw(_TEXT),
        policy_version=draw(_TEXT),
    )
    return version, links


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_versions(), language=st.sampled_from(["en", "fr"]))
def test_any_version_is_written_as_the_template_writes_it(
    case: tuple[AgreementVersion, list[ApplicationEmployer]], language: str
) -> None:
    version, links = case
    assert render_document(version, language, links) == reference_document(version, language, links)


def test_the_versions_approvals_store_are_the_templates_text_and_hash(demo: None) -> None:
    from tests.service.grants.agreement_helpers import approved

    made = [
        approved(),
        approved(language="fr"),
        approved(
            employers=[
                {"id": "acme", "business_number": _lead_bn()},
                {"id": "lake", "business_number": _partner_bn()},
            ],
            trainees=[
                _trainee("acme", "existing-employee", "9000.00", materials="350.25"),
                _trainee("lake", "new-hire", "6000.00", exam_fees="120.00"),
                _trainee("acme", "unemployed", "1000.01"),
            ],
        ),
    ]
    for agreement in made:
        version = AgreementVersion.objects.select_related("agreement__application").get(
            agreement=agreement, number=1
        )
        assert not version.content_sha256  # rendered on first read, not in the approval
        version = rendered(version, "demo-employer")
        links = employers_of(version)
        assert version.content_en == reference_document(version, "en", links)
        assert version.content_fr == reference_document(version, "fr", links)
        assert version.content_sha256 == content_hash(version.content_en, version.content_fr)


def _lead_bn() -> str:
    from tests.personas import APPLICANT

    return APPLICANT.business_number


def _partner_bn() -> str:
    from tests.personas import PARTNER

    return PARTNER.business_number


def _trainee(employer: str, status: str, tuition: str, **costs: str) -> dict[str, Any]:
    return {
        "employer_id": employer,
        "status": status,
        "costs": {
            "tuition": tuition,
            "student_fees": "0.00",
            "materials": "0.00",
            "exam_fees": "0.00",
            **costs,
        },
    }


def write_golden_files() -> None:
    """Write agreement_documents/ from the reference template (by hand, never in a test:
    `DJANGO_SETTINGS_MODULE=jobgrant.service.test_settings python -c "import django;
    django.setup(); from tests.service.grants import test_agreement_document_text as t;
    t.write_golden_files()"`)."""
    GOLDEN.mkdir(exist_ok=True)
    for name, (version, links) in cases().items():
        for language in ("en", "fr"):
            text = reference_document(version, language, links)
            (GOLDEN / f"{name}.{language}.html").write_text(text)
    sys.stdout.write(json.dumps(sorted(p.name for p in GOLDEN.iterdir())) + "\n")
