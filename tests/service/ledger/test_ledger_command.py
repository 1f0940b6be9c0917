"""`jobgrant ledger verify` run as a separate process: clean on a sound ledger, and naming the
difference (exit 1) when a budget row no longer equals its postings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import transaction
from django.db.models import F
from tests.service.audit.test_audit_command import database_url

from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount


def run_verify() -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).with_name("jobgrant")), "ledger", "verify"],
        env={**os.environ, "JOBGRANT_DATABASE_URL": database_url()},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.django_db(transaction=True)
def test_the_command_is_clean_then_names_the_balance_that_differs(demo: None) -> None:
    account = BudgetAccount.objects.create(
        funder="federal", jurisdiction="ON", fiscal_year="2099-00", stream="CJG"
    )
    with transaction.atomic():
        operations.allocate(account, 1_000_000, actor="test")
        operations.commit(account, 250_000, actor="test", application=None)
    clean = run_verify()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert clean.stdout.startswith("ledger balanced:")
    # a balance changed without its postings (as a bad migration or a hand edit would)
    BudgetAccount.objects.filter(pk=account.pk).update(committed_cents=F("committed_cents") + 1)
    broken = run_verify()
    assert broken.returncode == 1
    assert (
        f"{account}: committed is 250001 cents on the budget row, 250000 by its postings"
        in broken.stdout
    )
