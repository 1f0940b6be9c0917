"""The seeded database (tests/seeded.py): a test process's database starts as it, and putting it
back after a transactional test leaves the seeded rows, and only them, whatever the test wrote."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection, transaction
from tests import conftest, seeded

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.chain import record
from jobgrant.service.audit.models import AuditEntry


@pytest.mark.django_db(transaction=True)
def test_putting_the_database_back_removes_what_a_test_wrote_and_keeps_the_seeded_rows() -> None:
    assert conftest.SEEDED, "this process's database did not start as the seeded one"
    users, entries = User.objects.count(), AuditEntry.objects.count()
    assert User.objects.filter(username="demo-employer").exists()  # the demonstration data
    User.objects.create_user(username="written-by-the-test")
    User.objects.filter(username="demo-employer").update(first_name="Changed")
    with transaction.atomic():  # append-only, and put back too
        record("written-by-the-test", "user.create", "user", 1, {})
    if conftest.SEEDED[0] == "postgresql":
        seeded.restore_postgres(connection)
    else:
        seeded.restore_sqlite(connection, Path(conftest.SEEDED[0]))
    assert (User.objects.count(), AuditEntry.objects.count()) == (users, entries)
    assert not User.objects.filter(username="written-by-the-test").exists()
    assert User.objects.get(username="demo-employer").first_name != "Changed"
