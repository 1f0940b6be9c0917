"""The claim pages without a browser: the employer starts a claim, saves amounts, attaches real
files and submits after a confirmation; the officer approves after a confirmation step. Both
languages; bad input writes nothing; a receipt is served only to those who may read the claim."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from tests import canonical
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
    """A file to claim on: the canonical claimable file (tests/canonical.py), approved,
    accepted, its two trainees confirmed (SIN, OTHER_SIN), assigned to OFFICER."""
    return canonical.put("claimable")


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
        french = client.get(f"/fr/employeur/demandes-de-remboursement/{claim.pk}/")
        assert "Ce que vous avez payé" in text(french) and 'lang="fr"' in text(french)
        files = [
            SimpleUploadedFile("invoice.pdf", pdf_bytes(), "application/pdf"),
            SimpleUploadedFile("paid.png", png_bytes(), "image/png"),
        ]
        attached = client.post(f"/en/employer/claims/{claim.pk}/", {"file": files})
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
        bad = client.post(
            f"/fr/employeur/demandes-de-remboursement/{claim.pk}/", {name: "douze dollars"}
        )
        assert bad.status_code == 422 and "gcds-error-summary" in text(bad)
        program = SimpleUploadedFile("invoice.pdf", elf_bytes(), "application/pdf")
        refused = client.post(f"/en/employer/claims/{claim.pk}/", {"file": [program]})
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
        employer.post(f"/en/employer/claims/{claim.pk}/", {"file": files})
        employer.post(f"/en/employer/claims/{claim.pk}/submit/", {"confirm": "yes"})
        officer = signed_in(OFFICER)
        queue = officer.get("/en/officer/claims/")
        assert f"/en/officer/claims/{claim.pk}/" in text(queue)
        page = officer.get(f"/fr/agent/demandes-de-remboursement/{claim.pk}/")
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
        employer.post(f"/en/employer/claims/{claim.pk}/", {"file": files})
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
        employer.post(f"/en/employer/claims/{claim.pk}/", {"file": files})
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
    answer = client.post(f"/fr/employeur/demandes/{application.pk}/demandes-de-remboursement/")
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
        saved = client.post(f"/en/employer/claims/{claim.pk}/", fields)
        assert saved.status_code == 302
        fields[f"amount-{waiting.pk}-tuition"] = "100.00"
        refused = client.post(f"/en/employer/claims/{claim.pk}/", fields)
    assert refused.status_code == 409 and "Trainee 2 (trainee1@example.com)" in text(refused)
    assert [(x.participant_id, x.claimed_cents) for x in claim.lines.all()] == [
        (first.participant_id, 800000)
    ]


def typed(client: Client, claim: Claim) -> dict[str, str]:
    """What the browser posts from the claim's page: every amount field as it shows it."""
    import re

    page = text(client.get(f"/en/employer/claims/{claim.pk}/"))
    found = re.findall(r'name="(amount-\d+-[a-z_]+)" value="([^"]*)"', page)
    assert found
    return dict(found)


def test_amounts_typed_are_saved_with_the_receipts_and_the_submission(demo) -> None:
    """The claim's one form: amounts typed and never "saved" on their own go with the files
    chosen and the submission; the confirmation shows what was typed, not the agreement's
    maximum, and the claim submitted claims it."""
    application = ready()
    with during_training():
        client = signed_in(EMPLOYER)
        claim = started(client, application)
        fields: dict[str, Any] = typed(client, claim)
        first = sorted(fields)[0]
        fields[first] = "1234.56"
        fields["file"] = [SimpleUploadedFile("invoice.pdf", pdf_bytes(), "application/pdf")]
        fields["then"] = "submit"
        answer = client.post(f"/en/employer/claims/{claim.pk}/", fields)
        assert answer.status_code == 302, text(answer)
        assert answer["Location"] == f"/en/employer/claims/{claim.pk}/submit/"
        confirmation = text(client.get(answer["Location"]))
        assert "$1,234.56" in confirmation
        assert Receipt.objects.filter(claim=claim).count() == 1
        done = client.post(f"/en/employer/claims/{claim.pk}/submit/", {"confirm": "yes"})
    assert done.status_code == 302
    participant, category = first.split("-")[1:]
    line = claim.lines.get(participant_id=int(participant), category=category)
    assert line.claimed_cents == 123456
    claim.refresh_from_db()
    assert claim.state == ClaimState.SUBMITTED


def test_a_refused_receipt_is_named_and_the_valid_ones_sent_with_it_are_kept(demo) -> None:
    application = ready()
    with during_training():
        client = signed_in(EMPLOYER)
        claim = started(client, application)
        fields: dict[str, Any] = typed(client, claim)
        first = sorted(fields)[0]
        fields[first] = "100.00"
        fields["file"] = [
            SimpleUploadedFile("invoice.pdf", pdf_bytes(), "application/pdf"),
            SimpleUploadedFile("setup.pdf", elf_bytes(), "application/pdf"),
        ]
        answer = client.post(f"/en/employer/claims/{claim.pk}/", fields)
        page = text(answer)
        assert answer.status_code == 422 and "gcds-error-summary" in page
        assert "setup.pdf: must be a PDF, PNG or JPEG file" in page
        assert "The other files were attached: invoice.pdf." in page
        assert [r.original_name for r in Receipt.objects.filter(claim=claim)] == ["invoice.pdf"]
        participant, category = first.split("-")[1:]
        assert (
            claim.lines.get(participant_id=int(participant), category=category).claimed_cents
            == 10000
        )
        only_bad = {"file": [SimpleUploadedFile("a.exe", elf_bytes(), "application/pdf")]}
        french = text(client.post(f"/fr/employeur/demandes-de-remboursement/{claim.pk}/", only_bad))
    assert "a.exe :" in french or "a.exe\u00a0:" in french
    assert "Aucun des fichiers" in french


def submitted_claim(application: Any) -> Claim:
    """A claim submitted through the actions (as the API would), at the agreement's amounts."""
    from tests.service.grants.claim_helpers import attach

    from jobgrant.service.grants.claims import actions as claim_actions

    employer = EMPLOYER.get()
    claim = claim_actions.start_claim(employer, application, {})
    attach(claim)
    claim_actions.submit_claim(employer, claim)
    claim.refresh_from_db()
    assert claim.state == ClaimState.SUBMITTED
    return claim


def test_a_lowered_line_without_a_reason_is_caught_before_the_confirmation(demo) -> None:
    application = ready()
    with during_training():
        claim = submitted_claim(application)
        line = claim.lines.order_by("id").first()
        officer = signed_in(OFFICER)
        posted = {"action": "approve", f"approve-amount-{line.pk}": "10.00"}
        answer = officer.post(f"/en/officer/claims/{claim.pk}/decision/", posted)
        page = text(answer)
        assert answer.status_code == 422 and 'id="confirm-form"' not in page
        assert f'href="#approve-reason-{line.pk}"' in page
        assert f"Why, if lowered (trainee {line.participant.position + 1}, " in page
        assert "write why you approve $10.00, less than the $" in page
        above = {"action": "approve", f"approve-amount-{line.pk}": "999999.00"}
        french = text(
            officer.post(f"/fr/agent/demandes-de-remboursement/{claim.pk}/decision/", above)
        )
    assert "au plus les" in french and "999\u00a0999,00\u00a0$" in french
    claim.refresh_from_db()
    assert claim.state == ClaimState.SUBMITTED


def test_the_language_toggle_after_an_error_leads_to_the_claim_page(demo) -> None:
    """A page rendered by a POST-only address (the officer's decision, the employer's
    submission) toggles to the claim's GET page in the other language, not to a 405."""
    import re

    application = ready()
    with during_training():
        claim = submitted_claim(application)
        officer = signed_in(OFFICER)
        asked = text(officer.post(f"/en/officer/claims/{claim.pk}/decision/", {"action": "deny"}))
        toggle = re.search(r'lang-href="([^"]+)"', asked)
        assert toggle and toggle.group(1) == f"/fr/agent/demandes-de-remboursement/{claim.pk}/"
        assert officer.get(toggle.group(1)).status_code == 200
        confirming = text(
            officer.post(
                f"/fr/agent/demandes-de-remboursement/{claim.pk}/decision/", {"action": "approve"}
            )
        )
        toggle = re.search(r'lang-href="([^"]+)"', confirming)
        assert toggle and toggle.group(1) == f"/en/officer/claims/{claim.pk}/"
        employer = signed_in(EMPLOYER)
        again = employer.post(f"/en/employer/claims/{claim.pk}/submit/", {"confirm": "yes"})
        assert again.status_code == 409
        toggle = re.search(r'lang-href="([^"]+)"', text(again))
    assert toggle and toggle.group(1) == f"/fr/employeur/demandes-de-remboursement/{claim.pk}/"


def test_a_line_the_limits_lowered_starts_with_the_limits_sentence_as_its_reason(demo) -> None:
    """Approving as the page starts (each line as it counts after the limits) goes to the
    confirmation: a line the agreement's limit lowered carries that limit's sentence."""
    import re

    application = ready()
    with during_training():
        employer = signed_in(EMPLOYER)
        claim = started(employer, application)
        fields: dict[str, Any] = typed(employer, claim)
        materials = next(name for name in sorted(fields) if name.endswith("-materials"))
        fields[materials] = "5000.00"  # above what the agreement allows for the line
        fields["file"] = [SimpleUploadedFile("invoice.pdf", pdf_bytes(), "application/pdf")]
        fields["then"] = "submit"
        employer.post(f"/en/employer/claims/{claim.pk}/", fields)
        employer.post(f"/en/employer/claims/{claim.pk}/submit/", {"confirm": "yes"})
        officer = signed_in(OFFICER)
        page = text(officer.get(f"/en/officer/claims/{claim.pk}/"))
        found = dict(
            re.findall(r'name="(approve-[a-z]+-\d+)" (?:[a-z-]+="[^"]*" )*value="([^"]*)"', page)
        )
        asked = officer.post(
            f"/en/officer/claims/{claim.pk}/decision/", {"action": "approve", **found}
        )
    assert "The agreement allows" in " ".join(found.values())
    assert asked.status_code == 200 and 'id="confirm-form"' in text(asked)


def paid_claim() -> tuple[Any, Claim]:
    """The canonical paid file (tests/canonical.py) and its final claim: certified, paid through
    a whole run (built, authorized by another person, exported, confirmed paid on
    2027-01-23)."""
    application = canonical.put("paid")
    return application, Claim.objects.get(application=application)


def test_a_paid_claim_says_it_was_paid_on_the_claim_and_the_application(demo) -> None:
    from jobgrant.service.grants.models.payments import PaymentRequest

    application, claim = paid_claim()
    documents = list(PaymentRequest.objects.values_list("document_number", flat=True))
    assert len(documents) == 2
    client = signed_in(EMPLOYER)
    page = text(client.get(f"/en/employer/claims/{claim.pk}/"))
    assert "will be paid in the next payment run" not in page
    assert "The approved money is paid: $12,400.00" in page
    assert all(document in page for document in documents)
    assert "January 23, 2027" in page and page.count("$6,200.00") >= 2
    french = text(client.get(f"/fr/employeur/demandes-de-remboursement/{claim.pk}/"))
    assert "L'argent approuvé est payé\u00a0: 12\u00a0400,00\u00a0$" in french
    assert "23 janvier 2027" in french
    detail = text(client.get(f"/en/employer/applications/{application.pk}/"))
    assert 'id="payments"' in detail and all(document in detail for document in documents)
    assert "January 23, 2027" in detail and "Paid" in detail
    detail_fr = text(client.get(f"/fr/employeur/demandes/{application.pk}/"))
    assert "Paiements" in detail_fr and "23 janvier 2027" in detail_fr


def test_a_claim_for_trainees_not_confirmed_says_who_must_confirm_and_how_before_it_is_made(
    demo,
) -> None:
    from tests.service.grants.claim_helpers import invited

    application = approved_file()
    invited(application, 0)
    invited(application, 1)
    assign(application)
    with during_training():
        client = signed_in(EMPLOYER)
        page = text(client.get(f"/en/employer/applications/{application.pk}/claims/"))
        assert 'id="waiting-trainees"' in page and "invited, not confirmed yet" in page
        assert f"/en/employer/applications/{application.pk}/trainees/" in page
        refused = client.post(f"/en/employer/applications/{application.pk}/claims/")
        french = client.post(f"/fr/employeur/demandes/{application.pk}/demandes-de-remboursement/")
    assert refused.status_code == 409 and 'id="refusal"' in text(refused)
    assert "Trainee 1 (trainee0@example.com) and trainee 2 (trainee1@example.com)" in text(refused)
    assert "Each confirms by opening the link in the invitation" in text(refused)
    assert "Enter at least one actual cost" not in text(refused)
    assert french.status_code == 409 and "Pas encore confirmé" in text(french)
    assert not Claim.objects.exists()


def test_a_claim_lines_label_is_printed_once(demo) -> None:
    """The row's heading names the line; the field's label says it again only to screen
    readers (visually hidden), not a second time on the page."""
    application = ready()
    with during_training():
        client = signed_in(EMPLOYER)
        claim = started(client, application)
        page = text(client.get(f"/en/employer/claims/{claim.pk}/"))
    labels = re.findall(r'<label for="amount-[^"]+"([^>]*)>', page)
    assert labels and all('class="jg-visually-hidden"' in attrs for attrs in labels)


def test_a_draft_claim_is_discarded_after_a_confirmation_and_the_trail_keeps_it(demo) -> None:
    from jobgrant.service.audit.models import AuditEntry

    application = ready()
    with during_training():
        client = signed_in(EMPLOYER)
        claim = started(client, application)
        files = [SimpleUploadedFile("invoice.pdf", pdf_bytes(), "application/pdf")]
        client.post(f"/en/employer/claims/{claim.pk}/", {"file": files})
        page = text(client.get(f"/en/employer/claims/{claim.pk}/"))
        assert f'href="/en/employer/claims/{claim.pk}/discard/"' in page
        asked = client.get(f"/fr/employeur/demandes-de-remboursement/{claim.pk}/abandonner/")
        assert asked.status_code == 200 and 'id="confirm-discard"' in text(asked)
        assert Claim.objects.filter(pk=claim.pk).exists()  # nothing before the confirmation
        outsider = signed_in(OUTSIDER_EMPLOYER)
        assert outsider.post(f"/en/employer/claims/{claim.pk}/discard/").status_code == 404
        done = client.post(f"/en/employer/claims/{claim.pk}/discard/")
        assert done.status_code == 302
        listed = text(client.get(done["Location"]))
    assert f"Claim {claim.number} is discarded, with its receipts." in listed
    assert not Claim.objects.filter(pk=claim.pk).exists() and not Receipt.objects.exists()
    entry = AuditEntry.objects.filter(action="claim.discard").get()
    assert entry.object_id == str(claim.pk) and entry.actor == EMPLOYER.username


def test_a_claim_once_submitted_is_not_discarded(demo) -> None:
    from jobgrant.service.audit.models import AuditEntry

    application = ready()
    with during_training():
        claim = submitted_claim(application)
        client = signed_in(EMPLOYER)
        page = text(client.get(f"/en/employer/claims/{claim.pk}/"))
        assert "discard-claim" not in page
        refused = client.post(f"/en/employer/claims/{claim.pk}/discard/")
    assert refused.status_code == 409 and 'id="refusal"' in text(refused)
    assert Claim.objects.filter(pk=claim.pk).exists()
    assert AuditEntry.objects.filter(action="refused.discard_claim").count() == 1
