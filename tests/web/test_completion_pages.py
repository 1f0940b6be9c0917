"""The outcome pages without a browser: the employer's completion report (a draft kept, errors
named in the page's language, a confirmation step before submitting), the employer's follow-up,
the trainee's follow-up by link (once, in either language; a dead link explained), and the
officer's view with the offer to raise a receivable for a trainee who did not complete."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client
from tests.personas import EMPLOYER, OFFICER, OUTSIDER_EMPLOYER
from tests.service.grants.claim_helpers import assign
from tests.service.grants.outcome_helpers import (
    after_training,
    at,
    ended_file,
    submitted_report,
)
from tests.service.grants.payment_helpers import certified_claim
from tests.service.grants.payments.test_payments import build, paid_through

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.completion import follow_ups as follow_up_actions
from jobgrant.service.grants.models.burden import FieldErrorShown
from jobgrant.service.grants.models.completion import (
    CompletionReport,
    FollowUp,
    FollowUpState,
    ReportState,
    TraineeOutcome,
)
from jobgrant.service.grants.models.payments import Receivable
from jobgrant.service.notifications.models import Message

pytestmark = pytest.mark.django_db
LINK = re.compile(r"/(en|fr)/(?:follow-up|suivi)/([0-9a-f]{64})/")


def signed_in(persona: Any) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=persona.username))
    return client


def text(answer: Any) -> str:
    return answer.content.decode()


def report_form(slots: list[Any], employer: int, **first: str) -> dict[str, str]:
    typed: dict[str, str] = {"feedback": "Good.", "action": "save"}
    for slot in slots:
        typed |= {
            f"t{slot.pk}-completed": "yes",
            f"t{slot.pk}-employed_at_end": "yes",
            f"t{slot.pk}-with_this_employer": "yes",
            f"t{slot.pk}-employment_type": "full-time",
            f"t{slot.pk}-noc": "72410",
            f"t{slot.pk}-hourly_wage_before": "24.50",
            f"t{slot.pk}-hourly_wage_after": "27.00",
        }
    for item in ("relevant", "good-investment", "easy-to-access", "timely", "met-needs"):
        typed[f"r{employer}-{item}"] = "4"
    typed |= {f"t{slots[0].pk}-{key}": value for key, value in first.items()}
    return typed


def test_the_employer_saves_a_draft_fixes_errors_confirms_and_submits(demo: None) -> None:
    application, slots = ended_file()
    employer = application.employers.first().employer_id
    path = f"/fr/employeur/demandes/{application.pk}/rapport-de-fin/"
    with after_training():
        client = signed_in(EMPLOYER)
        start = client.get(path)
        assert start.status_code == 200 and "Commencer le rapport" in text(start)
        assert client.post(path, {"action": "start"}).status_code == 302
        bad = client.post(path, report_form(slots, employer, noc="12"))
        assert bad.status_code == 422
        # Counted for the burden meter: the field, never the code typed (web/field_errors.py).
        counted = FieldErrorShown.objects.filter(form="completion.CompletionReport", field="noc")
        assert counted.exists() and not FieldErrorShown.objects.filter(field__contains="12")
        assert "CNP 2021" in text(bad) and f'href="#t{slots[0].pk}-noc"' in text(bad)
        assert not TraineeOutcome.objects.exists()
        assert client.post(path, report_form(slots, employer)).status_code == 302
        draft = client.get(path)
        assert 'value="24.50"' in text(draft) and "brouillon a été enregistré" in text(draft)
        review = client.post(path, {**report_form(slots, employer), "action": "review"})
        assert review.status_code == 200 and 'id="submit-report"' in text(review)
        assert CompletionReport.objects.get().state == ReportState.DRAFT
        done = client.post(path, {"action": "submit"})
        assert done.status_code == 302
        page = client.get(path)
    assert "Le rapport de fin de formation a été soumis" in text(page)
    assert f"/fr/employeur/demandes/{application.pk}/suivis/3/" in text(page)
    assert CompletionReport.objects.get().state == ReportState.SUBMITTED


def test_another_employer_gets_404_and_an_officer_sees_the_offer_and_raises_it(
    demo: None,
) -> None:
    application, slots = ended_file()
    assign(application)
    certified_claim(application, federal=300_000)  # paid: there is money to get back
    paid_through(build())
    with after_training():
        path = f"/en/employer/applications/{application.pk}/completion-report/"
        assert signed_in(OUTSIDER_EMPLOYER).get(path).status_code == 404
        client = signed_in(EMPLOYER)
        client.post(path, {"action": "start"})
        employer = application.employers.first().employer_id
        typed = report_form(
            slots,
            employer,
            completed="no",
            not_completed_reason="dropped-out",
            employed_at_end="no",
            with_this_employer="",
            employment_type="",
            noc="",
            hourly_wage_after="",
        )
        client.post(path, {**typed, "action": "review"})
        client.post(path, {"action": "submit"})
        officer = signed_in(OFFICER)
        outcomes = f"/en/officer/applications/{application.pk}/outcomes/"
        page = officer.get(outcomes)
        assert page.status_code == 200
        assert 'id="raise-receivable-1-federal"' in text(page) and "Stopped attending" in text(page)
        assert not Receivable.objects.exists()
        raised = officer.post(
            outcomes + "receivable/",
            {"funder": "federal", "amount": "500.00", "reason": "Trainee 1 stopped attending."},
        )
        assert raised.status_code == 302
        after = officer.get(outcomes)
    assert Receivable.objects.exists(), re.findall(r'id="notice"><p>(.*?)</p>', text(after))
    receivable = Receivable.objects.get()
    assert receivable.cause == "not_completed" and receivable.amount_cents == 50_000
    assert f"Receivable {receivable.pk} was raised" in text(after)


def test_the_trainee_answers_by_link_once_in_either_language(demo: None) -> None:
    submitted_report()
    with at(FollowUp.objects.first().due_on):
        follow_up_actions.send_due_follow_ups()
        body = Message.objects.filter(kind="follow_up_trainee").order_by("id").first().body
        language, token = LINK.search(body).groups()
        assert language == "en"
        client = Client()
        french = f"/fr/suivi/{token}/"
        page = client.get(french)
        assert page.status_code == 200 and "En emploi actuellement" in text(page)
        assert page["Cache-Control"].startswith("max-age=0")
        bad = client.post(french, {"employed": "oui", "weekly_hours": "0"})
        assert bad.status_code == 422 and "heures par semaine" in text(bad)
        sent = client.post(
            french, {"employed": "yes", "same_employer": "yes", "weekly_hours": "38"}
        )
        assert sent.status_code == 302
        thanks = client.get(french)
        assert thanks.status_code == 200 and "ne sont pas affichées" in text(thanks)
        again = Client().get(f"/en/follow-up/{token}/")
    assert again.status_code == 410 and "already answered" in text(again)
    assert "Nothing was recorded" not in text(again)  # the answers were recorded, once
    assert "déjà" in text(again)  # explained in the other language too
    assert FollowUp.objects.filter(state=FollowUpState.RESPONDED).count() == 1
    assert Client().get("/en/follow-up/" + "0" * 64 + "/").status_code == 404


def test_the_employer_answers_its_follow_up_page(demo: None) -> None:
    application, slots = submitted_report()
    path = f"/en/employer/applications/{application.pk}/follow-ups/3/"
    with at(FollowUp.objects.first().due_on):
        follow_up_actions.send_due_follow_ups()
        client = signed_in(EMPLOYER)
        page = client.get(path)
        assert page.status_code == 200 and f'name="p{slots[0].pk}-employed"' in text(page)
        bad = client.post(path, {f"p{slots[0].pk}-employed": "yes"})
        assert bad.status_code == 422 and f'href="#p{slots[0].pk}-same_employer-yes"' in text(bad)
        done = client.post(
            path,
            {
                f"p{slots[0].pk}-employed": "yes",
                f"p{slots[0].pk}-same_employer": "yes",
                f"p{slots[0].pk}-weekly_hours": "40",
                f"p{slots[1].pk}-employed": "no",
            },
        )
        assert done.status_code == 302
        after = client.get(path)
    assert "your answers were recorded" in text(after) and 'id="next-step"' in text(after)
    answered = FollowUp.objects.filter(respondent="employer", state=FollowUpState.RESPONDED)
    assert answered.count() == 2
    assert signed_in(OUTSIDER_EMPLOYER).get(path).status_code == 404


def reported_dropout(application: Any, slots: list[Any]) -> None:
    """The employer's completion report: trainee 1 did not complete (the others did)."""
    path = f"/en/employer/applications/{application.pk}/completion-report/"
    client = signed_in(EMPLOYER)
    client.post(path, {"action": "start"})
    employer = application.employers.first().employer_id
    typed = report_form(
        slots,
        employer,
        completed="no",
        not_completed_reason="dropped-out",
        employed_at_end="no",
        with_this_employer="",
        employment_type="",
        noc="",
        hourly_wage_after="",
    )
    client.post(path, {**typed, "action": "review"})
    assert client.post(path, {"action": "submit"}).status_code == 302


def test_the_receivable_offer_is_prefilled_per_funder_with_what_was_paid(demo: None) -> None:
    """Nothing paid: no form, and why. Paid by the federal government only: one form, for the
    federal money, at most the trainee's federal share and what was paid (never both
    governments' share under one funder)."""
    from jobgrant.service.grants.participants.access import government_shares

    application, slots = ended_file()
    assign(application)
    with after_training():
        reported_dropout(application, slots)
        officer = signed_in(OFFICER)
        outcomes = f"/en/officer/applications/{application.pk}/outcomes/"
        unpaid = text(officer.get(outcomes))
    assert 'id="nothing-to-recover-1"' in unpaid and "raise-receivable-1" not in unpaid
    certified_claim(application, federal=100_000)
    paid_through(build())
    with after_training():
        page = text(signed_in(OFFICER).get(outcomes))
    share = government_shares(application, 0)
    assert share["federal"] > 0 and share["provincial"] > 0
    expected = f"{min(share['federal'], 100_000) / 100:.2f}"
    assert 'id="raise-receivable-1-federal"' in page
    assert "raise-receivable-1-provincial" not in page
    assert re.search(r'id="amount-1-federal" name="amount" value="' + re.escape(expected), page)


def test_the_why_not_error_lists_the_reasons_in_words_not_codes(demo: None) -> None:
    application, slots = ended_file()
    employer = application.employers.first().employer_id
    path = f"/fr/employeur/demandes/{application.pk}/rapport-de-fin/"
    with after_training():
        client = signed_in(EMPLOYER)
        client.post(path, {"action": "start"})
        typed = report_form(slots, employer, completed="no", not_completed_reason="")
        bad = client.post(path, typed)
    assert bad.status_code == 422
    shown = text(bad)
    assert "«\u00a0A cessé d'assister à la formation\u00a0»" in html.unescape(shown)
    assert "left-employer, illness-or-family" not in shown  # the codes, as they were listed


def test_the_french_error_links_put_a_no_break_space_before_the_colon(demo: None) -> None:
    application, slots = ended_file()
    employer = application.employers.first().employer_id
    path = f"/fr/employeur/demandes/{application.pk}/rapport-de-fin/"
    with after_training():
        client = signed_in(EMPLOYER)
        client.post(path, {"action": "start"})
        bad = client.post(path, report_form(slots, employer, noc="12"))
    shown = html.unescape(text(bad))
    assert "CNP 2021\u00a0: doit être" in shown or "\u00a0: doit être un groupe" in shown
    assert not re.search(r"[^\s\u00a0\u202f]: doit être", shown)
