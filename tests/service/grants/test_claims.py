"""Claims: started from the agreement, figures from the kernel then the caps, submitted with
receipts, assessed by the assigned officer, with the ledger following each step to the cent."""

from __future__ import annotations

from tests.personas import EMPLOYER, OFFICER
from tests.service.grants.claim_helpers import (
    approved_file,
    assign,
    attach,
    confirm,
    during_training,
)

from jobgrant.service.grants import claim_actions


def test_smoke(demo: None) -> None:
    application = approved_file()
    first, second = confirm(application, 0), confirm(application, 1, "193 456 787")
    assign(application)
    with during_training():
        claim = claim_actions.start_claim(EMPLOYER.get(), application, {})
        print([(l.participant.position, l.category, l.claimed_cents) for l in claim.lines.all()])
        attach(claim)
        claim = claim_actions.submit_claim(EMPLOYER.get(), claim)
        print(claim.figures, claim.caps, [(s.funder, s.claimed_cents, s.ledger_claimed_cents) for s in claim.shares.all()])
        claim = claim_actions.approve_claim(OFFICER.get(), claim, {})
        print(claim.state, [(s.funder, s.approved_cents) for s in claim.shares.all()])
    print(application.quote["totals"])
