"""The change requests' pages: the employer chooses a kind, fills in its form, reviews the change
and confirms; the officer decides from a queue, after a confirmation step. Both languages; bad
input writes nothing; refusals are explained."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db.models import F
from django.test import Client
from tests import canonical
from tests.addresses import page_path
from tests.personas import EMPLOYER, OFFICER, OTHER_JURISDICTION_OFFICER
from tests.service.grants.change_helpers import counts

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.changes import ChangeRequest
from jobgrant.service.ledger.models import BudgetAccount

pytestmark = pytest.mark.django_db


def signed_in(persona: Any) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=persona.username))
    return client


def new(agreement: Agreement, kind: str, language: str = "en") -> str:
    return page_path(
        language, f"/employer/applications/{agreement.application_id}/changes/new/{kind}/"
    )


def text(answer: Any) -> str:
    return answer.content.decode()


def test_the_employer_chooses_what_to_change_in_either_language(demo) -> None:
    agreement = canonical.put("accepted").agreement
    client = signed_in(EMPLOYER)
    index = f"/en/employer/applications/{agreement.application_id}/changes/"
    page = client.get(index)
    assert page.status_code == 200 and 'name="kind"' in text(page)
    french = client.get(page_path("fr", index[len("/en") :]))
    assert "Que voulez-vous modifier?" in text(french) and 'lang="fr"' in text(french)
    chosen = client.get(index, {"kind": "dates"})
    assert chosen.status_code == 302 and chosen["Location"].endswith("/changes/new/dates/")
    wrong = client.get(index, {"kind": "colour"})
    assert wrong.status_code == 422 and "gcds-error-summary" in text(wrong)


def test_new_dates_are_reviewed_then_approved_at_once(demo) -> None:
    agreement = canonical.put("accepted").agreement
    client = signed_in(EMPLOYER)
    typed = {"start_date": "2027-01-18", "end_date": "", "note": "The room is booked."}
    review = client.post(new(agreement, "dates"), typed)
    assert review.status_code == 200 and 'id="change-diff"' in text(review)
    assert "January 11, 2027" in text(review) and "January 18, 2027" in text(review)
    assert "approved as soon as you send it" in text(review)
    assert ChangeRequest.objects.count() == 0  # the review writes nothing
    sent = client.post(new(agreement, "dates"), {**typed, "confirm": "yes"})
    change = ChangeRequest.objects.get()
    assert sent.status_code == 302 and sent["Location"] == f"/en/employer/changes/{change.pk}/"
    assert change.state == "approved" and change.self_service
    detail = client.get(sent["Location"])
    assert "was approved at once" in text(detail)
    assert "the agreement stays accepted" in text(detail)


def test_dates_across_the_fiscal_year_are_named_on_the_form_in_french(demo) -> None:
    agreement = canonical.put("accepted").agreement
    before = counts()
    page = signed_in(EMPLOYER).post(new(agreement, "dates", "fr"), {"end_date": "2027-04-02"})
    assert page.status_code == 422
    assert "gcds-error-summary" in text(page) and "exercice 2026-27" in text(page)
    assert 'aria-invalid="true"' in text(page)
    assert counts() == before


def test_a_bad_date_is_named_by_the_form(demo) -> None:
    agreement = canonical.put("accepted").agreement
    page = signed_in(EMPLOYER).post(new(agreement, "dates"), {"start_date": "next week"})
    assert page.status_code == 422 and "year-month-day" in text(page)
    assert ChangeRequest.objects.count() == 0


def provider_change(agreement: Agreement) -> ChangeRequest:
    typed = {"provider_name": "Niagara College", "third_party": "yes", "confirm": "yes"}
    sent = signed_in(EMPLOYER).post(new(agreement, "provider"), typed)
    assert sent.status_code == 302, text(sent)
    return ChangeRequest.objects.get()


def test_the_officer_approves_from_the_queue_after_confirming(demo) -> None:
    agreement = canonical.put("accepted").agreement
    change = provider_change(agreement)
    assert change.state == "submitted"
    officer = signed_in(OFFICER)
    queue = officer.get("/en/officer/changes/")
    assert f'id="open-change-{change.pk}"' in text(queue)
    review = officer.get(f"/en/officer/changes/{change.pk}/")
    assert "Mohawk College" in text(review) and "Niagara College" in text(review)
    decide = f"/en/officer/changes/{change.pk}/decision/"
    confirm = officer.post(decide, {"action": "approve", "approve-reason": "Same program."})
    assert confirm.status_code == 200 and 'id="confirm-approve-button"' in text(confirm)
    change.refresh_from_db()
    assert change.state == "submitted"  # nothing until confirmed
    done = officer.post(
        decide, {"action": "approve", "approve-reason": "Same program.", "confirm": "yes"}
    )
    assert done.status_code == 302
    change.refresh_from_db()
    assert change.state == "approved" and change.reason == "Same program."
    after = officer.get(done["Location"])
    assert "You approved change request" in text(after)
    employer_page = signed_in(EMPLOYER).get(f"/en/employer/changes/{change.pk}/")
    assert "Same program." in text(employer_page) and "accept it" in text(employer_page)


def test_a_denial_needs_its_reason_then_the_employer_reads_it(demo) -> None:
    change = provider_change(canonical.put("accepted").agreement)
    officer = signed_in(OFFICER)
    decide = f"/fr/agent/modifications/{change.pk}/decision/"
    missing = officer.post(decide, {"action": "deny", "deny-reason": ""})
    assert missing.status_code == 422 and "gcds-error-summary" in text(missing)
    officer.post(decide, {"action": "deny", "deny-reason": "Pas le même cours.", "confirm": "yes"})
    change.refresh_from_db()
    assert change.state == "denied"
    page = signed_in(EMPLOYER).get(f"/fr/employeur/modifications/{change.pk}/")
    assert "Pas le même cours." in text(page) and "Refusée" in text(page)


def test_a_budget_that_cannot_cover_the_change_is_explained(demo) -> None:
    agreement = canonical.put("accepted").agreement
    typed = {
        "action": "add",
        "employer": "acme",
        "status": "new-hire",
        "tuition": "3000",
        "confirm": "yes",
    }
    sent = signed_in(EMPLOYER).post(new(agreement, "trainees"), typed)
    assert sent.status_code == 302, text(sent)
    change = ChangeRequest.objects.get()
    BudgetAccount.objects.filter(funder="federal", jurisdiction="ON").update(
        allocated_cents=F("committed_cents") + F("earmarked_cents")  # what intakes hold stays
    )
    answer = signed_in(OFFICER).post(
        f"/en/officer/changes/{change.pk}/decision/", {"action": "approve", "confirm": "yes"}
    )
    assert answer.status_code == 409 and 'id="refusal"' in text(answer)
    assert "The budget cannot cover this approval" in text(answer)
    change.refresh_from_db()
    assert change.state == "submitted"


def test_money_moved_between_lines_is_reviewed(demo) -> None:
    agreement = canonical.put("accepted").agreement
    typed = {"from_line": "0:tuition", "to_line": "0:materials", "amount": "1000"}
    review = signed_in(EMPLOYER).post(new(agreement, "cost_reallocation"), typed)
    assert review.status_code == 200, text(review)
    rows = re.findall(r"<tr><th scope=\"row\">([^<]*)</th>", text(review))
    assert "Trainee 1: Tuition or trainer fees" in rows[0] or "Trainee 1" in rows[0]
    assert "accept again" in text(review)
    too_much = {**typed, "amount": "20000"}
    refused = signed_in(EMPLOYER).post(new(agreement, "cost_reallocation"), too_much)
    assert refused.status_code == 422 and "more than the line" in text(refused)


def test_an_officer_of_another_jurisdiction_sees_no_such_change(demo) -> None:
    change = provider_change(canonical.put("accepted").agreement)
    outsider = signed_in(OTHER_JURISDICTION_OFFICER)
    assert outsider.get(f"/en/officer/changes/{change.pk}/").status_code == 404
    assert f"open-change-{change.pk}" not in text(outsider.get("/en/officer/changes/"))


def test_the_accepted_agreement_and_the_officer_queue_lead_to_the_changes(demo) -> None:
    agreement = canonical.put("accepted").agreement
    page = signed_in(EMPLOYER).get(f"/en/employer/applications/{agreement.application_id}/")
    assert f"/en/employer/applications/{agreement.application_id}/changes/" in text(page)
    assert 'href="/fr/agent/modifications/"' in text(signed_in(OFFICER).get("/fr/agent/"))
