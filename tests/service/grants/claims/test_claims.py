"""Claims: started from the agreement, figures from the rules kernel then the caps of
the claim's caps (each checked to the cent against a hand computation), submitted with
receipts, assessed by the assigned officer only, with the ledger following each step.

The files of tests.service.grants.claim_helpers are under the default policy (cjg-2013): each
funder pays a third of the eligible cost, at most $5,000 per trainee each; the employer the rest.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests import canonical
from tests.participants import OTHER_SIN
from tests.personas import EMPLOYER, OFFICER, OTHER_JURISDICTION_OFFICER, SECOND_OFFICER
from tests.service.grants.claim_helpers import (
    approved_file,
    assign,
    attach,
    confirm,
    during_training,
    invited,
    line,
    refusal,
    trainee,
)

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.agreements.actions import current_version
from jobgrant.service.grants.changes.actions import current_request, request_change
from jobgrant.service.grants.claims import actions as claim_actions
from jobgrant.service.grants.claims import assessment as claim_assessment
from jobgrant.service.grants.claims.figures import LineIn, work_out
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.claims import Claim, ClaimState
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import Posting
from jobgrant.service.notifications.models import Message

pytestmark = pytest.mark.usefixtures("demo")


def ready(trainees: list[dict[str, Any]] | None = None) -> tuple[Application, list[Any]]:
    """A file to claim on: approved, accepted, its two trainees confirmed, assigned to OFFICER."""
    if trainees is None:  # the canonical claimable file (tests/canonical.py), made so once
        application = canonical.put("claimable")
        return application, canonical.participants(application)
    application = approved_file(trainees)
    slots = [confirm(application, 0), confirm(application, 1, OTHER_SIN)]
    assign(application)
    return application, slots


def balances(application: Application) -> dict[str, operations.Balances]:
    return operations.application_balances(application)


def submitted(application: Application, body: dict[str, Any] | None = None) -> Claim:
    claim = claim_actions.start_claim(EMPLOYER.get(), application, body or {})
    attach(claim)
    return claim_actions.submit_claim(EMPLOYER.get(), claim)


def shares(claim: Claim, side: str = "claimed") -> dict[str, int | None]:
    return {s.funder: getattr(s, f"{side}_cents") for s in claim.shares.all()}


# --- Starting and submitting ---------------------------------------------------------------------


def test_a_claim_starts_from_the_agreement_lines_of_the_confirmed_trainees() -> None:
    application, (first, second) = ready()
    with during_training():
        claim = claim_actions.start_claim(EMPLOYER.get(), application, {})
    lines = {(x.participant_id, x.category): x.claimed_cents for x in claim.lines.all()}
    assert lines == {
        (first.pk, "tuition"): 900000,
        (second.pk, "tuition"): 900000,
        (second.pk, "materials"): 60000,
    }
    assert (claim.number, claim.version, claim.state) == (1, 1, ClaimState.DRAFT)


def test_submitting_claims_each_funders_share_of_the_actuals_in_the_ledger() -> None:
    """Trainee 1: $9,000 -> a third each, $3,000.00; trainee 2: $9,600 -> $3,200.00 each."""
    application, _slots = ready()
    committed = balances(application)["federal"].committed
    with during_training():
        claim = submitted(application)
    assert claim.state == ClaimState.SUBMITTED
    assert shares(claim) == {"federal": 620000, "provincial": 620000}
    assert claim.employer_claimed_cents == 620000
    assert claim.caps == []
    held = balances(application)
    assert (held["federal"].claimed, held["provincial"].claimed) == (620000, 620000)
    assert held["federal"].committed == committed  # claimed is part of what is committed
    assert Agreement.objects.get(application=application).state == "active"
    assert AuditEntry.objects.filter(action="claim.submit", object_id=str(claim.pk)).exists()


def test_a_claim_cannot_be_made_before_the_training_starts() -> None:
    application, _slots = ready()
    error = refusal(lambda: claim_actions.start_claim(EMPLOYER.get(), application, {}))
    assert (error.status, error.code) == (409, "CLAIM_BEFORE_TRAINING")
    assert "2027-01-11" in error.message_en and "2027-01-11" in error.message_fr
    assert not Claim.objects.filter(application=application).exists()


def test_a_claim_for_a_trainee_not_confirmed_is_refused_naming_the_trainee() -> None:
    application = approved_file()
    first = confirm(application, 0)
    second = invited(application, 1)
    with during_training():
        error = refusal(
            lambda: claim_actions.start_claim(
                EMPLOYER.get(),
                application,
                {"lines": [line(first, "tuition", "9000.00"), line(second, "tuition", "9000.00")]},
            )
        )
    assert (error.status, error.code) == (409, "TRAINEE_NOT_CONFIRMED")
    assert "Trainee 2 (trainee1@example.com)" in error.message_en
    assert "trainee1@example.com" in error.message_fr
    assert error.extra["participant"] == second.pk
    assert not Claim.objects.filter(application=application).exists()


def test_submitting_refuses_a_claim_without_receipts_and_writes_nothing() -> None:
    application, _slots = ready()
    with during_training():
        claim = claim_actions.start_claim(EMPLOYER.get(), application, {})
        postings = Posting.objects.count()
        error = refusal(lambda: claim_actions.submit_claim(EMPLOYER.get(), claim))
    assert (error.status, error.code) == (409, "NO_RECEIPTS")
    assert Posting.objects.count() == postings
    claim.refresh_from_db()
    assert claim.state == ClaimState.DRAFT


def test_bad_lines_are_refused_each_named_in_both_languages() -> None:
    application, (first, _second) = ready()
    body = {
        "lines": [
            {"participant": 999999, "category": "tuition", "amount": "1.00"},
            {"participant": first.pk, "category": "lunch", "amount": "-4"},
            line(first, "tuition", "12.345"),
        ]
    }
    with during_training():
        error = refusal(lambda: claim_actions.start_claim(EMPLOYER.get(), application, body))
    assert error.status == 422
    fields = {p["field"] for p in error.problems}
    assert fields == {
        "lines[0].participant",
        "lines[1].category",
        "lines[1].amount",
        "lines[2].amount",
    }
    assert all(p["message_en"] and p["message_fr"] for p in error.problems)
    assert not Claim.objects.filter(application=application).exists()


def test_only_one_claim_is_open_at_a_time() -> None:
    application, _slots = ready()
    with during_training():
        claim_actions.start_claim(EMPLOYER.get(), application, {})
        error = refusal(lambda: claim_actions.start_claim(EMPLOYER.get(), application, {}))
    assert (error.status, error.code) == (409, "CLAIM_ALREADY_OPEN")


def test_no_change_request_while_a_claim_is_under_assessment() -> None:
    application, _slots = ready()
    agreement = Agreement.objects.get(application=application)
    with during_training():
        submitted(application)
        body = {"kind": "provider", "provider": {"name": "Sheridan College", "third_party": True}}
        error = refusal(lambda: request_change(EMPLOYER.get(), agreement, "provider", body))
    assert (error.status, error.code) == (409, "CLAIM_UNDER_ASSESSMENT")


# --- The caps, in order --------------------------------------------------------------------------


def test_a_line_is_capped_at_the_agreement_less_what_is_already_approved() -> None:
    """Claim 1: trainee 1's tuition $6,000 approved (a third each: $2,000.00). Claim 2 asks
    $4,000 more: the agreement's $9,000 less $6,000 approved leaves $3,000, whose share to date
    ($9,000 / 3 = $3,000.00) less the $2,000.00 approved is $1,000.00 per funder."""
    application, (first, _second) = ready()
    with during_training():
        one = submitted(application, {"lines": [line(first, "tuition", "6000.00")]})
        claim_assessment.approve_claim(OFFICER.get(), one, {})
        two = submitted(application, {"lines": [line(first, "tuition", "4000.00")]})
    assert two.caps == [
        {
            "rule": "line",
            "trainee": 1,
            "category": "tuition",
            "before_cents": 400000,
            "after_cents": 300000,
            "agreed_cents": 900000,
            "approved_cents": 600000,
        }
    ]
    assert shares(two) == {"federal": 100000, "provincial": 100000}
    assert two.employer_claimed_cents == 100000
    assert balances(application)["federal"].claimed == 200000 + 100000  # payable + claimed


def test_a_trainee_funded_in_another_file_is_capped_at_the_per_trainee_maximum() -> None:
    """The same person (same SIN) is confirmed in another approved file that gives them
    $6,000.00 (a third of $9,000 twice). The most per trainee is $5,000 + $5,000, so this file
    can give them $4,000.00: federal $3,000 x 4,000 / 6,000 = $2,000.00, provincial $2,000.00,
    and the employer's share grows by the $2,000.00 the government no longer pays."""
    application, (first, _second) = ready()
    other = approved_file([trainee()])
    confirm(other, 0)
    with during_training():
        claim = submitted(application, {"lines": [line(first, "tuition", "9000.00")]})
    assert claim.caps == [
        {
            "rule": "trainee",
            "trainee": 1,
            "before_cents": 600000,
            "after_cents": 400000,
            "maximum_cents": 1000000,
            "elsewhere_cents": 600000,
        }
    ]
    assert shares(claim) == {"federal": 200000, "provincial": 200000}
    assert claim.employer_claimed_cents == 300000 + 200000


def test_the_file_is_capped_at_the_agreement_then_each_funder_at_its_own_commitment() -> None:
    """Against a version that commits $5,000.00 federal and $6,200.00 provincial ($11,200.00),
    the actuals' $12,400.00 is first held to $11,200.00 in proportion ($5,600.00 each), then
    federal to its $5,000.00; the employer's share takes the $1,800.00 the government does not
    pay ($6,200.00 + $1,200.00 + $600.00)."""
    application, (_first, _second) = ready()
    agreement = Agreement.objects.get(application=application)
    version = current_version(agreement)
    version.federal_cents = 500000  # in memory only: a commitment below the actuals' shares
    lines = [
        LineIn(0, "tuition", 900000),
        LineIn(1, "tuition", 900000),
        LineIn(1, "materials", 60000),
    ]
    figures = work_out(application, version, lines, claim=None, request=current_request(agreement))
    assert figures.caps == [
        {"rule": "agreement", "before_cents": 1240000, "after_cents": 1120000},
        {"rule": "funder", "funder": "federal", "before_cents": 560000, "after_cents": 500000},
    ]
    assert figures.shares == {"federal": 500000, "provincial": 560000}
    assert figures.employer_cents == 800000
    assert sum(figures.shares.values()) + figures.employer_cents == 900000 + 960000


# --- The assessment ------------------------------------------------------------------------------


def test_only_the_officer_the_file_is_assigned_to_assesses_and_each_refusal_is_audited() -> None:
    application, _slots = ready()
    with during_training():
        claim = submitted(application)
        error = refusal(lambda: claim_assessment.approve_claim(SECOND_OFFICER.get(), claim, {}))
        assert (error.status, error.code) == (403, "CLAIM_NOT_ASSIGNED")
        error = refusal(
            lambda: claim_assessment.deny_claim(OTHER_JURISDICTION_OFFICER.get(), claim, "No.")
        )
        assert (error.status, error.code) == (403, "NOT_YOUR_FILE")
        error = refusal(lambda: claim_assessment.approve_claim(EMPLOYER.get(), claim, {}))
        assert (error.status, error.code) == (403, "ROLE_NOT_ALLOWED")
    refused = AuditEntry.objects.filter(object_type="claim", object_id=str(claim.pk))
    assert refused.filter(action="refused.approve_claim").count() == 2
    assert refused.filter(action="refused.deny_claim").count() == 1
    claim.refresh_from_db()
    assert claim.state == ClaimState.SUBMITTED


def test_approving_certifies_per_line_and_makes_the_approved_money_payable() -> None:
    """Trainee 2's materials lowered from $600 to $150: trainee 2's share is then a third of
    $9,150 = $3,050.00; with trainee 1's $3,000.00, $6,050.00 per funder is payable and the
    $150.00 per funder the officer did not approve goes back to the commitment."""
    application, _slots = ready()
    with during_training():
        claim = submitted(application)
        materials = claim.lines.get(category="materials")
        body = {
            "reason": "Checked against invoice 1042.",
            "lines": [{"id": materials.pk, "amount": "150.00", "reason": "Only one textbook."}],
        }
        claim = claim_assessment.approve_claim(OFFICER.get(), claim, body)
    assert claim.state == ClaimState.APPROVED
    assert claim.certified_by == OFFICER.get() and claim.certified_at is not None
    assert shares(claim, "approved") == {"federal": 605000, "provincial": 605000}
    assert claim.employer_approved_cents == 605000
    materials.refresh_from_db()
    assert (materials.approved_cents, materials.reason) == (15000, "Only one textbook.")
    held = balances(application)["provincial"]
    assert (held.claimed, held.payable) == (605000, 605000)  # payable is part of claimed
    message = Message.objects.get(kind="claim_approved", subject_id=str(claim.pk))
    assert "$12,100.00" in message.body and message.language == "en"


def test_a_line_lowered_without_a_reason_or_above_the_claim_is_refused() -> None:
    application, _slots = ready()
    with during_training():
        claim = submitted(application)
        materials = claim.lines.get(category="materials")
        body = {"lines": [{"id": materials.pk, "amount": "100.00"}]}
        error = refusal(lambda: claim_assessment.approve_claim(OFFICER.get(), claim, body))
        assert {p["field"] for p in error.problems} == {"lines[0].reason"}
        body = {"lines": [{"id": materials.pk, "amount": "700.00"}]}
        error = refusal(lambda: claim_assessment.approve_claim(OFFICER.get(), claim, body))
        assert {p["field"] for p in error.problems} == {"lines[0].amount"}
    claim.refresh_from_db()
    assert claim.state == ClaimState.SUBMITTED


def test_returning_gives_the_money_back_and_the_employer_reads_why_in_their_language() -> None:
    application, _slots = ready()
    from jobgrant.service.accounts.models import User

    User.objects.filter(pk=EMPLOYER.get().pk).update(preferred_language="fr")
    with during_training():
        claim = submitted(application)
        claim = claim_assessment.return_claim(
            OFFICER.get(), claim, "Joignez la preuve de paiement."
        )
        assert claim.state == ClaimState.RETURNED
        assert balances(application)["federal"].claimed == 0
        message = Message.objects.get(kind="claim_returned", subject_id=str(claim.pk))
        assert message.language == "fr" and "Joignez la preuve de paiement." in message.body
        again = claim_actions.submit_claim(EMPLOYER.get(), claim)
    assert again.state == ClaimState.SUBMITTED
    assert balances(application)["federal"].claimed == 620000


def test_denying_needs_a_reason_and_gives_the_money_back() -> None:
    application, _slots = ready()
    with during_training():
        claim = submitted(application)
        error = refusal(lambda: claim_assessment.deny_claim(OFFICER.get(), claim, " "))
        assert {p["field"] for p in error.problems} == {"reason"}
        claim = claim_assessment.deny_claim(
            OFFICER.get(), claim, "The training did not take place."
        )
    assert claim.state == ClaimState.DENIED
    held = balances(application)["provincial"]
    assert (held.claimed, held.payable) == (0, 0)
    assert Message.objects.filter(kind="claim_denied", subject_id=str(claim.pk)).count() == 1


# --- Amendments and the final claim --------------------------------------------------------------


def test_an_amendment_lowering_an_unpaid_approval_gives_the_difference_back() -> None:
    """Claim 1 approved at $6,200.00 per funder; its amendment drops trainee 2's $600 of
    materials: $6,000.00 per funder, $200.00 less, moved from payable back to the commitment."""
    application, (_first, _second) = ready()
    with during_training():
        one = submitted(application)
        claim_assessment.approve_claim(OFFICER.get(), one, {})
        amendment = claim_actions.start_claim(EMPLOYER.get(), application, {"amends": one.pk})
        assert (amendment.number, amendment.version, amendment.amends_id) == (1, 2, one.pk)
        lines = [
            {"participant": x.participant_id, "category": x.category, "amount": "0.00"}
            if x.category == "materials"
            else {"participant": x.participant_id, "category": x.category, "amount": "9000.00"}
            for x in amendment.lines.select_related("participant")
        ]
        claim_actions.update_claim(EMPLOYER.get(), amendment, {"lines": lines})
        attach(amendment)
        amendment = claim_actions.submit_claim(EMPLOYER.get(), amendment)
        assert shares(amendment) == {"federal": 600000, "provincial": 600000}
        assert {s.ledger_claimed_cents for s in amendment.shares.all()} == {0}
        amendment = claim_assessment.approve_claim(OFFICER.get(), amendment, {})
    one.refresh_from_db()
    assert (one.state, amendment.state) == (ClaimState.SUPERSEDED, ClaimState.APPROVED)
    held = balances(application)["federal"]
    assert (held.claimed, held.payable) == (600000, 600000)
    entry = AuditEntry.objects.get(action="claim.approve", object_id=str(amendment.pk))
    assert entry.summary["federal_lowered_cents"] == 20000
    from jobgrant.service.grants.claims.view import describe

    assert describe(amendment)["delta"] == {
        "federal": -20000,
        "provincial": -20000,
        "employer": -20000,
    }


def test_an_amendment_raising_a_claim_claims_only_the_difference() -> None:
    application, (first, _second) = ready()
    with during_training():
        one = submitted(application, {"lines": [line(first, "tuition", "6000.00")]})
        claim_assessment.approve_claim(OFFICER.get(), one, {})
        body = {"amends": one.pk, "lines": [line(first, "tuition", "9000.00")]}
        amendment = claim_actions.start_claim(EMPLOYER.get(), application, body)
        attach(amendment)
        amendment = claim_actions.submit_claim(EMPLOYER.get(), amendment)
        assert {s.funder: s.ledger_claimed_cents for s in amendment.shares.all()} == {
            "federal": 100000,
            "provincial": 100000,
        }
        claim_assessment.approve_claim(OFFICER.get(), amendment, {})
    held = balances(application)["federal"]
    assert (held.claimed, held.payable) == (300000, 300000)


def test_approving_the_final_claim_releases_the_unused_commitment() -> None:
    """Only trainee 1's $9,000 is claimed, final: $3,000.00 per funder payable, and the other
    $3,200.00 per funder committed to trainee 2 goes back to the budget."""
    application, (first, _second) = ready()
    with during_training():
        claim = submitted(
            application, {"is_final": True, "lines": [line(first, "tuition", "9000.00")]}
        )
        claim_assessment.approve_claim(OFFICER.get(), claim, {})
        after = refusal(lambda: claim_actions.start_claim(EMPLOYER.get(), application, {}))
    held = balances(application)["federal"]
    assert (held.committed, held.payable) == (300000, 300000)
    entry = AuditEntry.objects.get(action="claim.approve", object_id=str(claim.pk))
    assert entry.summary["federal_released_cents"] == 320000
    assert after.code == "FINAL_CLAIM_MADE"
    assert operations.verify() == []


def test_an_amendment_below_what_was_paid_is_owed_back_not_lowered() -> None:
    """Claim 1 approved at $6,200.00 per funder and paid in full (a batch built, authorized by a
    second finance officer, exported and confirmed); its amendment at $6,000.00 cannot lower
    what was paid: the $200.00 per funder becomes a receivable (recovery_hooks.overpaid), none
    of it lowered as unpaid, and the file's payable money is the new approval."""
    from tests.service.grants.payment_helpers import confirm_all, finance, second_finance

    from jobgrant.service.grants.models.payments import Receivable
    from jobgrant.service.grants.payments import batches as payment_batches
    from jobgrant.service.grants.payments import confirmation as payment_confirmation
    from jobgrant.service.grants.payments import export as payment_export

    application, (first, second) = ready()
    with during_training():
        one = submitted(application)
        claim_assessment.approve_claim(OFFICER.get(), one, {})
        batch = payment_batches.build_batch(
            finance(), {"jurisdiction": "ON", "fiscal_year": "2026-27"}
        )
        payment_batches.authorize_batch(second_finance(), batch)
        content = payment_export.export_batch(finance(), batch)
        payment_confirmation.import_confirmations(finance(), batch, confirm_all(content))
        assert balances(application)["federal"].disbursed == 620000
        body = {
            "amends": one.pk,
            "lines": [line(first, "tuition", "9000.00"), line(second, "tuition", "9000.00")],
        }
        amendment = claim_actions.start_claim(EMPLOYER.get(), application, body)
        attach(amendment)
        amendment = claim_actions.submit_claim(EMPLOYER.get(), amendment)
        amendment = claim_assessment.approve_claim(OFFICER.get(), amendment, {})
    entry = AuditEntry.objects.get(action="claim.approve", object_id=str(amendment.pk))
    assert entry.summary["federal_lowered_cents"] == 0
    assert entry.summary["federal_overpaid_cents"] == 20000
    assert shares(amendment, "approved") == {"federal": 600000, "provincial": 600000}
    owed = Receivable.objects.filter(application=application)
    assert sorted(owed.values_list("funder", "amount_cents")) == [
        ("federal", 20000),
        ("provincial", 20000),
    ]
    held = balances(application)["federal"]
    assert (held.payable, held.disbursed) == (600000, 600000)
    assert operations.verify() == []


def test_a_submission_the_ledger_cannot_hold_is_refused_and_writes_nothing() -> None:
    """The file's commitment lowered below the claim (here released by hand, $6,000.00 of the
    provincial $6,200.00 committed): claiming $6,200.00 of it is refused, nothing written."""
    from django.db import transaction

    application, _slots = ready()
    accounts = operations.pool_accounts(
        operations.Pool(application.jurisdiction, application.fiscal_year, application.stream.code)
    )
    with transaction.atomic():
        operations.release(accounts["provincial"], 600000, actor="test", application=application)
    with during_training():
        claim = claim_actions.start_claim(EMPLOYER.get(), application, {})
        attach(claim)
        postings = Posting.objects.count()
        error = refusal(lambda: claim_actions.submit_claim(EMPLOYER.get(), claim))
    assert (error.status, error.code) == (409, "CLAIM_BUDGET_SHORT")
    assert "$6,200.00" in error.message_en and "$200.00" in error.message_en
    assert Posting.objects.count() == postings
    claim.refresh_from_db()
    assert claim.state == ClaimState.DRAFT and not claim.shares.exists()
