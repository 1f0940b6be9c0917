"""A security finding: after a key rotation the same SIN could be registered twice — its blind index
was computed under the encryption key, so the new key gave it a new index. Reproduced first; now the
index has a key of its own, and `jobgrant sin rekey` re-encrypts every SIN under the new key."""

from __future__ import annotations

import base64
import secrets
from collections.abc import Iterator

import pytest
from django.db import connection
from django.test import override_settings
from tests.personas import APPLICANT, EMPLOYER

from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.participants.sin_keys import rekey_sins
from jobgrant.service.registry import actions
from jobgrant.service.registry.identifiers import forget_keys
from jobgrant.service.registry.models import Trainee

pytestmark = pytest.mark.django_db
SIN = "123456782"  # a test SIN (valid check digit)


def key() -> str:
    return base64.b64encode(secrets.token_bytes(32)).decode()


@pytest.fixture
def keys(settings) -> Iterator[dict[str, str]]:
    """Two encryption keys, old and new; the test rotates from one to the other."""
    made = {"old": f"k-old:{key()}", "new": f"k-new:{key()}"}
    settings.SIN_KEYS = made["old"]
    forget_keys()
    yield made
    forget_keys()


def rotate(settings, *key_list: str) -> None:
    settings.SIN_KEYS = ",".join(key_list)
    forget_keys()


def register(sin: str = SIN) -> Trainee:
    return actions.register_trainee(
        EMPLOYER.get(),
        {
            "given_name": "Amélie",
            "family_name": "Tremblay",
            "employer": APPLICANT.get().pk,
            "sin": sin,
        },
    )


def test_after_a_rotation_the_same_sin_cannot_register_twice(demo, keys, settings) -> None:
    register()
    rotate(settings, keys["new"], keys["old"])
    with pytest.raises(ServiceError) as refused:
        register()
    assert (refused.value.status, refused.value.code) == (409, "DUPLICATE_SIN")
    assert Trainee.objects.exclude(sin_ciphertext=None).count() == 1


def test_rekey_re_encrypts_every_sin_under_the_new_key(demo, keys, settings) -> None:
    first, second = register(), register("130692544")
    rotate(settings, keys["new"], keys["old"])
    done = rekey_sins(batch=1)
    assert (done.rows, done.rewritten) == (2, 2)
    assert set(
        Trainee.objects.exclude(sin_ciphertext=None).values_list("sin_key_id", flat=True)
    ) == {"k-new"}
    rotate(settings, keys["new"])  # the old key dropped: everything still reads
    assert Trainee.objects.get(pk=first.pk).sin() == SIN
    assert Trainee.objects.get(pk=second.pk).sin() == "130692544"
    with pytest.raises(ServiceError):
        register()  # and still only once
    entries = AuditEntry.objects.filter(action="sin.rekey")
    assert [e.summary["rows"] for e in entries] == [1, 1]
    assert all(SIN not in str(e.summary) for e in entries)
    assert verify().ok
    assert rekey_sins().rewritten == 0  # run again: nothing left to do


def test_the_index_is_not_any_encryption_key(demo, keys, settings) -> None:
    """The index key never appears among the encryption keys (development makes its own)."""
    index = base64.b64decode(settings.SIN_INDEX_KEY)
    assert all(base64.b64decode(k.split(":")[1]) != index for k in settings.SIN_KEYS.split(","))


def test_the_database_holds_ciphertext_only_after_rekeying(demo, keys, settings) -> None:
    register()
    rotate(settings, keys["new"], keys["old"])
    rekey_sins()
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT * FROM "{Trainee._meta.db_table}"')
        rows = cursor.fetchall()
    assert rows and all(SIN not in repr(row) for row in rows)


@override_settings(SIN_INDEX_KEY=base64.b64encode(b"short").decode())
def test_an_index_key_of_the_wrong_length_is_refused() -> None:
    from jobgrant.service.registry.identifiers import sin_blind_index

    forget_keys()
    with pytest.raises(ValueError, match="32-byte"):
        sin_blind_index(SIN)
    forget_keys()


ACCOUNT = {"institution": "003", "transit": "01234", "account": "87654321"}


def test_rekey_reseals_the_direct_deposit_accounts_under_the_new_key(demo, keys, settings) -> None:
    """A rotation, then `jobgrant sin rekey`: the account number reads right under the new key
    alone, no longer under the old one; its index (so its flags) is unchanged."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    from jobgrant.service.grants.integrity.direct_deposit import set_bank_account
    from jobgrant.service.registry.bank_accounts import AAD, open_sealed
    from jobgrant.service.registry.models import Employer

    set_bank_account(EMPLOYER.get(), APPLICANT.get(), ACCOUNT)
    before = Employer.objects.get(pk=APPLICANT.get().pk)
    assert before.bank_account_key_id == "k-old"
    rotate(settings, keys["new"], keys["old"])
    done = rekey_sins(batch=1)
    assert (done.accounts, done.resealed) == (1, 1)
    after = Employer.objects.get(pk=before.pk)
    assert after.bank_account_key_id == "k-new"
    assert after.bank_account_index == before.bank_account_index
    assert after.masked_bank_account == before.masked_bank_account
    blob = bytes(after.bank_account_ciphertext)
    rotate(settings, keys["new"])  # the old key dropped: the account still reads
    assert open_sealed(after.bank_account_key_id, blob) == "87654321"
    old_key = base64.b64decode(keys["old"].split(":")[1])
    with pytest.raises(InvalidTag):  # and the old key no longer opens it
        AESGCM(old_key).decrypt(blob[:12], blob[12:], AAD)
    entry = AuditEntry.objects.get(action="bank_account.rekey")
    assert entry.summary == {"model": "employer", "rows": 1, "key_id": "k-new"}
    assert "87654321" not in str(entry.summary) and verify().ok
    assert rekey_sins().resealed == 0  # run again: nothing left to do
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT * FROM "{Employer._meta.db_table}"')
        assert all("87654321" not in repr(row) for row in cursor.fetchall())
