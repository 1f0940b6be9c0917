"""The file for the paying system: the first export of an authorized batch moves it and its
payments to exported and keeps the file; every later download is that same file, byte for byte.
"""

from __future__ import annotations

import hashlib

from django.db import transaction
from django.utils import timezone

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.payments import (
    BatchState,
    PaymentBatch,
    RequestState,
)
from jobgrant.service.grants.payments.files import (
    ExportLine,
    export_csv,
    gl_coding,
)
from jobgrant.service.refusals import refused


@audited_refusals_of("paymentbatch")
def export_batch(user: User, batch: PaymentBatch) -> bytes:
    """The file for the paying system. The first export moves the batch and its payments to
    exported and keeps the file; every later download is that same file, byte for byte."""
    access.require_role(user, Role.FINANCE, Role.AUDITOR)
    if batch.export_sha256:
        return batch.export_csv.encode("utf-8")
    if user.role != Role.FINANCE:
        access.require_role(user, Role.FINANCE)
    with transaction.atomic():
        locked = PaymentBatch.objects.select_for_update().get(pk=batch.pk)
        if locked.export_sha256:
            return locked.export_csv.encode("utf-8")
        if locked.state != BatchState.AUTHORIZED:
            raise refused(
                409,
                "BATCH_NOT_AUTHORIZED",
                lambda: {"state": BatchState(locked.state).label},
                extra={"state": locked.state},
            )
        content = export_csv(_export_lines(locked))
        requests = locked.requests.filter(state=RequestState.AUTHORIZED)
        requests.update(state=RequestState.EXPORTED)
        locked.state, locked.exported_at = BatchState.EXPORTED, timezone.now()
        locked.export_csv = content.decode("utf-8")
        locked.export_sha256 = hashlib.sha256(content).hexdigest()
        locked.save(update_fields=["state", "exported_at", "export_csv", "export_sha256"])
        record(
            user.username,
            "payment_batch.export",
            "paymentbatch",
            locked.pk,
            {"sha256": locked.export_sha256, "requests": locked.requests_count},
        )
    return content


def _export_lines(batch: PaymentBatch) -> list[ExportLine]:
    rows = (
        batch.requests.filter(state=RequestState.AUTHORIZED)
        .order_by("id")
        .values_list(
            "document_number",
            "payee__business_number",
            "payee__name",
            "net_cents",
            "funder",
            "account__stream",
        )
    )
    return [
        ExportLine(
            number,
            business_number,
            payee,
            cents,
            batch.fiscal_year,
            funder,
            gl_coding(funder, batch.jurisdiction, batch.fiscal_year, stream),
        )
        for number, business_number, payee, cents, funder, stream in rows
    ]
