"""`jobgrant sin rekey`: every SIN held re-encrypted under the current key, its index recomputed.

Rotating the encryption key is: put the new key first in JOBGRANT_SIN_KEYS (the old ones after
it, so that what they sealed can still be read), run `jobgrant sin rekey`, then drop the old
keys. The blind index is under its own key (JOBGRANT_SIN_INDEX_KEY), which does not rotate, so
duplicate checks hold across a rotation; the command recomputes it too, which is how indexes made
under an encryption key (as they were once) move to the index key.

The organizations' direct-deposit account numbers are sealed under the same keys (with
associated data of their own, registry/bank_accounts.py): the command reseals them under the
current key too, and recomputes their index (under the index key, so unchanged across a
rotation, and the bank-account flags with it).

Rows are rewritten in batches, each batch in its own transaction with one audit entry giving the
counts (never a SIN, never an account number): a rekey interrupted part-way is finished by
running it again.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from jobgrant.service.audit.chain import record
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.registry import bank_accounts
from jobgrant.service.registry.identifiers import (
    current_key_id,
    decrypt_sin,
    encrypt_sin,
    sin_blind_index,
)
from jobgrant.service.registry.models import Employer, Trainee

ACTOR = "jobgrant sin rekey"
BATCH = 500
HOLDERS: tuple[type[Trainee] | type[Participant], ...] = (Trainee, Participant)


@dataclass
class Rekeyed:
    rows: int = 0  # rows holding a SIN
    rewritten: int = 0  # of them, re-encrypted or re-indexed
    accounts: int = 0  # organizations holding a direct-deposit account
    resealed: int = 0  # of them, resealed or re-indexed


def rekey_sins(batch: int = BATCH) -> Rekeyed:
    done = Rekeyed()
    for model in HOLDERS:
        ids = list(
            model.objects.exclude(sin_ciphertext=None).order_by("pk").values_list("pk", flat=True)
        )
        done.rows += len(ids)
        for start in range(0, len(ids), batch):
            done.rewritten += _rekey_batch(model, ids[start : start + batch])
    ids = list(
        Employer.objects.exclude(bank_account_ciphertext=None)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    done.accounts = len(ids)
    for start in range(0, len(ids), batch):
        done.resealed += _reseal_batch(ids[start : start + batch])
    return done


def _reseal_batch(ids: list[int]) -> int:
    """Reseal the direct-deposit account numbers of these organizations under the current key."""
    current, resealed = current_key_id(), 0
    with transaction.atomic():
        for row in Employer.objects.select_for_update().filter(pk__in=ids).order_by("pk"):
            if row.bank_account_ciphertext is None:  # cleared since the ids were read
                continue
            number = bank_accounts.open_sealed(
                row.bank_account_key_id, bytes(row.bank_account_ciphertext)
            )
            account = bank_accounts.BankAccount(row.bank_institution, row.bank_transit, number)
            index = bank_accounts.blind_index(account)
            if row.bank_account_key_id == current and row.bank_account_index == index:
                continue
            row.bank_account_key_id, row.bank_account_ciphertext = bank_accounts.seal(account)
            row.bank_account_index = index
            row.save(
                update_fields=[
                    "bank_account_key_id",
                    "bank_account_ciphertext",
                    "bank_account_index",
                ]
            )
            resealed += 1
        if resealed:
            summary = {"model": "employer", "rows": resealed, "key_id": current}
            record(ACTOR, "bank_account.rekey", "employer", "", summary)
    return resealed


def _rekey_batch(model: type[Trainee] | type[Participant], ids: list[int]) -> int:
    current, rewritten = current_key_id(), 0
    with transaction.atomic():
        for row in model.objects.select_for_update().filter(pk__in=ids).order_by("pk"):
            if row.sin_ciphertext is None:  # cleared since the ids were read
                continue
            number = decrypt_sin(row.sin_key_id, bytes(row.sin_ciphertext))
            index = sin_blind_index(number)
            if row.sin_key_id == current and row.sin_index == index:
                continue
            row.sin_key_id, row.sin_ciphertext = encrypt_sin(number)
            row.sin_index = index
            row.save(update_fields=["sin_key_id", "sin_ciphertext", "sin_index"])
            rewritten += 1
        if rewritten:
            summary = {"model": model._meta.model_name, "rows": rewritten, "key_id": current}
            record(ACTOR, "sin.rekey", str(model._meta.model_name), "", summary)
    return rewritten
