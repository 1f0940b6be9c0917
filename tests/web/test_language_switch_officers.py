"""The language button on the officers' and the finance officers' forms (without JavaScript;
tests/e2e/test_language_toggle.py presses the header's toggle): it posts what was typed to the
same form's address in the other language, whose page shows it back, checking nothing and
writing nothing (ADR 0039)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.conftest import changes_audited
from tests.personas import FINANCE, OFFICER, SECOND_OFFICER

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.models.applications import Application, StateChange

pytestmark = pytest.mark.django_db
SWITCH = {"switch-language": "yes"}


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def signed_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


def button(key: str, action: str) -> str:
    """A form's language button (its key, when the page has several), posting to `action` in
    French."""
    named = f"switch-language-{key}" if key else "switch-language"
    return f'id="{named}" class="jg-link-button" formaction="{page_path("fr", action)}"'


def switched_page(response: Any) -> str:
    """A page answered to the language button: French, no error, the header's toggle leading
    to a page that answers a GET."""
    assert response.status_code == 200
    page = text(response)
    assert '<html lang="fr">' in page and "<gcds-error-summary" not in page
    return page


def test_the_officers_decision_and_denial_keep_what_was_typed(demo: None) -> None:
    from tests.service.grants.agreement_helpers import recommended

    application = recommended()
    client = signed_in(SECOND_OFFICER.username)
    review = text(client.get(f"/en/officer/applications/{application.pk}/"))
    decide = f"/officer/applications/{application.pk}/decision/"
    assert button("decision", decide) in review
    assert button("deny", decide) in review
    entries, history = changes_audited(), StateChange.objects.count()
    page = switched_page(
        client.post(page_path("fr", decide), {"note": "Dossier complet.", **SWITCH})
    )
    assert re.search(r'<textarea name="note"[^>]*>\s*Dossier complet.</textarea>', page)
    assert f'lang-href="/en/officer/applications/{application.pk}/"' in page
    page = switched_page(
        client.post(page_path("fr", decide), {"reason": "Hors du programme.", **SWITCH})
    )
    assert re.search(r'<textarea name="reason"[^>]*>\s*Hors du programme.</textarea>', page)
    confirm = {"action": "deny", "confirm": "yes", "reason": "Hors du programme."}
    page = switched_page(client.post(page_path("fr", decide), {**confirm, **SWITCH}))
    assert 'id="confirm-deny-button"' in page and 'id="confirm-reason">Hors du programme.' in page
    assert Application.objects.get(pk=application.pk).state == "recommended"
    assert changes_audited() == entries and StateChange.objects.count() == history


def test_the_claims_certification_keeps_the_lowered_lines_and_the_reasons(demo: None) -> None:
    from tests.service.grants.claim_helpers import during_training
    from tests.web.test_claim_pages import ready, submitted_claim

    from jobgrant.service.grants.models.claims import Claim, ClaimState

    application = ready()
    with during_training():
        claim = submitted_claim(application)
        line = claim.lines.order_by("id").first()
        client = signed_in(OFFICER.username)
        page = text(client.get(f"/en/officer/claims/{claim.pk}/"))
        decide = f"/officer/claims/{claim.pk}/decision/"
        for key in ("approve", "return", "deny"):
            assert button(key, decide) in page
        entries = changes_audited()
        typed = {
            "action": "approve",
            f"approve-amount-{line.pk}": "10,00",
            f"approve-reason-{line.pk}": "Reçu partiel.",
            "approve-reason": "Voir les lignes.",
        }
        page = switched_page(client.post(page_path("fr", decide), {**typed, **SWITCH}))
        assert 'value="10,00"' in page and 'value="Reçu partiel."' in page
        assert "Voir les lignes.</textarea>" in page
        assert f'lang-href="/en/officer/claims/{claim.pk}/"' in page
        back = {"action": "return", "return-reason": "Il manque un reçu."}
        page = switched_page(client.post(page_path("fr", decide), {**back, **SWITCH}))
        assert "Il manque un reçu.</textarea>" in page
        confirming = {"action": "deny", "deny-reason": "Hors délai.", "confirm": "yes"}
        page = switched_page(client.post(page_path("fr", decide), {**confirming, **SWITCH}))
        assert 'id="confirm-reason">Hors délai.' in page
        assert 'name="switch-language" value="yes">' not in page  # not carried as a hidden field
    assert Claim.objects.get(pk=claim.pk).state == ClaimState.SUBMITTED
    assert changes_audited() == entries


def test_the_officers_decision_on_a_change_request_keeps_its_reason(demo: None) -> None:
    from tests.service.grants.change_helpers import accepted
    from tests.web.test_change_pages import provider_change

    from jobgrant.service.grants.models.changes import ChangeRequest

    change = provider_change(accepted())
    client = signed_in(OFFICER.username)
    decide = f"/officer/changes/{change.pk}/decision/"
    page = text(client.get(f"/en/officer/changes/{change.pk}/"))
    for key in ("approve", "deny"):
        assert button(key, decide) in page
    entries = changes_audited()
    typed = {"action": "deny", "deny-reason": "Pas le même cours."}
    page = switched_page(client.post(page_path("fr", decide), {**typed, **SWITCH}))
    assert "Pas le même cours.</textarea>" in page
    assert f'lang-href="/en/officer/changes/{change.pk}/"' in page
    page = switched_page(
        client.post(page_path("fr", decide), {**typed, "confirm": "yes", **SWITCH})
    )
    assert 'id="confirm-deny-button"' in page and 'id="confirm-reason">Pas le même cours.' in page
    assert ChangeRequest.objects.get(pk=change.pk).state == "submitted"
    assert changes_audited() == entries


def test_a_receivables_form_on_the_outcomes_keeps_its_amount_and_reason(demo: None) -> None:
    from tests.service.grants.claim_helpers import assign
    from tests.service.grants.outcome_helpers import after_training, ended_file
    from tests.service.grants.payment_helpers import certified_claim
    from tests.service.grants.payments.test_payments import build, paid_through
    from tests.web.test_completion_pages import reported_dropout

    from jobgrant.service.grants.models.payments import Receivable

    application, slots = ended_file()
    assign(application)
    certified_claim(application, federal=100_000)
    paid_through(build())
    with after_training():
        reported_dropout(application, slots)
        client = signed_in(OFFICER.username)
        outcomes = f"/officer/applications/{application.pk}/outcomes/"
        page = text(client.get(f"/en{outcomes}"))
        action = f"/officer/applications/{application.pk}/outcomes/receivable/"
        assert button("1-federal", action) in page
        typed = {"trainee": "1", "funder": "federal", "amount": "12,34", "reason": "Abandon."}
        page = switched_page(client.post(page_path("fr", action), {**typed, **SWITCH}))
    assert 'id="amount-1-federal" name="amount" value="12,34"' in page
    assert re.search(r'id="reason-1-federal" name="reason" rows="2">Abandon.</textarea>', page)
    assert f'lang-href="/en{outcomes}"' in page
    assert not Receivable.objects.exists()


def test_the_officers_withdrawal_of_an_offer_keeps_its_reason(demo: None) -> None:
    from tests.service.grants.agreement_helpers import approved

    from jobgrant.service.grants.models.agreements import Agreement

    agreement = approved()
    path = f"/officer/applications/{agreement.application_id}/agreement/withdraw/"
    client = signed_in(OFFICER.username)
    assert button("", path) in text(client.get(f"/en{path}"))
    page = switched_page(client.post(page_path("fr", path), {"reason": "Budget épuisé.", **SWITCH}))
    assert "Budget épuisé.</textarea>" in page
    assert Agreement.objects.get(pk=agreement.pk).state == "issued"


def test_the_finance_officers_batch_forms_keep_what_was_typed(demo: None) -> None:
    """The build form, a hold (its payment and reason), and the confirmation file: a file
    cannot be shown back, so the page names it to choose again."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from tests.service.grants.payment_helpers import accepted_file, certified_claim, second_finance
    from tests.service.grants.payments.test_payments import build

    from jobgrant.service.grants.models.payments import (
        ConfirmationImport,
        PaymentBatch,
        PaymentRequest,
    )
    from jobgrant.service.grants.payments import batches as payment_batches
    from jobgrant.service.grants.payments import export as payment_export

    application = accepted_file()
    certified_claim(application, federal=10_000)
    client = signed_in(FINANCE.username)
    assert button("", "/finance/payments/") in text(client.get("/en/finance/payments/"))
    typed = {"jurisdiction": "ON", "fiscal_year": "2027-28"}
    page = switched_page(client.post("/fr/finances/paiements/", {**typed, **SWITCH}))
    assert 'value="2027-28"' in page and re.search(r'<option value="ON"[^>]*selected', page)
    assert not PaymentBatch.objects.exists()
    batch = build()
    payment = PaymentRequest.objects.get(batch=batch)
    hold = f"/finance/payments/{batch.pk}/hold/"
    assert button("hold", hold) in text(client.get(f"/en/finance/payments/{batch.pk}/"))
    held = {"payment": str(payment.pk), "reason": "Adresse à vérifier."}
    page = switched_page(client.post(page_path("fr", hold), {**held, **SWITCH}))
    assert re.search(rf'<option value="{payment.pk}"[^>]*selected', page)
    assert "Adresse à vérifier.</textarea>" in page
    assert f'lang-href="/en/finance/payments/{batch.pk}/"' in page
    assert PaymentRequest.objects.get(pk=payment.pk).state == "batched"
    payment_batches.authorize_batch(second_finance(), batch)
    payment_export.export_batch(FINANCE.get(), batch)
    confirm = f"/finance/payments/{batch.pk}/confirmations/"
    assert button("confirm", confirm) in text(client.get(f"/en/finance/payments/{batch.pk}/"))
    upload = SimpleUploadedFile("paiements-confirmés.csv", b"x\r\n", "text/csv")
    page = switched_page(client.post(page_path("fr", confirm), {"file": upload, **SWITCH}))
    assert 'id="files-not-kept"' in page and "paiements-confirmés.csv" in page
    assert "choisissez-le de nouveau" in page
    assert not ConfirmationImport.objects.exists()


def test_a_receivables_repayment_and_write_off_keep_what_was_typed(demo: None) -> None:
    from tests.service.grants.payment_helpers import accepted_file, certified_claim
    from tests.service.grants.payments.test_payments import build, paid_through

    from jobgrant.service.grants.models.payments import Receivable
    from jobgrant.service.grants.payments import recovery as recovery_actions

    application = accepted_file()
    certified_claim(application, federal=300_000)
    paid_through(build())
    receivable = recovery_actions.raise_by_hand(
        OFFICER.get(),
        {
            "application": application.pk,
            "funder": "federal",
            "cause": "ineligible_cost",
            "amount": "500.00",
            "reason": "The exam fee was paid twice.",
        },
    )
    client = signed_in(FINANCE.username)
    base = f"/finance/receivables/{receivable.pk}/"
    page = text(client.get(f"/en{base}"))
    assert button("repay", f"{base}repayments/") in page
    assert button("write-off", f"{base}write-off/") in page
    typed = {"amount": "200,00", "received_on": "2026-11-29", "reference": "C1"}
    page = switched_page(client.post(page_path("fr", f"{base}repayments/"), {**typed, **SWITCH}))
    assert 'value="200,00"' in page and 'value="2026-11-29"' in page and 'value="C1"' in page
    assert f'lang-href="/en{base}"' in page
    page = switched_page(
        client.post(page_path("fr", f"{base}write-off/"), {"reason": "Faillite.", **SWITCH})
    )
    assert "Faillite.</textarea>" in page
    receivable.refresh_from_db()
    assert receivable.recovered_cents == 0 and receivable.write_off_requested_by_id is None
    assert Receivable.objects.count() == 1


def test_the_analysts_simulation_form_keeps_what_was_typed(demo: None) -> None:
    from tests.personas import ANALYST

    from jobgrant.service.analysis.models import SimulationRun

    client = signed_in(ANALYST.username)
    assert button("", "/analyst/simulations/") in text(client.get("/en/analyst/simulations/"))
    typed = {"scenario": "budget-2013", "draws": "37", "seed": "4242"}
    page = switched_page(client.post("/fr/analyste/simulations/", {**typed, **SWITCH}))
    assert 'value="37"' in page and 'value="4242"' in page
    assert re.search(r'<option value="budget-2013"[^>]*selected', page)
    assert not SimulationRun.objects.exists()
