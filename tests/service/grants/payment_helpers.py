"""Certified claims for the payment tests, and a second finance officer.

The claims' own actions (branch `claims`) are not needed to test payments: a claim is written
here as the claim's approval leaves it (state approved, certified, one share per funder), with
the ledger movements that approval makes (claim, then approve_claim), so the budget's nested
balances are what they would be.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from django.db import transaction
from django.utils import timezone
from django_otp.plugins.otp_totp.models import TOTPDevice
from tests.personas import FINANCE, SECOND_OFFICER, totp_key
from tests.service.grants.agreement_helpers import approved

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.accounts.second_factor import APP_DEVICE
from jobgrant.service.demo import DEMO_PASSWORD
from jobgrant.service.grants.models.agreements import Agreement, AgreementState
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.claims import Claim, ClaimShare, ClaimState
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount

SECOND_FINANCE = "finance-2"


def second_finance() -> User:
    """A second finance officer, with an authenticator as every staff member has."""
    found = User.objects.filter(username=SECOND_FINANCE).first()
    if found:
        return found
    made = User.objects.create_user(
        username=SECOND_FINANCE, password=DEMO_PASSWORD, role=Role.FINANCE
    )
    key = totp_key(SECOND_FINANCE)
    TOTPDevice.objects.create(user=made, name=APP_DEVICE, key=key, confirmed=True)
    return made


def finance() -> User:
    return FINANCE.get()


def accepted_file(**changes: Any) -> Application:
    agreement = approved(**changes)
    Agreement.objects.filter(pk=agreement.pk).update(state=AgreementState.ACCEPTED)
    return agreement.application


def account(application: Application, funder: str) -> BudgetAccount:
    return BudgetAccount.objects.get(
        funder=funder,
        jurisdiction=application.jurisdiction,
        fiscal_year=application.fiscal_year,
        stream=application.stream.code,
    )


def certified_claim(
    application: Application,
    federal: int,
    provincial: int = 0,
    *,
    number: int | None = None,
    amends: Claim | None = None,
    is_final: bool = False,
    certifier: User | None = None,
) -> Claim:
    """An approved claim of `federal` and `provincial` cents, certified by `certifier` (the
    second officer by default); an amendment supersedes the version it amends."""
    certifier = certifier or SECOND_OFFICER.get()
    with transaction.atomic():
        if amends is not None:
            Claim.objects.filter(pk=amends.pk).update(state=ClaimState.SUPERSEDED)
        number = amends.number if amends else number or (application.claims.count() + 1)
        version = amends.version + 1 if amends else 1
        now = timezone.now()
        claim = Claim.objects.create(
            application=application,
            agreement_version=application.agreement.versions.order_by("-number").first(),
            number=number,
            version=version,
            amends=amends,
            is_final=is_final,
            state=ClaimState.APPROVED,
            created_by=application.created_by,
            submitted_at=now,
            decided_by=certifier,
            decided_at=now,
            certified_by=certifier,
            certified_at=now,
            claimed_cents=federal + provincial,
            approved_cents=federal + provincial,
        )
        for funder, cents in (("federal", federal), ("provincial", provincial)):
            ClaimShare.objects.create(
                claim=claim, funder=funder, claimed_cents=cents, approved_cents=cents
            )
            if amends is None and cents:
                budget = account(application, funder)
                reference = f"claim:{claim.pk}"
                operations.claim(
                    budget, cents, actor="test", application=application, reference=reference
                )
                operations.approve_claim(
                    budget, cents, cents, actor="test", application=application, reference=reference
                )
    return claim


def confirmation_file(lines: list[tuple[str, str]], paid_on: str = "2026-11-30") -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(["document_number", "amount", "paid_on", "payment_reference"])
    for number, (document, amount) in enumerate(lines, start=1):
        writer.writerow([document, amount, paid_on, f"EFT-{number:05d}"])
    return buffer.getvalue().encode()


def exported_rows(content: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(content.decode("utf-8"))))


def confirm_all(content: bytes) -> bytes:
    """The paying system's answer to an export: every line paid as asked."""
    return confirmation_file(
        [(row["document_number"], row["amount"]) for row in exported_rows(content)]
    )
