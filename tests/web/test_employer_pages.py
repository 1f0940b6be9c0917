"""The employer's other pages: dashboard, the live quote, an application's detail, withdrawal,
a consortium partner's view, both languages, and bad input that writes nothing."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.addresses import page_path
from tests.conftest import DECLARATIONS_STEP, TRAINING_STEP, applications, changes_audited
from tests.personas import APPLICANT, EMPLOYER, PARTNER, PARTNER_EMPLOYER

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.demo_support import business_number
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import (
    Application,
    ApplicationEmployer,
    FormDraft,
    Program,
    StateChange,
)
from jobgrant.service.registry.models import Employer
from jobgrant.service.web.views.employer_apply import DRAFT_KEY

pytestmark = pytest.mark.django_db


def signed_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


@pytest.fixture
def employer(demo: None) -> Client:
    return signed_in(EMPLOYER.username)


@pytest.fixture
def partner_employer(demo: None) -> Client:
    """Someone who acts for the partner only, in the applicant's consortium."""
    return signed_in(PARTNER_EMPLOYER.username)


def valid_draft() -> dict[str, Any]:
    bn = APPLICANT.get().business_number
    return {
        "organizations": {
            "lead": str(APPLICANT.get().pk),
            "partners": [PARTNER.get().business_number],
        },
        "training": dict(TRAINING_STEP),
        "trainees": [
            {
                "employer": bn,
                "status": "existing-employee",
                "tuition": "15000",
                "student_fees": "",
                "materials": "",
                "exam_fees": "",
                "wages_in_kind": "",
            }
        ],
        "declarations": dict(DECLARATIONS_STEP),
    }


def with_draft(client: Client, draft: dict[str, Any] | None = None) -> Client:
    """A draft saved step by step, open in the client's session."""
    user = EMPLOYER.get()
    saved = None
    for step, typed in (draft or valid_draft()).items():
        saved = actions.save_form_draft(user, saved, step, typed)
    assert saved is not None
    session = client.session
    session[DRAFT_KEY] = saved.pk
    session.save()
    return client


def consortium_body(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """The applicant leads with $15,000 of training; its partner with $6,000."""
    body = make_body()
    partner = PARTNER.get().business_number
    body["employers"].append({"id": "lakeshore", "business_number": partner})
    body["trainees"].append(
        {
            "employer_id": "lakeshore",
            "status": "new-hire",
            "costs": {
                "tuition": "6000.00",
                "student_fees": "0.00",
                "materials": "0.00",
                "exam_fees": "0.00",
            },
        }
    )
    return body


@pytest.fixture
def submitted(make_body: Callable[..., dict[str, Any]]) -> Application:
    user = EMPLOYER.get()
    application = actions.create_application(user, consortium_body(make_body))
    return actions.submit_application(user, application)


def rows_written() -> tuple[int, int, int, int]:
    return (
        applications().count(),
        ApplicationEmployer.objects.count(),
        StateChange.objects.count(),
        changes_audited(),
    )


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def row(page: str, row_id: str) -> str:
    start = page.index(f'id="{row_id}"')
    return page[start : page.index("</tr>", start)]


def amounts(page: str, row_id: str) -> list[str]:
    """The figures of a quote row: eligible costs, federal, provincial, employer."""
    return re.findall(r'<td class="jg-num">([^<]*)</td>', row(page, row_id))


def money(dollars: int, lang: str) -> str:
    grouped = f"{dollars:,}"
    return f"${grouped}.00" if lang == "en" else grouped.replace(",", "\u00a0") + ",00\u00a0$"


# --- Home and dashboard -----------------------------------------------------------------------


def test_home_sends_an_employer_to_the_dashboard(employer: Client) -> None:
    response = employer.get("/fr/accueil/")
    assert response.status_code == 302
    assert response["Location"] == "/fr/employeur/"


def test_the_dashboard_lists_applications_made_and_those_as_partner(
    employer: Client, partner_employer: Client, submitted: Application
) -> None:
    page = text(employer.get("/en/employer/"))
    made = row(page, f"application-{submitted.pk}")
    assert "Application" in made
    table = page[page.index('id="applications"') :]
    assert "<caption" in table[:200]
    first = table[table.index("<tbody>") : table.index("</tr>", table.index("<tbody>"))]
    assert APPLICANT.name in first and "and 1 partner" in first
    assert "Submitted" in first and "Ontario" in first and "January 11, 2027" in first
    assert first.count("$7,000.00") == 3  # the application's totals
    assert 'id="no-partner-applications"' in page
    partner_page = text(partner_employer.get("/fr/employeur/"))
    table = partner_page[partner_page.index('id="partner-applications"') :]
    first = table[table.index("<tbody>") : table.index("</tr>", table.index("<tbody>"))]
    two = money(2000, "fr")
    assert re.findall(r'<td class="jg-num">([^<]*)</td>', first) == [two] * 3  # its own share
    assert "7\u00a0000,00" not in first
    assert "Soumis" in first and "11 janvier 2027" in first
    assert 'id="no-applications"' in partner_page


#: The dashboard's row as its template wrote it before the row was written in Python (ADR 0055).
TEMPLATE_ROW = (Path(__file__).parent / "dashboard_row_before.html").read_text().rstrip("\n")


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_dashboard_rows_are_the_html_their_template_wrote(
    language: str, partner_employer: Client, submitted: Application, monkeypatch: Any
) -> None:
    """The rows are written in Python (ADR 0055): the same bytes as the template's, for a
    lead's row with a partner and a partner's own share, in both languages."""
    from django.template import engines
    from django.utils import translation

    from jobgrant.service.web import dashboard_rows
    from jobgrant.service.web.views import employer as view

    written = dashboard_rows.row_html
    rows: list[dict[str, Any]] = []

    def recorded(row: dict[str, Any]) -> Any:
        rows.append(row)
        return written(row)

    monkeypatch.setattr(view, "row_html", recorded)
    dashboard = "employer/" if language == "en" else "employeur/"
    for client in (signed_in(EMPLOYER.username), partner_employer):
        assert client.get(f"/{language}/{dashboard}").status_code == 200
    assert len(rows) == 2 and rows[0]["partners"] == 1
    with translation.override(language):
        expected = engines["django"].from_string(TEMPLATE_ROW).render({"rows": rows})
        assert "".join(written(row) for row in rows) == expected


def test_the_dashboard_offers_to_continue_a_draft(employer: Client) -> None:
    assert 'id="drafts"' not in employer.get("/en/employer/").content.decode()
    with_draft(employer)
    draft = FormDraft.objects.get()
    page = employer.get("/en/employer/").content.decode()
    assert f'id="resume-draft-{draft.pk}"' in page and f'id="delete-draft-{draft.pk}"' in page
    assert employer.get("/en/employer/apply/")["Location"] == "/en/employer/apply/review/"


# --- Both languages ---------------------------------------------------------------------------


PAGES = [
    "/employer/",
    "/employer/apply/organizations/",
    "/employer/apply/training/",
    "/employer/apply/trainees/",
    "/employer/apply/declarations/",
    "/employer/apply/review/",
    "/employer/applications/{id}/",
    "/employer/applications/{id}/withdraw/",
]


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("page", PAGES)
def test_each_page_is_in_its_language_and_toggles_to_the_same_page(
    employer: Client, submitted: Application, page: str, lang: str
) -> None:
    with_draft(employer)
    url = page_path(lang, page.format(id=submitted.pk))
    response = employer.get(url)
    assert response.status_code == 200, url
    body = response.content.decode()
    assert f'<html lang="{lang}">' in body
    other = {"en": "fr", "fr": "en"}[lang]
    toggle = re.search(r'lang-href="([^"]+)"', body)
    assert toggle is not None
    assert toggle[1] == page_path(other, page.format(id=submitted.pk))
    assert employer.get(toggle[1]).status_code == 200
    if lang == "fr":
        main = html.unescape(body.split("<main", 1)[1])
        for english in ("Trainee", "Employer's share", "Submit the application", "Continue"):
            assert not re.search(rf"\b{english}\b", main), english


# --- The live quote ---------------------------------------------------------------------------


def quote_form(*tuitions: str, employers: tuple[str, ...] = ()) -> dict[str, str]:
    form = {"trainee-TOTAL_FORMS": str(len(tuitions))}
    for i, tuition in enumerate(tuitions):
        form |= {
            f"trainee-{i}-employer": employers[i] if employers else APPLICANT.get().business_number,
            f"trainee-{i}-status": "existing-employee",
            f"trainee-{i}-tuition": tuition,
        }
    return form


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_live_quote_splits_the_grant_per_trainee_employer_and_total(
    employer: Client, lang: str
) -> None:
    with_draft(employer)
    session = Session.objects.get(session_key=employer.session.session_key)
    before = rows_written()
    response = employer.post(
        page_path(lang, "/employer/apply/quote/"),
        quote_form(
            "15000",
            "6000",
            employers=(APPLICANT.get().business_number, PARTNER.get().business_number),
        ),
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    page = text(response)
    assert "<html" not in page  # a fragment
    # cjg-2013 in Ontario: a third each. $15,000 -> $5,000 x 3; $6,000 -> $2,000 x 3.
    five, two = money(5000, lang), money(2000, lang)
    assert amounts(page, "quote-trainee-1") == [money(15000, lang), five, five, five]
    assert amounts(page, "quote-trainee-2") == [money(6000, lang), two, two, two]
    assert amounts(page, f"quote-employer-{APPLICANT.get().business_number}")[1:] == [five] * 3
    assert amounts(page, f"quote-employer-{PARTNER.get().business_number}")[1:] == [two] * 3
    seven = money(7000, lang)
    assert amounts(page, "quote-total") == [money(21000, lang), seven, seven, seven]
    assert 'id="quote-status" hx-swap-oob="innerHTML"' in page
    assert rows_written() == before
    assert Session.objects.get(session_key=session.session_key).session_data == (
        session.session_data
    )  # not even the session changes


def test_the_live_quote_places_reasons_next_to_their_fields(employer: Client) -> None:
    draft = valid_draft()
    draft["training"]["third_party"] = "no"  # in house
    with_draft(employer, draft)
    page = text(employer.post("/en/employer/apply/quote/", quote_form("15000", "0")))
    slot = page[page.index('id="reason-third_party"') :]
    assert slot.startswith('id="reason-third_party" class="jg-reasons" hx-swap-oob="innerHTML">')
    assert "in-house training is not eligible" in slot[:300]
    trainee = page[page.index('id="reason-trainee-1"') :]
    assert "Trainee 2 has no eligible training costs." in trainee[:300]
    assert page[page.index('id="reason-trainee-0"') :].index("</div>") < 80  # nothing to say
    # said once, in the status line beside the grant's figures (the live region), not twice
    assert page.count("Not eligible as entered.") == 1
    status = page[page.index('id="quote-status"') :]
    assert status.index("Not eligible as entered.") < status.index("</p>")


def test_an_employer_over_its_cap_is_flagged_on_its_row(employer: Client) -> None:
    """Alberta under the 2014 agreements: at most $300,000 per employer per fiscal year;
    31 trainees at $15,000 get $10,000 each, $310,000 in all: the reason goes on that row."""
    alberta = Employer.objects.create(
        business_number=business_number("50000000"),
        name="Prairie Fabrication",
        employees=300,
        jurisdiction="AB",
    )
    EMPLOYER.get().employers.add(alberta)
    Program.objects.filter(jurisdiction="AB").update(policy="cjg-2014")
    draft = valid_draft()
    draft["organizations"] = {"lead": str(alberta.pk), "partners": []}
    with_draft(employer, draft)
    bn = alberta.business_number
    page = text(
        employer.post(
            "/en/employer/apply/quote/", quote_form(*["15000"] * 31, employers=(bn,) * 31)
        )
    )
    employer_row = row(page, f"quote-employer-{bn}")
    assert "Not eligible:" in employer_row
    assert "above the limit of $300,000.00" in employer_row
    assert "$310,000.00" in employer_row
    assert row(page, "quote-trainee-1").count("Not eligible") == 0


def test_the_live_quote_names_the_amounts_to_correct(employer: Client) -> None:
    with_draft(employer)
    page = text(employer.post("/fr/employeur/demander/estimation/", quote_form("douze")))
    assert "La subvention sera calculée une fois ces erreurs corrigées" in page
    assert 'href="#trainee-0-tuition"' in page
    assert "Droits de scolarité ou honoraires du formateur, personne en formation 1" in page


def test_the_live_quote_asks_for_the_earlier_steps_first(employer: Client) -> None:
    page = text(employer.post("/en/employer/apply/quote/", quote_form("15000")))
    assert "Complete the previous steps to see the grant." in page


# --- Detail -----------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_detail_shows_the_quote_and_the_history(
    employer: Client, submitted: Application, lang: str
) -> None:
    page = text(employer.get(page_path(lang, f"/employer/applications/{submitted.pk}/")))
    five = money(5000, lang)
    assert amounts(page, "quote-trainee-1") == [money(15000, lang), five, five, five]
    assert 'id="quote-total"' in page
    history = page[page.index('id="history"') :]
    assert "<caption" in history[:100]
    assert ("29 novembre 2026" if lang == "fr" else "November 29, 2026") in history
    assert ("Brouillon" if lang == "fr" else "Draft") in history
    assert 'id="withdraw-application"' in page


def test_a_partner_sees_the_application_and_its_own_share_only(
    partner_employer: Client, submitted: Application
) -> None:
    page = text(partner_employer.get(f"/en/employer/applications/{submitted.pk}/"))
    assert "Your organization's share" in page
    mine = row(page, f"quote-employer-{'lakeshore'}")
    assert PARTNER.name in mine and mine.count("$2,000.00") == 3
    assert 'id="quote-employer-acme"' not in page
    assert 'id="quote-total"' not in page
    assert 'id="quote-trainee-1"' not in page and 'id="quote-trainee-2"' in page
    assert 'id="partner-note"' in page
    assert 'id="withdraw-application"' not in page


def test_an_employer_cannot_read_another_employers_application(
    demo: None, submitted: Application
) -> None:
    outsider_employer = Employer.objects.create(
        business_number=business_number("40000000"),
        name="Elsewhere Inc.",
        employees=5,
        jurisdiction="ON",
    )
    outsider = User.objects.create_user(username="outsider", role=Role.EMPLOYER)
    outsider.employers.set([outsider_employer])
    client = signed_in("outsider")
    assert client.get(f"/en/employer/applications/{submitted.pk}/").status_code == 404
    assert client.post(f"/en/employer/applications/{submitted.pk}/withdraw/").status_code == 404
    assert Application.objects.get(pk=submitted.pk).state == "submitted"


# --- Withdraw ---------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_withdrawing_asks_first_then_withdraws(
    employer: Client, submitted: Application, lang: str
) -> None:
    url = page_path(lang, f"/employer/applications/{submitted.pk}/withdraw/")
    confirm = employer.get(url)
    assert confirm.status_code == 200
    assert 'id="withdraw-form"' in confirm.content.decode()
    assert Application.objects.get(pk=submitted.pk).state == "submitted"  # a GET changes nothing
    response = employer.post(url, {"note": "Course cancelled by the college."})
    assert response.status_code == 302
    application = Application.objects.get(pk=submitted.pk)
    assert application.state == "withdrawn"
    assert application.history.last().note == "Course cancelled by the college."  # type: ignore[union-attr]
    page = text(employer.get(response["Location"]))
    assert ("La demande" if lang == "fr" else "Application") in page
    assert ("Retirée" if lang == "fr" else "Withdrawn") in page
    assert 'id="withdraw-application"' not in page
    again = employer.post(url)
    assert again.status_code == 422
    assert 'href="#withdraw"' in again.content.decode()


def test_a_partner_cannot_withdraw_and_the_refusal_is_audited(
    partner_employer: Client, submitted: Application
) -> None:
    url = f"/en/employer/applications/{submitted.pk}/withdraw/"
    assert partner_employer.get(url).status_code == 302
    response = partner_employer.post(url)
    assert response.status_code == 422
    assert "Only the applicant organization can do this." in text(response)
    assert Application.objects.get(pk=submitted.pk).state == "submitted"
    assert AuditEntry.objects.filter(action="refused.withdraw_application").count() == 1


def test_a_withdrawal_note_is_checked(employer: Client, submitted: Application) -> None:
    url = f"/en/employer/applications/{submitted.pk}/withdraw/"
    before = rows_written()
    for note in ("x" * 1001, "bad\x00note"):
        response = employer.post(url, {"note": note})
        assert response.status_code == 422
        assert 'href="#note"' in response.content.decode()
    assert rows_written() == before


def test_a_draft_saved_through_the_api_can_be_submitted_here(
    employer: Client, make_body: Callable[..., dict[str, Any]]
) -> None:
    user = EMPLOYER.get()
    draft = actions.create_application(user, make_body())
    page = employer.get(f"/en/employer/applications/{draft.pk}/").content.decode()
    assert 'id="submit-application"' in page
    response = employer.post(f"/en/employer/applications/{draft.pk}/submit/")
    assert response.status_code == 302
    assert Application.objects.get(pk=draft.pk).state == "submitted"


# --- Bad input writes nothing (T7, in small) --------------------------------------------------

FIELDS = [
    "lead",
    "partner-TOTAL_FORMS",
    "partner-0",
    "partner-1",
    "remove-partner",
    "action",
    "course",
    "setting",
    "start_date",
    "end_date",
    "hours",
    "provider_name",
    "third_party",
    "trainee-TOTAL_FORMS",
    "trainee-0-employer",
    "trainee-0-status",
    "trainee-0-tuition",
    "trainee-0-wages_in_kind",
    "trainee-1-materials",
    "trainee-7-exam_fees",
    "remove-trainee",
    "note",
]
VALUES = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "",
            "0",
            "-1",
            "1e9",
            "99999999999999999999",
            "²",
            "١٢٣",
            "1,234.5",
            "2027-02-30",
            "9999-12-31",
            "off-site",
            "yes",
            "next",
            "calculate",
            "add-trainee",
            "add-partner",
            "back",
            "x" * 5000,
            "a\x00b",
        ]
    ),
)
BODIES = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=12), VALUES, max_size=12)
STEPS = ["organizations", "training", "trainees", "quote"]


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(step=st.sampled_from(STEPS), body=BODIES, lang=st.sampled_from(["en", "fr"]))
def test_generated_bodies_never_fail_and_write_nothing(
    employer: Client, step: str, body: dict[str, str], lang: str
) -> None:
    with_draft(employer)
    before = rows_written()
    response = employer.post(page_path(lang, f"/employer/apply/{step}/"), body)
    assert response.status_code in (200, 302, 422), response.status_code
    if response.status_code == 422:
        assert "<gcds-error-summary" in response.content.decode()
    assert rows_written() == before


def test_employer_pages_are_not_kept_by_browsers(employer: Client) -> None:
    assert "no-store" in employer.get("/en/employer/")["Cache-Control"]
