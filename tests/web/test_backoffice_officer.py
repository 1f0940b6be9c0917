"""The officer's pages: the queue and its filters, the review with each figure's explanation,
and decisions through the pages (recommend, approve, deny) with every refusal explained and
nothing written when refused."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.db.models import F
from django.test import Client
from tests.addresses import page_path
from tests.personas import (
    APPLICANT,
    EMPLOYER,
    FEDERAL_OFFICER,
    FINANCE,
    OFFICER,
    PARTNER,
    SECOND_OFFICER,
)

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Application, StateChange
from jobgrant.service.ledger.models import BudgetAccount, Posting

pytestmark = pytest.mark.django_db
NBSP = "\u00a0"
Body = Callable[..., dict[str, Any]]


def signed_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


def text(response: Any) -> str:
    """The page as text, with the non-breaking and narrow spaces of French written as spaces."""
    return html.unescape(response.content.decode()).replace(NBSP, " ").replace("\u202f", " ")


def submitted(make_body: Body, **changes: Any) -> Application:
    employer = EMPLOYER.get()
    application = actions.create_application(employer, make_body(**changes))
    return actions.submit_application(employer, application)


def recommended(make_body: Body, by: str = OFFICER.username, **changes: Any) -> Application:
    application = submitted(make_body, **changes)
    return actions.recommend_application(User.objects.get(username=by), application)


def budget(funder: str) -> BudgetAccount:
    return BudgetAccount.objects.get(
        funder=funder, jurisdiction="ON", fiscal_year="2026-27", stream="CJG"
    )


def written() -> tuple[int, int, int, int, int]:
    """What a decision writes: history, audit entries, postings, committed money."""
    return (
        StateChange.objects.count(),
        AuditEntry.objects.exclude(action__startswith="refused.")
        .exclude(action__startswith="auth.")  # signing in is recorded (ADR 0027)
        .count(),
        Posting.objects.count(),
        budget("federal").committed_cents,
        budget("provincial").committed_cents,
    )


def decide(client: Client, application: Application, language: str, **form: str) -> Any:
    """A decision as confirmed (approve and deny act only with `confirm`)."""
    return ask(client, application, language, confirm="yes", **form)


def ask(client: Client, application: Application, language: str, **form: str) -> Any:
    """The decision form's POST as sent from the review page, unconfirmed."""
    return client.post(
        page_path(language, f"/officer/applications/{application.pk}/decision/"), form
    )


# --- The queue ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "heading", "matches"),
    [
        # the test's file and the demonstration's ranked intake's eight undecided ones
        ("en", "Applications to review", "9 applications match."),
        ("fr", "Demandes à examiner", "9 demandes correspondent."),
    ],
)
def test_the_queue_lists_what_awaits_a_decision_in_both_languages(
    make_body: Body, language: str, heading: str, matches: str
) -> None:
    application = submitted(make_body)
    response = signed_in(OFFICER.username).get(page_path(language, "/officer/"))
    assert response.status_code == 200
    page = text(response)
    assert f'<html lang="{language}">' in page
    assert heading in page
    assert matches in page
    assert f'id="open-{application.pk}"' in page
    assert APPLICANT.name in page
    assert ("$10,000.00" if language == "en" else "10 000,00 $") in page
    assert "<caption" in page and 'aria-sort="ascending"' in page
    assert response["Cache-Control"].count("no-store") == 1


def test_the_queue_hides_drafts_other_jurisdictions_and_conflicts_of_interest(
    make_body: Body,
) -> None:
    employer = EMPLOYER.get()
    draft = actions.create_application(employer, make_body())
    mine = submitted(make_body)
    page = text(signed_in(OFFICER.username).get("/en/officer/?state=all"))
    assert f'id="open-{mine.pk}"' in page
    assert f'id="open-{draft.pk}"' not in page
    # the federal officer handles federal-direct files only: Ontario's are not theirs
    assert f'id="open-{mine.pk}"' not in text(
        signed_in(FEDERAL_OFFICER.username).get("/en/officer/?state=all")
    )
    officer = SECOND_OFFICER.get()
    officer.employers.add(APPLICANT.get())
    assert f'id="open-{mine.pk}"' not in text(
        signed_in(SECOND_OFFICER.username).get("/en/officer/")
    )


def test_the_queue_filters_by_state_jurisdiction_stream_and_age_with_counts(
    make_body: Body,
) -> None:
    from jobgrant.service.demo_ranking import demo_files

    first = submitted(make_body)
    second = recommended(make_body)
    officer = signed_in(OFFICER.username)
    # the demonstration's ranked intake's files, eight submitted, one denied, are left out
    demo = set(demo_files().values_list("pk", flat=True))

    def shown(query: str) -> set[int]:
        page = text(officer.get(f"/en/officer/?{query}"))
        return {int(n) for n in re.findall(r'id="open-(\d+)"', page)} - demo

    assert shown("") == {first.pk, second.pk}
    assert shown("state=submitted") == {first.pk}
    assert shown("state=recommended") == {second.pk}
    assert shown("state=approved") == set()
    assert shown("jurisdiction=ON&stream=Canada+Job+Grant") == {first.pk, second.pk}
    assert shown("jurisdiction=ON&stream=Canada-Ontario+Job+Grant%2C+ranked+selection") == set()
    assert shown("age=7") == set()  # received today
    Application.objects.filter(pk=first.pk).update(received_on="2026-10-01")
    assert shown("age=30") == {first.pk}
    page = text(officer.get("/en/officer/?state=all"))
    assert re.search(r"Submitted: <strong>9</strong>", page)
    assert re.search(r"Recommended: <strong>1</strong>", page)
    assert re.search(r"Awaiting a decision: <strong>10</strong>", page)


def test_the_queue_sorts_by_the_column_chosen_and_links_the_other_way(make_body: Body) -> None:
    first, second = submitted(make_body), submitted(make_body)
    officer = signed_in(OFFICER.username)
    descending = text(officer.get("/en/officer/?sort=-id"))
    assert descending.index(f'id="open-{second.pk}"') < descending.index(f'id="open-{first.pk}"')
    assert 'aria-sort="descending"' in descending
    assert 'href="?sort=id" id="sort-id"' in descending
    ascending = text(officer.get("/en/officer/?sort=id&state=submitted"))
    assert ascending.index(f'id="open-{first.pk}"') < ascending.index(f'id="open-{second.pk}"')
    link = re.search(r'href="\?([^"]*)" id="sort-id"', ascending)
    assert link is not None
    assert sorted(link.group(1).split("&")) == ["sort=-id", "state=submitted"]


def test_the_queue_filter_is_enhanced_by_htmx_and_bad_filters_are_explained(
    make_body: Body,
) -> None:
    submitted(make_body)
    officer = signed_in(OFFICER.username)
    page = text(officer.get("/en/officer/"))
    assert 'hx-get="/en/officer/"' in page and 'hx-select="#queue-results"' in page
    assert '<form method="get" id="queue-filter"' in page  # works without JavaScript too
    refused = text(officer.get("/fr/agent/?state=nonsense&age=5"))
    assert "gcds-error-summary" in refused
    assert 'href="#id_state"' in refused and 'href="#id_age"' in refused


def shown_by(client: Client, query: str) -> list[int]:
    """The applications the queue lists for `query`, in their order."""
    page = text(client.get(f"/en/officer/?{query}"))
    return [int(n) for n in re.findall(r'id="open-(\d+)"', page)]


def consortium(make_body: Body) -> Application:
    partner = PARTNER.get()
    body = make_body()
    body["employers"].append({"id": "lakeshore", "business_number": partner.business_number})
    body["trainees"].append({**body["trainees"][0], "employer_id": "lakeshore"})
    return submitted(lambda: body)


@pytest.mark.parametrize(
    ("language", "eligible", "not_eligible"),
    [("en", "Eligible", "Not eligible"), ("fr", "Admissible", "Non admissible")],
)
def test_the_queue_says_which_applications_are_eligible(
    make_body: Body, language: str, eligible: str, not_eligible: str
) -> None:
    good = submitted(make_body)
    body = make_body()
    body["training"]["provider"]["third_party"] = False
    bad = submitted(lambda: body)
    page = text(signed_in(OFFICER.username).get(page_path(language, "/officer/")))
    assert re.search(rf'id="eligibility-{good.pk}">{eligible}<', page)
    assert re.search(rf'id="eligibility-{bad.pk}"><strong>{not_eligible}</strong>', page)


def test_the_queue_is_searched_by_number_employer_name_or_business_number(
    make_body: Body,
) -> None:
    alone, shared = submitted(make_body), consortium(make_body)
    officer = signed_in(OFFICER.username)
    assert shown_by(officer, f"search={shared.pk}") == [shared.pk]
    assert shown_by(officer, "search=harbourfront") == [shared.pk]  # a partner's name, any case
    assert shown_by(officer, "search=birchwood+tool") == [alone.pk, shared.pk]
    number = PARTNER.get().business_number
    spaced = f"{number[:3]} {number[3:6]} {number[6:]}"
    assert shown_by(officer, "search=" + spaced.replace(" ", "+")) == [shared.pk]
    page = text(officer.get("/fr/agent/?search=personne"))
    assert 'id="queue-empty">Aucune demande ne correspond à ces choix.<' in page
    assert "0 demande correspond." in page


def test_the_queue_says_when_no_application_matches(make_body: Body) -> None:
    submitted(make_body)
    page = text(signed_in(OFFICER.username).get("/en/officer/?search=nobody+at+all"))
    assert 'id="queue-empty">No applications match these choices.<' in page


def test_the_queue_shows_a_consortium_with_its_partners(make_body: Body) -> None:
    shared = consortium(make_body)
    page = text(signed_in(OFFICER.username).get("/en/officer/"))
    row = page[page.index(f'id="open-{shared.pk}"') :]
    row = row[: row.index("</tr>")]
    assert APPLICANT.name in row
    assert f"With: {PARTNER.name}" in row


def test_the_queue_sorts_by_days_waiting_both_ways(make_body: Body) -> None:
    from jobgrant.service.demo_ranking import demo_files

    older, newer = submitted(make_body), submitted(make_body)
    Application.objects.filter(pk=older.pk).update(received_on="2026-10-01")
    officer = signed_in(OFFICER.username)
    demo = set(demo_files().values_list("pk", flat=True))  # the seed's ranked files: left out

    def ours(query: str) -> list[int]:
        return [pk for pk in shown_by(officer, query) if pk not in demo]

    assert ours("sort=-waiting") == [older.pk, newer.pk]  # longest wait first
    assert ours("sort=waiting") == [newer.pk, older.pk]
    page = text(officer.get("/en/officer/?sort=-waiting"))
    sorted_by = r'<th scope="col" aria-sort="(\w+)"[^>]*><a href="([^"]*)" id="sort-waiting"'
    heading = re.search(sorted_by, page)
    assert heading is not None and heading.groups() == ("descending", "?sort=waiting")
    assert f'id="open-{older.pk}"' in page and "59<" in page  # days since October 1


# --- The review --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "amount", "effective", "formula"),
    [
        ("en", "$5,000.00", "March 21, 2013", "Eligible cost × federal rate, rounded down"),
        ("fr", "5 000,00 $", "21 mars 2013", "Coût admissible × taux fédéral, arrondi"),
    ],
)
def test_the_review_shows_each_figure_with_its_formula_rules_dates_and_sources(
    make_body: Body, language: str, amount: str, effective: str, formula: str
) -> None:
    application = submitted(make_body)
    response = signed_in(OFFICER.username).get(
        page_path(language, f"/officer/applications/{application.pk}/")
    )
    assert response.status_code == 200
    page = text(response)
    assert f'<html lang="{language}">' in page
    assert f'id="amount-trainee-0-federal">{amount}<' in page
    assert f'id="amount-total-government">{amount.replace("5", "10", 1)}<' in page
    assert '<details class="jg-details" id="explain-trainee-0-federal">' in page
    assert formula in page
    assert "<code>cjg.federal.rate</code>" in page
    assert effective in page
    assert 'href="https://northbridgeconsultants.com/' in page
    assert 'id="recommend-button"' in page and 'id="deny-button"' in page
    assert 'id="approve-button"' not in page  # only a recommended application is approved


@pytest.mark.parametrize(
    ("language", "facts"),
    [
        (
            "en",
            (
                "Mohawk College",
                "Third-party trainer",
                "Off site, in a classroom",
                "January 11, 2027 to March 26, 2027",
                "120",
                "Existing employee",
            ),
        ),
        ("fr", ("Mohawk College", "Formateur tiers", "Oui", "11 janvier 2027", "120")),
    ],
)
def test_the_review_shows_what_is_being_funded(
    make_body: Body, language: str, facts: tuple[str, ...]
) -> None:
    application = submitted(make_body)
    page = text(
        signed_in(OFFICER.username).get(
            page_path(language, f"/officer/applications/{application.pk}/")
        )
    )
    funded = page[page.index('id="funded"') : page.index('id="calculation"')]
    for fact in facts:
        assert fact in funded
    assert 'id="training-third-party">' + ("Yes" if language == "en" else "Oui") in funded
    assert 'id="trainee-1-status">' in funded


def test_the_review_of_an_in_house_training_says_so(make_body: Body) -> None:
    body = make_body()
    body["training"]["provider"]["third_party"] = False
    body["trainees"][0]["status"] = "new-hire"
    application = submitted(lambda: body)
    page = text(signed_in(OFFICER.username).get(f"/en/officer/applications/{application.pk}/"))
    assert 'id="training-third-party">No: the training is given in house<' in page
    assert 'id="trainee-1-status">New hire<' in page


@pytest.mark.parametrize(
    ("language", "label"), [("en", "Course or program"), ("fr", "Cours ou programme")]
)
def test_the_review_names_the_course_being_funded(
    make_body: Body, language: str, label: str
) -> None:
    body = make_body()
    body["training"]["course"] = "CNC machining certificate"
    application = submitted(lambda: body)
    page = text(
        signed_in(OFFICER.username).get(
            page_path(language, f"/officer/applications/{application.pk}/")
        )
    )
    funded = page[page.index('id="funded"') : page.index('id="calculation"')]
    assert f'<dt>{label}</dt><dd id="training-course">CNC machining certificate</dd>' in funded


@pytest.mark.parametrize(("language", "not_given"), [("en", "Not given"), ("fr", "Non indiqué")])
def test_an_application_made_before_the_course_was_asked_says_it_is_not_given(
    make_body: Body, language: str, not_given: str
) -> None:
    application = submitted(make_body)
    assert "course" not in application.request["training"]
    officer = signed_in(OFFICER.username)
    page = text(officer.get(page_path(language, f"/officer/applications/{application.pk}/")))
    assert f'id="training-course">{not_given}</dd>' in page
    applicant = signed_in(EMPLOYER.username)
    page = text(applicant.get(page_path(language, f"/employer/applications/{application.pk}/")))
    assert f'id="training-course">{not_given}</dd>' in page


def test_the_review_gives_the_reasons_an_application_is_not_eligible(make_body: Body) -> None:
    body = make_body()
    body["training"]["provider"]["third_party"] = False
    application = submitted(lambda: body)
    officer = signed_in(OFFICER.username)
    english = text(officer.get(f"/en/officer/applications/{application.pk}/"))
    assert "Not eligible, for these reasons:" in english
    assert "The training must be given by a third-party trainer" in english
    assert 'id="ineligible-hint"' in english
    french = text(officer.get(f"/fr/agent/demandes/{application.pk}/"))
    assert "La formation doit être donnée par un formateur tiers" in french
    assert "elle sera refusée si vous la recommandez" in french
    eligible = submitted(make_body)
    assert 'id="ineligible-hint"' not in text(
        officer.get(f"/en/officer/applications/{eligible.pk}/")
    )


def test_an_application_outside_the_officers_files_is_not_found(make_body: Body) -> None:
    application = submitted(make_body)
    federal = signed_in(FEDERAL_OFFICER.username)
    assert federal.get(f"/en/officer/applications/{application.pk}/").status_code == 404
    response = decide(federal, application, "en", action="recommend")
    assert response.status_code == 404
    assert Application.objects.get(pk=application.pk).state == "submitted"


# --- Decisions ---------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "fr"])
def test_officer_a_recommends_officer_b_approves_and_the_budget_page_shows_the_commitment(
    make_body: Body, language: str
) -> None:
    application = submitted(make_body)
    a, b = signed_in(OFFICER.username), signed_in(SECOND_OFFICER.username)
    federal_before = budget("federal").committed_cents
    provincial_before = budget("provincial").committed_cents  # the demonstration's approved file

    response = decide(a, application, language, action="recommend", note="Meets the rules.")
    review = page_path(language, f"/officer/applications/{application.pk}/")
    assert response.status_code == 302 and response["Location"] == review
    page = text(a.get(review))
    assert 'id="notice"' in page
    assert (
        f"You recommended application {application.pk}"
        if language == "en"
        else f"Vous avez recommandé la demande {application.pk}"
    ) in page
    assert "Meets the rules." in page
    assert 'id="sod-hint"' in page  # officer A is told another officer must approve

    response = decide(b, application, language, action="approve")
    assert response.status_code == 302 and response["Location"] == review
    approved = Application.objects.get(pk=application.pk)
    assert approved.state == "approved"
    assert approved.recommended_by.username == OFFICER.username
    assert approved.decided_by.username == SECOND_OFFICER.username
    assert budget("federal").committed_cents == federal_before + 500_000
    assert budget("provincial").committed_cents == provincial_before + 500_000
    assert 'id="no-decision"' in text(b.get(review))

    finance = text(
        signed_in(FINANCE.username).get(page_path(language, "/finance/budgets/?jurisdiction=ON"))
    )
    row = finance[finance.index('id="budget-2026-27-ON-provincial-CJG"') :]
    row = row[: row.index("</tr>")]
    assert ("$5,000.00" if language == "en" else "5 000,00 $") in row


def test_a_denial_without_a_reason_is_refused_with_the_error_summary_and_writes_nothing(
    make_body: Body,
) -> None:
    application = submitted(make_body)
    officer = signed_in(OFFICER.username)
    before = written()
    for language, message in (
        ("en", "Enter the reason for the denial."),
        ("fr", "Entrez le motif du refus."),
    ):
        response = decide(officer, application, language, action="deny", reason="   ")
        assert response.status_code == 422
        page = text(response)
        assert '<gcds-error-summary id="error-summary"' in page
        assert f'<li><a href="#id_reason">{message}</a></li>' in page
        assert f'id="id_reason_error"><strong>{message}</strong>' in page
        assert 'aria-invalid="true"' in page
    assert written() == before
    assert Application.objects.get(pk=application.pk).state == "submitted"


def test_the_other_language_of_a_refused_decision_leads_back_to_the_review(
    make_body: Body,
) -> None:
    application = submitted(make_body)
    officer = signed_in(OFFICER.username)
    page = text(decide(officer, application, "en", action="deny"))
    toggle = f"/fr/agent/demandes/{application.pk}/decision/"
    assert f'lang-href="{toggle}"' in page
    response = officer.get(toggle)
    assert response.status_code == 302
    assert response["Location"] == f"/fr/agent/demandes/{application.pk}/"


def test_a_denial_with_a_reason_is_recorded(make_body: Body) -> None:
    application = submitted(make_body)
    officer = signed_in(OFFICER.username)
    response = decide(
        officer, application, "fr", action="deny", reason="La formation ne mène pas à un emploi."
    )
    assert response.status_code == 302
    denied = Application.objects.get(pk=application.pk)
    assert denied.state == "denied"
    assert denied.decision_reason == "La formation ne mène pas à un emploi."
    page = text(officer.get(response["Location"]))
    assert f"Vous avez refusé la demande {application.pk}." in page


@pytest.mark.parametrize(
    ("language", "title", "sentence"),
    [
        (
            "en",
            "Another officer must approve this application",
            "the officer who recommends an application cannot also approve it",
        ),
        (
            "fr",
            "Un autre agent doit approuver cette demande",
            "l'agent qui recommande une demande ne peut pas aussi l'approuver",
        ),
    ],
)
def test_approving_what_one_recommended_is_refused_in_plain_words_and_nothing_is_written(
    make_body: Body, language: str, title: str, sentence: str
) -> None:
    application = recommended(make_body, by=OFFICER.username)
    before = written()
    response = decide(signed_in(OFFICER.username), application, language, action="approve")
    assert response.status_code == 403
    page = text(response)
    assert f'lang="{language}"' in page
    assert title in page and sentence in page
    assert ("Nothing was changed." if language == "en" else "Rien n'a été modifié.") in page
    assert written() == before
    assert Application.objects.get(pk=application.pk).state == "recommended"
    refusal = AuditEntry.objects.filter(action="refused.approve_application").last()
    assert refusal is not None and refusal.summary == {
        "code": "SEPARATION_OF_DUTIES",
        "status": 403,
    }


def test_a_conflict_of_interest_is_refused_in_plain_words(make_body: Body) -> None:
    application = submitted(make_body)
    officer = SECOND_OFFICER.get()
    officer.employers.add(APPLICANT.get())
    before = written()
    response = decide(signed_in(SECOND_OFFICER.username), application, "fr", action="recommend")
    assert response.status_code == 403
    page = text(response)
    assert "Vous êtes en conflit d'intérêts" in page
    assert "Vous êtes lié à un employeur de cette demande" in page
    assert written() == before


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        (
            "en",
            "This approval needs $5,000.00 from the budget of the funder “Federal”, and only "
            "$12.34 is still available in it.",
        ),
        (
            "fr",
            "Cette approbation exige 5 000,00 $ du budget du bailleur de fonds « Fédéral », où "
            "il ne reste que 12,34 $ de disponible.",
        ),
    ],
)
def test_an_exhausted_budget_is_refused_with_the_amount_still_available(
    make_body: Body, language: str, sentence: str
) -> None:
    application = recommended(make_body)
    BudgetAccount.objects.filter(pk=budget("federal").pk).update(
        allocated_cents=F("committed_cents") + F("earmarked_cents") + 1234  # intakes keep theirs
    )
    before = written()
    response = decide(signed_in(SECOND_OFFICER.username), application, language, action="approve")
    assert response.status_code == 409
    assert sentence in text(response)
    assert written() == before
    assert Application.objects.get(pk=application.pk).state == "recommended"


def test_an_application_no_longer_eligible_is_refused_with_its_reasons(make_body: Body) -> None:
    application = recommended(make_body)
    # What it was decided on has changed since: its stored quote no longer stands.
    body = make_body()
    body["training"]["provider"]["third_party"] = False
    del body["declarations"]  # kept apart from the stored request, as applying keeps them
    Application.objects.filter(pk=application.pk).update(request=body, eligible=False)
    before = written()
    response = decide(signed_in(SECOND_OFFICER.username), application, "en", action="approve")
    assert response.status_code == 409
    page = text(response)
    assert "The application is not eligible" in page
    assert "The training must be given by a third-party trainer" in page
    assert written() == before


def test_a_decision_already_taken_elsewhere_is_explained(make_body: Body) -> None:
    application = submitted(make_body)
    before = written()
    response = decide(signed_in(SECOND_OFFICER.username), application, "fr", action="approve")
    assert response.status_code == 409
    assert (
        "Seule une demande recommandée peut être approuvée; celle-ci est maintenant à l'état "
        "« Soumise »." in text(response)
    )
    assert written() == before


@pytest.mark.parametrize(
    "form",
    [
        {"action": "explode"},
        {},
        {"action": "recommend", "note": "x" * 4001},
        {"action": "deny", "reason": "\x00"},
        {"action": "deny", "reason": "y" * 5000},
    ],
)
def test_bad_decision_forms_write_nothing(make_body: Body, form: dict[str, str]) -> None:
    application = submitted(make_body)
    before = written()
    response = decide(signed_in(OFFICER.username), application, "en", **form)
    assert response.status_code in (400, 422)
    assert written() == before
    assert Application.objects.get(pk=application.pk).state == "submitted"


# --- Confirmations and eligibility --------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "title", "button", "government"),
    [
        ("en", "Approve application {id}?", "Yes, approve", "$10,000.00"),
        ("fr", "Approuver la demande {id}?", "Oui, approuver", "10 000,00 $"),
    ],
)
def test_approving_asks_for_a_confirmation_with_the_figures_and_writes_nothing_until_then(
    make_body: Body, language: str, title: str, button: str, government: str
) -> None:
    application = recommended(make_body)
    officer = signed_in(SECOND_OFFICER.username)
    before = written()
    response = ask(officer, application, language, action="approve", note="Checked.")
    assert response.status_code == 200
    page = text(response)
    assert f"<h1>{title.format(id=application.pk)}</h1>" in page
    assert f'id="confirm-government">{government}<' in page
    assert 'id="confirm-note">Checked.<' in page
    assert f'id="confirm-approve-button">{button}<' in page
    assert '<input type="hidden" name="confirm" value="yes">' in page
    assert '<input type="hidden" name="note" value="Checked.">' in page
    assert written() == before
    assert Application.objects.get(pk=application.pk).state == "recommended"
    confirmed = decide(officer, application, language, action="approve", note="Checked.")
    assert confirmed.status_code == 302
    assert Application.objects.get(pk=application.pk).state == "approved"


def test_denying_asks_for_a_confirmation_showing_the_reason(make_body: Body) -> None:
    application = submitted(make_body)
    officer = signed_in(OFFICER.username)
    before = written()
    page = text(ask(officer, application, "fr", action="deny", reason="Hors programme."))
    assert 'id="confirm-reason">Hors programme.<' in page
    assert 'id="confirm-deny-button">Oui, refuser<' in page
    assert '<input type="hidden" name="reason" value="Hors programme.">' in page
    assert written() == before
    assert decide(officer, application, "fr", action="deny", reason="Hors programme.").status_code
    assert Application.objects.get(pk=application.pk).state == "denied"


def test_recommending_needs_no_confirmation(make_body: Body) -> None:
    application = submitted(make_body)
    response = ask(signed_in(OFFICER.username), application, "en", action="recommend")
    assert response.status_code == 302
    assert Application.objects.get(pk=application.pk).state == "recommended"


@pytest.mark.parametrize(
    ("language", "sentence", "reason"),
    [
        (
            "en",
            "so it cannot be recommended",
            "The training must be given by a third-party trainer",
        ),
        (
            "fr",
            "elle ne peut donc pas être recommandée",
            "La formation doit être donnée par un formateur tiers",
        ),
    ],
)
def test_recommending_an_ineligible_application_is_refused_with_its_reasons(
    make_body: Body, language: str, sentence: str, reason: str
) -> None:
    body = make_body()
    body["training"]["provider"]["third_party"] = False
    application = submitted(lambda: body)
    before = written()
    response = decide(signed_in(OFFICER.username), application, language, action="recommend")
    assert response.status_code == 409
    page = text(response)
    assert 'id="refusal"' in page and sentence in page
    reasons = page[page.index('id="refusal-reasons"') :]
    assert reason in reasons[: reasons.index("</ul>")]
    assert written() == before
    assert Application.objects.get(pk=application.pk).state == "submitted"


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "Claims to assess"), ("fr", "Demandes de remboursement à évaluer")],
)
def test_the_officers_start_page_leads_to_the_claims_to_assess(language: str, words: str) -> None:
    page = text(signed_in(OFFICER.username).get(page_path(language, "/officer/")))
    link = re.search(r'<a href="([^"]+)" id="to-claims">([^<]+)</a>', page)
    assert link is not None, "no link to the claims to assess"
    assert link.group(1) == page_path(language, "/officer/claims/")
    assert html.unescape(link.group(2)) == words


def test_the_queue_tells_a_ranked_stream_from_the_plain_one_that_shares_its_budget() -> None:
    """Ontario's two streams draw on one grant budget, so both have the code CJG: the queue's
    filter names each stream, in the page's language, and its column says which is ranked."""
    from urllib.parse import urlencode

    from jobgrant.service.demo_ranking import demo_files
    from jobgrant.service.grants.models.applications import Stream

    ranked_files = demo_files()
    stream = Stream.objects.get(pk=ranked_files.values_list("stream", flat=True).first())
    officer = signed_in(OFFICER.username)
    for language, name in (("en", stream.name_en), ("fr", stream.name_fr)):
        queue = page_path(language, "/officer/")
        page = html.unescape(text(officer.get(queue)))
        assert f'<option value="{stream.name_en}">{name}</option>' in page, language
        ranked = {"en": "CJG<br>ranked selection", "fr": "SCE<br>sélection par classement"}
        assert f"<td>{ranked[language]}</td>" in page, language
        chosen = text(
            officer.get(f"{queue}?{urlencode({'state': 'all', 'stream': stream.name_en})}")
        )
        shown = {int(n) for n in re.findall(r'id="open-(\d+)"', chosen)}
        assert shown == set(ranked_files.values_list("pk", flat=True)), language
