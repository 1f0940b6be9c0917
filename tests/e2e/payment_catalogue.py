"""The finance officer's payment and recovery pages in the axe pass of test_accessibility.py
(T16): payments (build, in its error state), a batch awaiting authorization (hold, in its error
state), its authorization's confirmation, an exported batch (import, in its error state), a
confirmation file with unmatched lines, the receivables and one receivable (a repayment in its
error state), a budget's drill-down and one application in it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def payments_to_make(make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """Two certified claims: one batch built by another finance officer (demo-finance may
    authorize it); one exported, with a confirmation file of one good and one unknown line;
    a receivable on the paid file."""
    from tests.personas import OFFICER
    from tests.service.grants.payment_helpers import (
        accepted_file,
        account,
        certified_claim,
        confirm_all,
    )

    from jobgrant.service.accounts.models import Role, User
    from jobgrant.service.grants.payments import batches as payment_batches
    from jobgrant.service.grants.payments import confirmation as payment_confirmation
    from jobgrant.service.grants.payments import export as payment_export
    from jobgrant.service.grants.payments import recovery as recovery_actions

    builder = User.objects.create_user(username="e2e-finance-2", role=Role.FINANCE)
    finance = User.objects.get(username="demo-finance")
    pool = {"jurisdiction": "ON", "fiscal_year": "2026-27"}
    paid = accepted_file()
    certified_claim(paid, federal=300_000, provincial=100_000)
    exported = payment_batches.build_batch(builder, pool)
    payment_batches.authorize_batch(finance, exported)
    content = payment_export.export_batch(finance, exported)
    answer = confirm_all(content) + b"CJG-ON-2026-9999999,10.00,2026-11-30,X\r\n"
    imported = payment_confirmation.import_confirmations(finance, exported, answer)
    waiting = accepted_file()
    certified_claim(waiting, federal=150_000)
    built = payment_batches.build_batch(builder, pool)
    receivable = recovery_actions.raise_by_hand(
        OFFICER.get(),
        {
            "application": paid.pk,
            "funder": "federal",
            "cause": "not_completed",
            "amount": "500.00",
            "reason": "Trainee 1 left in week 2.",
        },
    )
    return {
        "built": built.pk,
        "exported": exported.pk,
        "import": imported.confirmation.pk,
        "receivable": receivable.pk,
        "account": account(paid, "federal").pk,
        "application": paid.pk,
    }


def payment_groups(group: Any, visit: Any, click: Any, fill_and_click: Any) -> tuple[Any, ...]:
    Group, Visit = group, visit  # noqa: N806 - read as the classes they are
    return (
        Group(
            "finance payments",
            "demo-finance",
            (
                Visit("web:finance-payments", error=click("#build-button")),
                Visit(
                    "web:finance-batch",
                    kwargs=lambda made: {"batch_id": made["built"]},
                    error=click("#hold-button"),
                    label="awaiting authorization",
                ),
                Visit(
                    "web:finance-batch-authorize", kwargs=lambda made: {"batch_id": made["built"]}
                ),
                Visit(
                    "web:finance-batch",
                    kwargs=lambda made: {"batch_id": made["exported"]},
                    error=click("#confirm-button"),
                    label="exported",
                ),
                Visit(
                    "web:finance-confirmation",
                    kwargs=lambda made: {"batch_id": made["exported"], "import_id": made["import"]},
                ),
                Visit("web:finance-receivables"),
                Visit(
                    "web:finance-receivable",
                    kwargs=lambda made: {"receivable_id": made["receivable"]},
                    error=click("#repay-button"),
                ),
                Visit("web:finance-budget", kwargs=lambda made: {"account_id": made["account"]}),
                Visit(
                    "web:finance-budget-application",
                    kwargs=lambda made: {
                        "account_id": made["account"],
                        "application_id": made["application"],
                    },
                ),
            ),
            setup=payments_to_make,
        ),
    )


PAYMENT_EXCLUDED: dict[str, str] = {
    "web:finance-batch-hold": "POST only; on bad input it renders the batch's page, checked as "
    "finance-batch [error]",
    "web:finance-payment-lift": "POST only (Lift the hold), redirects to the batch's page",
    "web:finance-batch-confirm": "POST only (a file upload); on a bad file it renders the "
    "batch's page, checked as finance-batch (exported) [error]",
    "web:finance-batch-export": "a CSV download, not a page",
    "web:finance-receivable-repay": "POST only; on bad input it renders the receivable's page, "
    "checked as finance-receivable [error]",
    "web:finance-receivable-write-off": "POST only; on bad input or a refusal it renders the "
    "receivable's page, as finance-receivable [error] does",
}
