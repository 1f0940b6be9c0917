"""`jobgrant sin rekey`: every SIN held re-encrypted under the current key, its index recomputed.

Rotating the encryption key is: put the new key first in JOBGRANT_SIN_KEYS (the old ones after
it, so that what they sealed can still be read), run `jobgrant sin rekey`, then drop the old
keys. The blind index is under its own key (JOBGRANT_SIN_INDEX_KEY), which does not rotate, so
duplicate checks hold across a rotation; the command recomputes it too, which is how indexes made
under an encryption key (as they were once) move to the index key.

Rows are rewritten in batches, each batch in its own transaction with one audit entry giving the
counts (never a SIN): a rekey interrupted part-way is finished by running it again.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from jobgrant.service.audit.chain import record
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.registry.identifiers import (
    current_key_id,
    decrypt_sin,
    encrypt_sin,
    sin_blind_index,
)
from jobgrant.service.registry.models import Trainee

ACTOR = "jobgrant sin rekey"
BATCH = 500
HOLDERS: tuple[type[Trainee] | type[Participant], ...] = (Trainee, Participant)


@dataclass
class Rekeyed:
    rows: int = 0  # rows holding a SIN
    rewritten: int = 0  # of them, re-encrypted or re-indexed


def rekey_sins(batch: int = BATCH) -> Rekeyed:
    done = Rekeyed()
    for model in HOLDERS:
        ids = list(
            model.objects.exclude(sin_ciphertext=None).order_by("pk").values_list("pk", flat=True)
        )
        done.rows += len(ids)
        for start in range(0, len(ids), batch):
            done.rewritten += _rekey_batch(model, ids[start : start + batch])
    return done


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
