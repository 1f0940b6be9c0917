"""What each risk flag looks for, worked out from the rows jobgrant holds.

Each check returns its findings (kind, subject, figures); `actions.sync` turns them into flags.
The figures are data (cents, counts, names, dates), never a SIN or an account number: the
sentence that says why is written from them in the reader's language (sentences.py). The
thresholds are dated, sourced parameters of the rules kernel (cjg.integrity.*), read under the
application's policy on its application date, and kept in the figures with their source.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from jobgrant.rules.money import AmountError, parse_amount
from jobgrant.service.grants.agreements.document import parameter_of
from jobgrant.service.grants.integrity.declarations import Declared, declared
from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.grants.models.claims import Claim, Receipt
from jobgrant.service.grants.models.integrity import FlagKind, SubmittedTraining
from jobgrant.service.grants.models.participants import Participant, ParticipantState
from jobgrant.service.grants.models.payments import Receivable
from jobgrant.service.registry.identifiers import normalize_postal_code, phone_digits
from jobgrant.service.registry.models import Employer

COST_CATEGORIES = ("tuition", "student_fees", "materials", "exam_fees")
#: The files whose prices count as usual: sent to the officers and not withdrawn or denied.
PRICED_STATES = (State.SUBMITTED, State.RECOMMENDED, State.APPROVED)
#: The kinds worked out again whenever the application is submitted.
APPLICATION_KINDS = (
    FlagKind.RELATED_PROVIDER,
    FlagKind.PREPARED_BY_PROVIDER,
    FlagKind.PRICE_ABOVE_USUAL,
    FlagKind.SHARED_BANK_ACCOUNT,
    FlagKind.PROVIDER_RECEIVABLES,
)
NAMES_SHOWN = 5  # other organizations named in a figure; the count says how many in all

PRICE_PERCENT = "cjg.integrity.price_above_usual_percent"
PRICE_COMPARISONS = "cjg.integrity.price_comparisons_min"
TRAINEE_MAX = "cjg.integrity.trainee_government_across_years_max"
PROVIDER_RECEIVABLES = "cjg.integrity.provider_files_with_receivables_min"


@dataclass(frozen=True)
class Finding:
    kind: str
    subject: str
    figures: dict[str, Any]
    claim_id: int | None = field(default=None)


@dataclass(frozen=True)
class Training:
    """The training an application names, as the flags compare it."""

    provider_key: str
    provider_name: str
    course_key: str
    course_name: str
    trainees: int
    cost_per_trainee_cents: int


def name_key(name: str) -> str:
    """A name as a key: case, accents kept, punctuation and repeated spaces dropped."""
    return " ".join(re.sub(r"[^\w]+", " ", str(name).casefold()).split())


def training_of(application: Application) -> Training:
    request = application.request if isinstance(application.request, dict) else {}
    training = request.get("training") or {}
    provider = str((training.get("provider") or {}).get("name") or "").strip()
    course = str(training.get("course") or "").strip()
    trainees = [t for t in request.get("trainees") or [] if isinstance(t, dict)]
    total = sum(_costs(trainee) for trainee in trainees)
    return Training(
        provider_key=name_key(provider)[:200],
        provider_name=provider[:200],
        course_key=name_key(course)[:200],
        course_name=course[:200],
        trainees=len(trainees),
        cost_per_trainee_cents=total // len(trainees) if trainees else 0,
    )


def _costs(trainee: dict[str, Any]) -> int:
    costs = trainee.get("costs") or {}
    total = 0
    for category in COST_CATEGORIES:
        try:
            total += parse_amount(costs.get(category, "0"))
        except AmountError:
            continue  # the quote refused it already; nothing to compare
    return total


def parameter(name: str, application: Application) -> dict[str, Any]:
    """A threshold as the application's policy sets it on its application date, with its
    source (kept in the flag's figures)."""
    found = parameter_of(name, application, application.received_on)
    return {
        "name": name,
        "value": int(found.value or 0),
        "effective": found.effective.isoformat(),
        "reference": [reference.as_dict() for reference in found.reference],
    }


def applicants(application: Application) -> list[Employer]:
    return [link.employer for link in application.employers.select_related("employer")]


# --- A provider related to the employer ------------------------------------------------------


def related_provider(
    application: Application,
    declaration: Declared | None,
    employers: list[Employer] | None = None,
) -> list[Finding]:
    """`employers`: the file's applicants, when the caller read them already."""
    if declaration is None:
        return []
    found: list[Finding] = []
    if declaration.related_to_provider:
        figures = {"relations": list(declaration.relations)}
        found.append(Finding(FlagKind.RELATED_PROVIDER, "declared", figures))
    for employer in employers if employers is not None else applicants(application):
        found.extend(_same_as_employer(employer, declaration))
    return found


def _same_as_employer(employer: Employer, declaration: Declared) -> Iterable[Finding]:
    named = {"employer": employer.name, "business_number": employer.business_number}
    if declaration.provider_business_number[:9] == employer.business_number:
        yield Finding(FlagKind.RELATED_PROVIDER, f"business_number:{employer.pk}", named)
    if _same_address(employer, declaration):
        figures = {**named, "postal_code": employer.postal_code}
        yield Finding(FlagKind.RELATED_PROVIDER, f"address:{employer.pk}", figures)
    phone = phone_digits(declaration.provider_phone)
    if phone and phone == phone_digits(employer.phone):
        figures = {**named, "phone": employer.phone, "provider_phone": declaration.provider_phone}
        yield Finding(FlagKind.RELATED_PROVIDER, f"phone:{employer.pk}", figures)
    provider = _provider_organization(declaration)
    if provider is not None and provider.pk != employer.pk and _same_account(provider, employer):
        figures = {**named, "provider": provider.name}
        yield Finding(FlagKind.RELATED_PROVIDER, f"bank_account:{employer.pk}", figures)


def _same_address(employer: Employer, declaration: Declared) -> bool:
    postal = normalize_postal_code(declaration.provider_postal_code)
    street = name_key(declaration.provider_street_address)
    return bool(
        postal
        and street
        and postal == employer.postal_code
        and street == name_key(employer.street_address)
    )


def _provider_organization(declaration: Declared) -> Employer | None:
    """The provider, when it is itself an organization registered with jobgrant."""
    number = declaration.provider_business_number[:9]
    return Employer.objects.filter(business_number=number).first() if number else None


def _same_account(one: Employer, other: Employer) -> bool:
    return bool(one.bank_account_index) and one.bank_account_index == other.bank_account_index


# --- An application prepared by the provider -------------------------------------------------


def prepared_by_provider(declaration: Declared | None) -> list[Finding]:
    if declaration is None or declaration.prepared_by != "provider":
        return []
    figures = {
        "preparer": declaration.preparer_name,
        "fee_cents": declaration.preparer_fee_cents,
    }
    return [Finding(FlagKind.PREPARED_BY_PROVIDER, "declared", figures)]


# --- A price far above the usual -------------------------------------------------------------


def price_above_usual(application: Application, training: Training) -> list[Finding]:
    if training.cost_per_trainee_cents <= 0:
        return []
    percent = parameter(PRICE_PERCENT, application)
    least = parameter(PRICE_COMPARISONS, application)
    others = SubmittedTraining.objects.filter(application__state__in=PRICED_STATES).exclude(
        application_id=application.pk
    )
    compared = {
        "provider": (training.provider_name, others.filter(provider_key=training.provider_key)),
        "course": (training.course_name, others.filter(course_key=training.course_key)),
    }
    found = []
    for subject, (name, rows) in compared.items():
        if not name:
            continue
        prices = list(rows.values_list("cost_per_trainee_cents", flat=True))
        if len(prices) < least["value"] or not prices:
            continue
        usual = int(statistics.median_low(prices))
        if usual > 0 and training.cost_per_trainee_cents * 100 >= usual * percent["value"]:
            figures = {
                "name": name,
                "price_cents": training.cost_per_trainee_cents,
                "usual_cents": usual,
                "files": len(prices),
                "percent": training.cost_per_trainee_cents * 100 // usual,
                "threshold": percent,
                "least_files": least,
            }
            found.append(Finding(FlagKind.PRICE_ABOVE_USUAL, subject, figures))
    return found


# --- A bank account shared by unrelated employers --------------------------------------------


def shared_bank_account(
    application: Application, employers: list[Employer] | None = None
) -> list[Finding]:
    employers = employers if employers is not None else applicants(application)
    in_file = {employer.pk for employer in employers}
    found = []
    for employer in employers:
        if not employer.bank_account_index:
            continue
        others = list(
            Employer.objects.filter(bank_account_index=employer.bank_account_index)
            .exclude(pk__in=in_file)
            .order_by("name")
            .values_list("name", "business_number")
        )
        if others:
            figures = {
                "employer": employer.name,
                "account": employer.masked_bank_account,
                "others": [f"{name} ({number})" for name, number in others[:NAMES_SHOWN]],
                "count": len(others),
            }
            found.append(Finding(FlagKind.SHARED_BANK_ACCOUNT, f"employer:{employer.pk}", figures))
    return found


# --- A provider with many files that later had receivables -----------------------------------


def provider_receivables(application: Application, training: Training) -> list[Finding]:
    if not training.provider_key:
        return []
    least = parameter(PROVIDER_RECEIVABLES, application)
    files = SubmittedTraining.objects.filter(provider_key=training.provider_key).exclude(
        application_id=application.pk
    )
    with_receivables = (
        Receivable.objects.filter(application_id__in=files.values("application_id"))
        .values("application_id")
        .distinct()
        .count()
    )
    if not least["value"] or with_receivables < least["value"]:
        return []
    figures = {
        "name": training.provider_name,
        "files": files.count(),
        "with_receivables": with_receivables,
        "threshold": least,
    }
    return [Finding(FlagKind.PROVIDER_RECEIVABLES, "provider", figures)]


def on_submission(application: Application, training: Training) -> list[Finding]:
    """Every finding worked out when the application is submitted (APPLICATION_KINDS)."""
    declaration = declared(application)
    employers = applicants(application)  # read once for the two findings that look at them
    return [
        *related_provider(application, declaration, employers),
        *prepared_by_provider(declaration),
        *price_above_usual(application, training),
        *shared_bank_account(application, employers),
        *provider_receivables(application, training),
    ]


# --- A receipt used in another file ----------------------------------------------------------


def reused_receipts(claim: Claim) -> list[Finding]:
    """Each receipt of the claim whose bytes (SHA-256) are also a receipt of another file."""
    found = []
    for receipt in claim.receipts.order_by("id"):
        others = sorted(
            set(
                Receipt.objects.filter(sha256=receipt.sha256)
                .exclude(claim__application_id=claim.application_id)
                .values_list("claim__application_id", flat=True)
            )
        )
        if others:
            figures = {"receipt": receipt.original_name, "files": others, "count": len(others)}
            # One flag per claim and receipt: a later claim of the file may hold it again.
            subject = f"claim:{claim.pk}:sha256:{receipt.sha256}"
            found.append(Finding(FlagKind.RECEIPT_REUSED, subject, figures, claim_id=claim.pk))
    return [*found, *reused_invoices(claim)]


def reused_invoices(claim: Claim) -> list[Finding]:
    """Each invoice number of the claim's receipts (by its key: case, spaces, dashes and leading
    zeros aside) also given on a receipt of another file whose training provider is the same
    (by its name's key): one finding per claim and number, naming the other files."""
    provider = training_of(claim.application)
    if not provider.provider_key:
        return []
    numbered: dict[str, list[Receipt]] = {}
    for receipt in claim.receipts.exclude(invoice_key="").order_by("id"):
        numbered.setdefault(receipt.invoice_key, []).append(receipt)
    found = []
    for key, receipts in numbered.items():
        others = sorted(
            set(
                Receipt.objects.filter(
                    invoice_key=key,
                    claim__application__submitted_training__provider_key=provider.provider_key,
                )
                .exclude(invoice_key="")  # what the index holds (receipt_by_invoice)
                .exclude(claim__application_id=claim.application_id)
                .values_list("claim__application_id", flat=True)
            )
        )
        if others:
            figures = {
                "receipt": ", ".join(receipt.original_name for receipt in receipts),
                "invoice": receipts[0].invoice_number,
                "provider": provider.provider_name,
                "files": others,
                "count": len(others),
            }
            subject = f"claim:{claim.pk}:invoice:{key}"
            found.append(Finding(FlagKind.RECEIPT_REUSED, subject, figures, claim_id=claim.pk))
    return found


# --- A trainee funded across years -----------------------------------------------------------

#: The slots whose government money the trainee got (confirmed, then reported on).
FUNDED_SLOTS = (ParticipantState.CONFIRMED, ParticipantState.OUTCOME_REPORTED)


def trainee_across_years(
    participant: Participant, government_cents: Callable[[Application, int], int]
) -> list[Finding]:
    """The person's confirmed slots in approved files (by the SIN's blind index), whatever the
    fiscal year: flagged when they span more than one year and their government money passes
    the threshold. `government_cents` reads a slot's money from its file's stored quote."""
    if not participant.sin_index or participant.state not in FUNDED_SLOTS:
        return []
    slots = list(
        Participant.objects.filter(
            sin_index=participant.sin_index,
            state__in=FUNDED_SLOTS,
            application__state=State.APPROVED,
        )
        .select_related("application")
        .order_by("application_id")
    )
    years = sorted({slot.application.fiscal_year for slot in slots})
    total = sum(government_cents(slot.application, slot.position) for slot in slots)
    most = parameter(TRAINEE_MAX, participant.application)
    if len(years) < 2 or total <= most["value"]:
        return []
    figures = {
        "trainee": participant.position + 1,
        "files": sorted({slot.application_id for slot in slots}),
        "years": years,
        "government_cents": total,
        "threshold": most,
    }
    return [Finding(FlagKind.TRAINEE_ACROSS_YEARS, trainee_subject(participant), figures)]


def trainee_subject(participant: Participant) -> str:
    return f"participant:{participant.pk}"
