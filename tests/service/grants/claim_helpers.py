"""Files ready to claim for the claim tests: approved, accepted, trainees confirmed through their
links, the file assigned to an officer, and the clock at a day of the training."""

from __future__ import annotations

import datetime as dt
import hashlib
import struct
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import time_machine
from django.core.files.uploadedfile import SimpleUploadedFile
from tests.conftest import application_body
from tests.participants import SIN, answers, latest_link
from tests.personas import EMPLOYER, OFFICER, SECOND_OFFICER

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.agreements.actions import accept_agreement
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.applications import assignment as assignment_actions
from jobgrant.service.grants.claims import actions as claim_actions
from jobgrant.service.grants.claims.receipts import checked
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.claims import Claim
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.grants.participants import actions as slots

ALL_CONFIRMED = ["agreement", "cost_schedule", "general_terms"]
#: A day of the training of tests.conftest.application_body (2027-01-11 to 2027-03-26).
DURING_TRAINING = dt.datetime(2027, 1, 20, 15, 0, tzinfo=dt.UTC)


def trainee(
    tuition: str = "9000.00", status: str = "existing-employee", **costs: str
) -> dict[str, Any]:
    return {
        "employer_id": "acme",
        "status": status,
        "costs": {
            "tuition": tuition,
            "student_fees": "0.00",
            "materials": "0.00",
            "exam_fees": "0.00",
            **costs,
        },
    }


def approved_file(
    trainees: list[dict[str, Any]] | None = None, provider: str | None = None
) -> Application:
    """EMPLOYER's application, approved by two officers of Ontario and accepted; its applicant
    has an address for messages. `provider`: the training provider's name, if not the usual."""
    employer = EMPLOYER.get()
    User.objects.filter(pk=employer.pk).update(
        email="applicant@example.ca", preferred_language="en"
    )
    body = application_body(trainees=trainees or [trainee(), trainee(materials="600.00")])
    if provider is not None:
        body["training"]["provider"] = {**body["training"]["provider"], "name": provider}
    application = actions.create_application(employer, body)
    actions.submit_application(employer, application)
    actions.recommend_application(OFFICER.get(), application)
    actions.approve_application(SECOND_OFFICER.get(), application)
    agreement = Agreement.objects.get(application=application)
    accept_agreement(EMPLOYER.get(), agreement, "Pat Birch", "Owner", ALL_CONFIRMED)
    application.refresh_from_db()
    return application


def confirm(application: Application, position: int, sin: str = SIN) -> Participant:
    body = {"trainee": position, "email": f"trainee{position}@example.com", "language": "en"}
    participant = slots.invite_participant(EMPLOYER.get(), application, body)
    _, token = latest_link(participant)
    return slots.submit_participant_form(token, answers(sin=sin))


def invited(application: Application, position: int) -> Participant:
    body = {"trainee": position, "email": f"trainee{position}@example.com", "language": "en"}
    return slots.invite_participant(EMPLOYER.get(), application, body)


def assign(application: Application, officer: User | None = None) -> None:
    who = officer or OFFICER.get()
    assignment_actions.assign_application(who, application, who)


@contextmanager
def during_training() -> Iterator[None]:
    with time_machine.travel(DURING_TRAINING, tick=True):
        yield


def line(participant: Participant, category: str, amount: str) -> dict[str, Any]:
    return {"participant": participant.pk, "category": category, "amount": amount}


# --- Real files, made here -----------------------------------------------------------------------


def pdf_bytes(text: str = "Invoice 1042: tuition, paid in full") -> bytes:
    """A small, valid one-page PDF (objects, cross-reference table and trailer)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def png_bytes() -> bytes:
    """A valid 1x1 PNG (signature, IHDR, IDAT, IEND with their CRCs)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\xff\xff")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def jpeg_bytes() -> bytes:
    """A real JPEG, drawn by Pillow (a dependency of the plots)."""
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(out, format="JPEG")
    return out.getvalue()


def elf_bytes() -> bytes:
    """The header of a 64-bit Linux executable, as a renamed program starts."""
    return b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 + b"\x02\x00\x3e\x00" + b"\x00" * 200


def pe_bytes() -> bytes:
    """A Windows executable's DOS header (MZ) and PE signature."""
    dos = bytearray(b"MZ" + b"\x00" * 62)
    dos[0x3C:0x40] = struct.pack("<I", 64)
    return bytes(dos) + b"PE\x00\x00" + b"\x4c\x01" + b"\x00" * 200


def upload(content: bytes, name: str = "invoice.pdf") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/pdf")


def attach(
    claim: Claim, content: bytes | None = None, name: str = "invoice.pdf", invoice: object = None
) -> None:
    claim_actions.add_receipts(
        EMPLOYER.get(), claim, [checked(upload(content or pdf_bytes(), name))], invoice
    )


def sha(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def refusal(call: Any) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        call()
    return caught.value
