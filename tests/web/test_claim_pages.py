"""The claim pages without a browser: the employer starts a claim, saves amounts, attaches real
files and submits after a confirmation; the officer approves after a confirmation step. Both
languages; bad input writes nothing; a receipt is served only to those who may read the claim."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from tests.participants import OTHER_SIN
from tests.personas import EMPLOYER, OFFICER, OUTSIDER_EMPLOYER, SECOND_OFFICER
from tests.service.grants.claim_helpers import (
    approved_file,
    assign,
    confirm,
    during_training,
    elf_bytes,
    pdf_bytes,
    png_bytes,
)

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.models.claims import Claim, ClaimState, Receipt
from jobgrant.service.ledger import operations

pytestmark = pytest.mark.django_db


def signed_in(persona: Any) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=persona.username))
    return client


def text(answer: Any) -> str:
    return answer.content.decode()


def ready() -> Any:
    application = approved_file()
    confirm(application, 0)
    confirm(application, 1, OTHER_SIN)
    assign(application)
    return application


def started(client: Client, application: Any) -> Claim:
    answer = client.post(f"/en/employer/applications/{application.pk}/claims/")
    assert answer.status_code == 302, text(answer)
    return Claim.objects.get(application=application)


def test_the_employer_claims_with_receipts_and_submits_after_confirming(demo) -> None:
    application = ready()
    with during_training():  # signed in on the day: a session does not last for months
        client = signed_in(EMPLOYER)
        claim = started(client, application)
        page = client.get(f"/en/employer/claims/{claim.pk}/")
        assert (
            page.status_code == 200
            and "What you paid, beside what the agreement allows" in text(page)
        )
        french = client.get(f"/fr/employer/claims/{claim.pk}/")
        assert "Ce que vous avez payé" in text(french) and 'lang="fr"' in text(french)
        files = [
            SimpleUploadedFile("invoice.pdf", pdf_bytes(), "application/pdf"),
            SimpleUploadedFile("paid.png", png_bytes(), "image/png"),
        ]
        attached = client.post(f"/en/employer/claims/{claim.pk}/receipts/", {"file": files})
        assert attached.status_code == 302, text(attached)
        assert Receipt.objects.filter(claim=claim).count() == 2
        confirm_page = client.get(f"/en/employer/claims/{claim.pk}/submit/")
        assert 'id="confirm-submit"' in text(confirm_page)
        claim.refresh_from_db()
        assert claim.state == ClaimState.DRAFT  # nothing before the confirmation
        done = client.post(f"/en/employer/claims/{claim.pk}/submit/", {"confirm": "yes"})
    assert done.status_code == 302
    claim.refresh_from_db()
    assert claim.state == ClaimState.SUBMITTED
    shown = text(client.get(f"/en/employer/claims/{claim.pk}/"))
    assert "$6,200.00" in shown and "An officer is assessing the claim" in shown


def test_a_bad_amount_or_a_renamed_program_is_refused_on_the_page_and_nothing_changes(demo) -> None:
    application = ready()
    with during_training():  # signed in on the day: a session does not last for months
        client = signed_in(EMPLOYER)
        claim = started(client, application)
        line = claim.lines.select_related("participant").first()
        name = f"amount-{line.participant_id}-{line.category}"
        bad = client.post(f"/fr/employer/claims/{claim.pk}/lines/", {name: "douze dollars"})
        assert bad.status_code == 422 and "gcds-error-summary" in text(bad)
        program = SimpleUploadedFile("invoice.pdf", elf_bytes(), "application/pdf")
        refused = client.post(f"/en/employer/claims/{claim.pk}/receipts/", {"file": [program]})
    assert refused.status_code == 422 and "must be a PDF, PNG or JPEG file" in text(refused)
    assert not Receipt.objects.exists()
    line.refresh_from_db()
    assert line.claimed_cents == 900000


def test_the_assigned_officer_approves_after_a_confirmation(demo) -> None:
    application = ready()
    with during_training():
        employer = signed_in(EMPLOYER)
        claim = started(employer, application)
        files = [SimpleUploadedFile("invoice.pdf", pdf_bytes(), "application/pdf")]
        employer.post(f"/en/employer/claims/{claim.pk}/receipts/", {"file": files})
        employer.post(f"/en/employer/claims/{claim.pk}/submit/", {"confirm": "yes"})
        officer = signed_in(OFFICER)
        queue = officer.get("/en/officer/claims/")
        assert f"/en/officer/claims/{claim.pk}/" in text(queue)
        page = officer.get(f"/fr/officer/claims/{claim.pk}/")
        assert page.status_code == 200 and "Approuver et certifier" in text(page)
        asked = officer.post(f"/en/officer/claims/{claim.pk}/decision/", {"action": "approve"})
        assert 'id="confirm-form"' in text(asked)
        claim.refresh_from_db()
        assert claim.state == ClaimState.SUBMITTED
        posted = {"action": "approve", "confirm": "yes", "approve-reason": "Checked."}
        done = officer.post(f"/en/officer/claims/{claim.pk}/decision/", posted)
    assert done.status_code == 302
    claim.refresh_from_db()
    assert claim.state == ClaimState.APPROVED and claim.certified_by.username == OFFICER.username
    assert operations.application_balances(application)["federal"].payable == 620000


def test_another_officer_sees_the_claim_but_cannot_decide_it(demo) -> None:
    application = ready()
    with during_training():
        employer = signed_in(EMPLOYER)
        claim = started(employer, application)
        files = [SimpleUploadedFile("invoice.pdf", pdf_bytes(), "application/pdf")]
        employer.post(f"/en/employer/claims/{claim.pk}/receipts/", {"file": files})
        employer.post(f"/en/employer/claims/{claim.pk}/submit/", {"confirm": "yes"})
        other = signed_in(SECOND_OFFICER)
        page = text(other.get(f"/en/officer/claims/{claim.pk}/"))
        assert "Only the officer the file is assigned to can assess this claim." in page
        posted = {"action": "deny", "confirm": "yes", "deny-reason": "No."}
        refused = other.post(f"/en/officer/claims/{claim.pk}/decision/", posted)
    assert refused.status_code == 403 and 'id="refusal"' in text(refused)
    claim.refresh_from_db()
    assert claim.state == ClaimState.SUBMITTED


def test_a_receipt_is_served_as_an_attachment_only_to_those_who_may_read_the_claim(demo) -> None:
    application = ready()
    with during_training():
        employer = signed_in(EMPLOYER)
        claim = started(employer, application)
        files = [SimpleUploadedFile("proof.pdf", png_bytes(), "application/pdf")]
        employer.post(f"/en/employer/claims/{claim.pk}/receipts/", {"file": files})
        receipt = Receipt.objects.get(claim=claim)
        mine = employer.get(f"/en/employer/claims/{claim.pk}/receipts/{receipt.pk}/")
        assert mine.status_code == 200 and mine["Content-Type"] == "image/png"
        assert mine["Content-Disposition"] == 'attachment; filename="proof.png"'  # its type
        assert mine["X-Content-Type-Options"] == "nosniff"
        assert b"".join(mine.streaming_content) == png_bytes()
        path = f"/en/officer/claims/{claim.pk}/receipts/{receipt.pk}/"
        assert signed_in(OFFICER).get(path).status_code == 200
        outsider = signed_in(OUTSIDER_EMPLOYER)
        mine_path = f"/en/employer/claims/{claim.pk}/receipts/{receipt.pk}/"
        assert outsider.get(mine_path).status_code == 404
        assert outsider.get(f"/en/employer/claims/{claim.pk}/").status_code == 404


def test_starting_a_claim_before_the_training_shows_why_on_the_page(demo) -> None:
    application = ready()
    client = signed_in(EMPLOYER)
    answer = client.post(f"/fr/employer/applications/{application.pk}/claims/")
    assert answer.status_code == 409 and 'id="refusal"' in text(answer)
    assert "dès le début de la formation, le 2027-01-11" in text(answer)
    assert not Claim.objects.exists()


def test_a_trainee_not_yet_confirmed_can_be_left_at_zero(demo) -> None:
    """The page lists every trainee's agreed lines; one whose form is not confirmed yet is left
    at zero and the others are claimed. Claiming for them is refused, naming them."""
    from tests.service.grants.claim_helpers import invited

    application = approved_file()
    confirm(application, 0)
    waiting = invited(application, 1)
    assign(application)
    with during_training():
        client = signed_in(EMPLOYER)
        claim = started(client, application)
        page = text(client.get(f"/en/employer/claims/{claim.pk}/"))
        assert "participant form not confirmed" in page
        first = claim.lines.get()
        fields = {f"amount-{first.participant_id}-tuition": "8000.00"}
        saved = client.post(f"/en/employer/claims/{claim.pk}/lines/", fields)
        assert saved.status_code == 302
        fields[f"amount-{waiting.pk}-tuition"] = "100.00"
        refused = client.post(f"/en/employer/claims/{claim.pk}/lines/", fields)
    assert refused.status_code == 409 and "Trainee 2 (trainee1@example.com)" in text(refused)
    assert [(x.participant_id, x.claimed_cents) for x in claim.lines.all()] == [
        (first.participant_id, 800000)
    ]
