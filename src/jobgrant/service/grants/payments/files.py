"""The files exchanged with the paying system: the batch's export and the confirmation file.

Both are CSV (RFC 4180, UTF-8, CRLF). The export has one line per payment request, with the
columns the paying system reads: document number, business number, payee, amount, fiscal
year, funder, GL coding. The paying system answers with a confirmation file, one line per
payment it made: document number, amount, and (optional) the day it paid and its own reference.
Matching a confirmation file is done here as a pure function of the file and of what we know
about each document number, so the rules can be read and tested without a database.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from jobgrant.rules.money import AmountError, format_amount, parse_amount
from jobgrant.service.errors import ServiceError, bad_input, problem

EXPORT_COLUMNS = (
    "document_number",
    "business_number",
    "payee",
    "amount",
    "fiscal_year",
    "funder",
    "gl_coding",
)
CONFIRMATION_COLUMNS = ("document_number", "amount", "paid_on", "payment_reference")
REQUIRED_CONFIRMATION_COLUMNS = ("document_number", "amount")
MAX_CONFIRMATION_BYTES = 20 * 1024 * 1024
MAX_CONFIRMATION_LINES = 200_000
MAX_FIELD = 64

# CJG-ON-2026-0000001: program, jurisdiction, the fiscal year's first calendar year, a number
# counted per jurisdiction and fiscal year. Given once, when the request is made, never changed.
DOCUMENT_NUMBER = re.compile(r"^CJG-[A-Z]{2}-\d{4}-\d{7}$")
FUND_CODES = {"federal": "CJF-FED", "provincial": "CJF-PT"}
GRANT_OBJECT = "5500"  # transfer payments: grants (the object of expenditure)


def document_number(jurisdiction: str, fiscal_year: str, sequence: int) -> str:
    """The reconciliation key of a payment request: stable, unique, readable over the phone."""
    return f"CJG-{jurisdiction}-{fiscal_year[:4]}-{sequence:07d}"


def gl_coding(funder: str, jurisdiction: str, fiscal_year: str, stream: str) -> str:
    """fund.jurisdiction.fiscal-year.stream.object, e.g. CJF-FED.ON.2026-27.CJG.5500."""
    return ".".join((FUND_CODES[funder], jurisdiction, fiscal_year, stream, GRANT_OBJECT))


@dataclass(frozen=True)
class ExportLine:
    document_number: str
    business_number: str
    payee: str
    cents: int
    fiscal_year: str
    funder: str
    gl_coding: str


def _csv_safe(text: str) -> str:
    """A cell a spreadsheet will not run as a formula (payee names are typed by employers)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def export_csv(lines: Iterable[ExportLine]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(EXPORT_COLUMNS)
    for line in lines:
        writer.writerow(
            (
                line.document_number,
                line.business_number,
                _csv_safe(line.payee),
                format_amount(line.cents),
                line.fiscal_year,
                line.funder,
                line.gl_coding,
            )
        )
    return buffer.getvalue().encode("utf-8")


# --- The confirmation file -----------------------------------------------------------------


@dataclass(frozen=True)
class ConfirmationRow:
    line_number: int  # counting the header as line 1, as a spreadsheet shows it
    document_number: str
    amount: str
    paid_on: dt.date | None
    payment_reference: str


def _file_error(en: str, fr: str) -> ServiceError:
    return bad_input([problem("file", en, fr)])


def _no_header(missing: list[str], first: str) -> ServiceError:
    """The header the file must start with, and what its first line holds instead."""
    expected = ",".join(CONFIRMATION_COLUMNS)
    optional = [c for c in CONFIRMATION_COLUMNS if c not in REQUIRED_CONFIRMATION_COLUMNS]
    shown = first if len(first) <= 80 else first[:79] + "…"
    names = ", ".join(missing)
    return _file_error(
        f"must start with its header line, {expected} ({' and '.join(optional)} may be left "
        f"out); its first line, “{shown}”, has no column {names}",
        f"doit commencer par sa ligne d'en-tête, {expected} ({' et '.join(optional)} peuvent "
        f"être omises); sa première ligne, « {shown} », n'a pas de colonne {names}",
    )


def parse_confirmation_file(content: bytes) -> list[ConfirmationRow]:
    """The file's lines; a file that is not a confirmation file at all is refused whole (422,
    naming the problem), with nothing written. A bad line is kept: matching lists it."""
    if len(content) > MAX_CONFIRMATION_BYTES:
        raise _file_error(
            f"is larger than {MAX_CONFIRMATION_BYTES // 1024 // 1024} MB",
            f"dépasse {MAX_CONFIRMATION_BYTES // 1024 // 1024} Mo",
        )
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _file_error("is not UTF-8 text", "n'est pas un texte UTF-8") from None
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error:
        raise _file_error("is not a CSV file", "n'est pas un fichier CSV") from None
    if not rows:
        raise _file_error("is empty", "est vide")
    header = [cell.strip().lower() for cell in rows[0]]
    missing = [c for c in REQUIRED_CONFIRMATION_COLUMNS if c not in header]
    if missing:
        raise _no_header(missing, ",".join(rows[0]))
    if len(rows) - 1 > MAX_CONFIRMATION_LINES:
        raise _file_error(
            f"has more than {MAX_CONFIRMATION_LINES} lines",
            f"compte plus de {MAX_CONFIRMATION_LINES} lignes",
        )
    where = {name: header.index(name) for name in CONFIRMATION_COLUMNS if name in header}
    return [
        _row(number, cells, where)
        for number, cells in enumerate(rows[1:], start=2)
        if any(cell.strip() for cell in cells)
    ]


def _row(number: int, cells: list[str], where: dict[str, int]) -> ConfirmationRow:
    def cell(name: str) -> str:
        index = where.get(name)
        return cells[index].strip()[:MAX_FIELD] if index is not None and index < len(cells) else ""

    paid_on: dt.date | None
    try:
        paid_on = dt.date.fromisoformat(cell("paid_on")) if cell("paid_on") else None
    except ValueError:
        paid_on = None
    return ConfirmationRow(
        number, cell("document_number"), cell("amount"), paid_on, cell("payment_reference")
    )


@dataclass(frozen=True)
class Known:
    """What we know of a document number: its request, what it pays, whether it may be paid."""

    request_id: int
    net_cents: int
    awaiting: bool  # exported and not yet paid
    paid: bool


@dataclass(frozen=True)
class Matched:
    row: ConfirmationRow
    outcome: str  # a LineOutcome value
    request_id: int | None


def match(rows: list[ConfirmationRow], known: Callable[[str], Known | None]) -> list[Matched]:
    """Each line's outcome, in the order of the file:

    - unknown_document: not a document number we issued (or not one at all);
    - duplicate: the document was paid before, or is on an earlier line of this file;
    - no_match: the document exists but is not awaiting payment (not exported, or held);
    - wrong_amount: the amount is not a plain decimal amount, or not what the request pays;
    - reconciled: the paying system paid exactly what was asked.
    """
    seen: set[str] = set()
    outcomes = []
    for row in rows:
        found = known(row.document_number) if DOCUMENT_NUMBER.match(row.document_number) else None
        outcome = _outcome(row, found, row.document_number in seen)
        if found is not None:
            seen.add(row.document_number)
        outcomes.append(Matched(row, outcome, found.request_id if found else None))
    return outcomes


def _outcome(row: ConfirmationRow, found: Known | None, seen_before: bool) -> str:
    if found is None:
        return "unknown_document"
    if seen_before or found.paid:
        return "duplicate"
    if not found.awaiting:
        return "no_match"
    try:
        cents = parse_amount(row.amount)
    except AmountError:
        return "wrong_amount"
    return "reconciled" if cents == found.net_cents else "wrong_amount"
