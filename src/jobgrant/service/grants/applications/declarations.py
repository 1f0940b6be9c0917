"""The declarations an application carries: checked whole, saved whole, required to submit.

The body's `declarations` object (the API's, and the one the web form builds) is read here and
nowhere else: every problem is named by its path (`declarations.preparer_fee`) in English and in
French, and nothing is written unless every field is right. Saving it writes its audit entry in
the caller's transaction; submitting an application without one is refused (422).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from django.utils import timezone

from jobgrant.rules.money import AmountError, format_amount, parse_amount
from jobgrant.rules.requests import has_control_characters
from jobgrant.service import rows
from jobgrant.service.accounts.models import User
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import ServiceError, bad_input, problem
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.declarations import (
    ApplicationDeclaration,
    PreparedBy,
    Relation,
)
from jobgrant.service.registry.identifiers import (
    normalize_business_number,
    normalize_phone,
    normalize_postal_code,
)

KEY = "declarations"
NAME_MAX = 200
CITY_MAX = 100
REQUIRED = frozenset(
    {
        "prepared_by",
        "related_to_provider",
        "other_funding",
        "provider_public_institution",
        "provider_street_address",
        "provider_city",
        "provider_postal_code",
        "provider_phone",
        "trainer_name",
        "trainer_attests_no_conflict",
        "employer_attests_no_conflict",
    }
)
OPTIONAL = frozenset(
    {
        "preparer_name",
        "preparer_fee",
        "relations",
        "other_funding_program",
        "other_funding_amount",
        "provider_business_number",
    }
)
Words = tuple[str, str]
MISSING: Words = ("is required", "est obligatoire")
NOT_YES_NO: Words = ("must be true or false", "doit être true ou false")


@dataclass(frozen=True)
class Declared:
    """A declaration checked whole: the model's fields, as they are saved."""

    prepared_by: str
    preparer_name: str
    preparer_fee_cents: int | None
    related_to_provider: bool
    relations: list[str]
    other_funding: bool
    other_funding_program: str
    other_funding_cents: int | None
    provider_public_institution: bool
    provider_business_number: str
    provider_street_address: str
    provider_city: str
    provider_postal_code: str
    provider_phone: str
    trainer_name: str
    trainer_attests_no_conflict: bool
    employer_attests_no_conflict: bool


class _Reader:
    """Reads one field after another, keeping every problem rather than stopping at the first."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        self.problems: list[dict[str, str]] = []

    def wrong(self, key: str, words: Words) -> None:
        self.problems.append(problem(f"{KEY}.{key}", *words))

    def named(self, key: str) -> bool:
        """Whether a problem with `key` was found already (checked no further)."""
        return any(p["field"] == f"{KEY}.{key}" for p in self.problems)

    def yes_no(self, key: str) -> bool:
        value = self.raw.get(key)
        if type(value) is not bool:
            self.wrong(key, MISSING if value is None else NOT_YES_NO)
            return False
        return value

    def text(self, key: str, most: int, *, required: bool = True) -> str:
        value = self.raw.get(key)
        if value is not None and not isinstance(value, str):
            self.wrong(key, NOT_TEXT)
            return ""
        typed = (value or "").strip()
        if required and not typed:
            self.wrong(key, MISSING)
        elif len(typed) > most:
            self.wrong(key, at_most(most))
        elif has_control_characters(typed):
            self.wrong(key, ODD_CHARACTERS)
        return typed

    def amount(self, key: str) -> int | None:
        value = self.raw.get(key)
        if value is None or value == "":
            self.wrong(key, MISSING)
            return None
        try:
            return parse_amount(value if isinstance(value, str) else None)
        except AmountError:
            self.wrong(key, NOT_AN_AMOUNT)
            return None

    def attested(self, key: str) -> bool:
        if self.raw.get(key) is not True:
            self.wrong(key, NOT_ATTESTED)
        return True


NOT_TEXT: Words = ("must be text", "doit être du texte")
ODD_CHARACTERS: Words = (
    "must hold only letters, digits, spaces and punctuation",
    "ne doit contenir que des lettres, des chiffres, des espaces et de la ponctuation",
)
NOT_AN_AMOUNT: Words = (
    "must be an amount in dollars with at most two decimals, like 1500.00",
    "doit être un montant en dollars d'au plus deux décimales, par exemple 1500.00",
)
NOT_ATTESTED: Words = (
    "must be true: the application cannot be submitted without this attestation",
    "doit être true : la demande ne peut être présentée sans cette attestation",
)


def at_most(most: int) -> Words:
    return (f"must have at most {most} characters", f"doit compter au plus {most} caractères")


def checked_declaration(raw: object) -> Declared:
    """The declarations object checked whole, or a 422 naming every field at fault."""
    if not isinstance(raw, dict):
        raise bad_input([problem(KEY, "must be a JSON object", "doit être un objet JSON")])
    read = _Reader(raw)
    for key in sorted(raw.keys() - REQUIRED - OPTIONAL):
        read.wrong(key, ("is not a known field", "n'est pas un champ connu"))
    declared = Declared(
        **_preparer(read),
        **_relations(read),
        **_other_funding(read),
        **_provider(read),
        trainer_name=read.text("trainer_name", NAME_MAX),
        trainer_attests_no_conflict=read.attested("trainer_attests_no_conflict"),
        employer_attests_no_conflict=read.attested("employer_attests_no_conflict"),
    )
    if read.problems:
        raise bad_input(read.problems)
    return declared


def _preparer(read: _Reader) -> dict[str, Any]:
    """Who prepared it; a consultant or the provider is named, with the fee the employer pays."""
    prepared_by = read.raw.get("prepared_by")
    if prepared_by not in PreparedBy.values:
        words = MISSING if prepared_by is None else ONE_OF_PREPARERS
        read.wrong("prepared_by", words)
        return {"prepared_by": "", "preparer_name": "", "preparer_fee_cents": None}
    if prepared_by == PreparedBy.EMPLOYER:
        _nothing_more(read, "preparer_name", "preparer_fee", because=EMPLOYER_PREPARED)
        return {"prepared_by": prepared_by, "preparer_name": "", "preparer_fee_cents": None}
    return {
        "prepared_by": prepared_by,
        "preparer_name": read.text("preparer_name", NAME_MAX),
        "preparer_fee_cents": read.amount("preparer_fee"),
    }


ONE_OF_PREPARERS: Words = (
    "must be one of employer, consultant, provider",
    "doit être l'une des valeurs employer, consultant, provider",
)
EMPLOYER_PREPARED: Words = (
    "must be left out when the employer prepared the application",
    "doit être omis lorsque l'employeur a préparé la demande",
)


def _nothing_more(read: _Reader, *keys: str, because: Words) -> None:
    """Fields that only apply to another answer: present and not blank, they are refused
    rather than dropped, so that nobody believes something was kept that was not."""
    for key in keys:
        if read.raw.get(key) not in (None, "", []):
            read.wrong(key, because)


def _relations(read: _Reader) -> dict[str, Any]:
    related = read.yes_no("related_to_provider")
    relations = read.raw.get("relations")
    if not related:
        _nothing_more(read, "relations", because=UNRELATED)
        return {"related_to_provider": related, "relations": []}
    valid = (
        isinstance(relations, list)
        and relations
        and all(r in Relation.values for r in relations)
        and len(set(relations)) == len(relations)
    )
    if not valid:
        read.wrong("relations", MISSING if not relations else ONE_OF_RELATIONS)
        return {"related_to_provider": related, "relations": []}
    ordered = [r for r in Relation.values if r in (relations or ())]
    return {"related_to_provider": related, "relations": ordered}


UNRELATED: Words = (
    "must be left out when the employer and the provider are not related",
    "doit être omis lorsque l'employeur et le fournisseur ne sont pas liés",
)
ONE_OF_RELATIONS: Words = (
    "must list, each once, some of owners, directors, family, shared_address",
    "doit énumérer, chacune une fois, certaines des valeurs owners, directors, family, "
    "shared_address",
)


def _other_funding(read: _Reader) -> dict[str, Any]:
    other = read.yes_no("other_funding")
    if not other:
        _nothing_more(read, "other_funding_program", "other_funding_amount", because=NO_OTHER)
        return {"other_funding": other, "other_funding_program": "", "other_funding_cents": None}
    return {
        "other_funding": other,
        "other_funding_program": read.text("other_funding_program", NAME_MAX),
        "other_funding_cents": read.amount("other_funding_amount"),
    }


NO_OTHER: Words = (
    "must be left out when there is no other government funding",
    "doit être omis lorsqu'il n'y a pas d'autre financement public",
)


def _provider(read: _Reader) -> dict[str, Any]:
    public = read.yes_no("provider_public_institution")
    return {
        "provider_public_institution": public,
        "provider_business_number": _business_number(read, required=not public),
        "provider_street_address": read.text("provider_street_address", NAME_MAX),
        "provider_city": read.text("provider_city", CITY_MAX),
        "provider_postal_code": _postal_code(read),
        "provider_phone": _phone(read),
    }


def _business_number(read: _Reader, *, required: bool) -> str:
    typed = read.text("provider_business_number", 20, required=required)
    if not typed or read.named("provider_business_number"):
        return ""
    number = normalize_business_number(typed)
    if number is None:
        read.wrong(
            "provider_business_number",
            (
                "must be a business number of 9 digits whose last digit checks, like 123456782",
                "doit être un numéro d'entreprise de 9 chiffres dont le dernier est valide, "
                "par exemple 123456782",
            ),
        )
    return number or ""


def _postal_code(read: _Reader) -> str:
    typed = read.text("provider_postal_code", 10)
    if not typed or read.named("provider_postal_code"):
        return ""
    postal = normalize_postal_code(typed)
    if postal is None:
        read.wrong(
            "provider_postal_code",
            (
                "must be a Canadian postal code, like K1A 0B1",
                "doit être un code postal canadien, par exemple K1A 0B1",
            ),
        )
    return postal or ""


def _phone(read: _Reader) -> str:
    typed = read.text("provider_phone", 30)
    if not typed or read.named("provider_phone"):
        return ""
    phone = normalize_phone(typed)
    if phone is None:
        read.wrong(
            "provider_phone",
            (
                "must be a telephone number of 10 digits, like 905-555-0100",
                "doit être un numéro de téléphone de 10 chiffres, par exemple 905-555-0100",
            ),
        )
        return ""
    return phone


def body_of(declared: Declared) -> dict[str, Any]:
    """A checked declaration as the body's object again (what the web form sends on)."""
    fields = asdict(declared)
    fee, other = fields.pop("preparer_fee_cents"), fields.pop("other_funding_cents")
    body = {key: value for key, value in fields.items() if value not in ("", [])}
    for key, cents in (("preparer_fee", fee), ("other_funding_amount", other)):
        if cents is not None:
            body[key] = format_amount(cents)
    return body


# --- Saving, and requiring one to submit ---------------------------------------------------


def declaration_of(payload: Any) -> tuple[Any, Declared | None]:
    """The body without its declarations, and those checked (None when the body has none or
    gives them as null, which the schema allows)."""
    if not isinstance(payload, dict) or KEY not in payload:
        return payload, None
    rest = {key: value for key, value in payload.items() if key != KEY}
    if payload[KEY] is None:
        return rest, None
    return rest, checked_declaration(payload[KEY])


def save_declaration(user: User, application: Application, declared: Declared) -> None:
    """Keep the declaration (the one before it, on a draft, is replaced) and audit it; the
    caller holds the transaction."""
    fields = {**asdict(declared), "declared_by": user, "declared_at": timezone.now()}
    declaration = ApplicationDeclaration(application=application, **fields)
    rows.insert(declaration, replacing=("application",))
    record(user.username, "application.declare", "application", application.pk, summary(declared))


def summary(declared: Declared) -> dict[str, Any]:
    """What the audit trail keeps: the answers and amounts, no person's name, address or phone."""
    return {
        "prepared_by": declared.prepared_by,
        "preparer_fee_cents": declared.preparer_fee_cents,
        "related_to_provider": declared.related_to_provider,
        "relations": declared.relations,
        "other_funding": declared.other_funding,
        "other_funding_cents": declared.other_funding_cents,
        "provider_business_number": declared.provider_business_number,
        "trainer_attests_no_conflict": declared.trainer_attests_no_conflict,
        "employer_attests_no_conflict": declared.employer_attests_no_conflict,
    }


def check_declared(application: Application) -> None:
    """Refuse to submit an application whose declarations were never made (422)."""
    if ApplicationDeclaration.objects.filter(application_id=application.pk).exists():
        return
    raise ServiceError(
        422,
        "DECLARATIONS_MISSING",
        "The declarations are required to submit: who prepared the application, ties to the "
        "training provider, other government funding, and the conflict-of-interest "
        "attestations. Nothing was changed.",
        "Les déclarations sont obligatoires pour présenter la demande : qui l'a préparée, les "
        "liens avec le fournisseur de formation, les autres financements publics et les "
        "attestations d'absence de conflit d'intérêts. Rien n'a été modifié.",
        problems=[problem(KEY, "are required to submit", "sont obligatoires pour présenter")],
    )
