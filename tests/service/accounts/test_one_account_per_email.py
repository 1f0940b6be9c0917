"""One account per email address, held by the database itself (a unique index on lower(email),
blank addresses aside), beside the code's checks that say so first; and the migration that
builds the index stops, naming the accounts, when addresses are already shared."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.db import IntegrityError, connection, transaction
from tests.personas import EMPLOYER, OFFICER

from jobgrant.service.accounts.models import User

pytestmark = pytest.mark.django_db
MIGRATION = importlib.import_module(
    "jobgrant.service.accounts.migrations.0009_one_account_per_email"
)


def test_the_database_refuses_an_address_another_account_has_whatever_its_case(
    demo: None,
) -> None:
    taken = OFFICER.get().email
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(username="squatter", email=taken.upper())
    with pytest.raises(IntegrityError), transaction.atomic():  # a change of address too
        User.objects.filter(username=EMPLOYER.username).update(email=taken.capitalize())
    assert User.objects.filter(email__iexact=taken).count() == 1


def test_accounts_without_an_address_are_not_refused(demo: None) -> None:
    User.objects.create(username="no-address-1", email="")
    User.objects.create(username="no-address-2", email="")
    assert User.objects.filter(email="").count() >= 2


def test_the_migration_stops_on_addresses_already_shared(demo: None) -> None:
    with connection.cursor() as cursor:  # as it was before the migration (rolled back after)
        cursor.execute(f'DROP INDEX "{MIGRATION.NAME}"')
    User.objects.create(username="twin", email=OFFICER.get().email.upper())
    with pytest.raises(RuntimeError) as stopped:
        MIGRATION.refuse_shared_addresses(apps, None)
    said = str(stopped.value)
    assert "1 email address(es) are used by more than one account" in said
    assert OFFICER.username in said and "twin" in said
    User.objects.filter(username="twin").update(email="twin@example.org")
    MIGRATION.refuse_shared_addresses(apps, None)  # nothing shared: it goes on
