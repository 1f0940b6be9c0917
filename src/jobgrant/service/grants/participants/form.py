"""The participant form's answers (the trainee's part of the file), checked in full before anything
is written: every problem names its field, in English and in French.

`check_answers` takes what the trainee typed (text, as a form posts it) and returns the model's
fields, the SIN already encrypted and blind-indexed as the registry does, or raises 422 listing
every problem. The SIN never appears in a message.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import models

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.money import AmountError, parse_amount
from jobgrant.service.errors import bad_input, problem
from jobgrant.service.grants.models.participants import (
    EMPLOYED_STATUSES,
    PREFER_NOT,
    Education,
    EmploymentStatus,
    FirstLanguage,
    Gender,
    Immigration,
    Indigenous,
    YesNoPrefer,
)
from jobgrant.service.registry.identifiers import (
    POSTAL_LETTERS,
    POSTAL_PATTERN,
    encrypt_sin,
    normalize_sin,
    sin_blind_index,
)
from jobgrant.service.registry.noc import noc_unit_groups

Problems = list[dict[str, str]]
NAME_MAX, ADDRESS_MAX, CITY_MAX = 100, 200, 100
YOUNGEST_AGE = 15
OLDEST_BIRTH = dt.date(1900, 1, 1)
MAX_WAGE_CENTS = 100_000  # $1,000.00 an hour
MAX_WEEKLY_HOURS = 168
SIN_DIGITS = 9
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: The fields the form has, in the order the page shows them.
FIELDS = (
    "given_name",
    "family_name",
    "date_of_birth",
    "sin",
    "contact_email",
    "phone",
    "street_address",
    "city",
    "province",
    "postal_code",
    "indigenous",
    "disability",
    "visible_minority",
    "immigration",
    "gender",
    "education",
    "first_language",
    "employment_status",
    "noc",
    "hourly_wage",
    "weekly_hours",
    "receiving_ei",
    "consent_name",
    "consent",
)
#: The equity and demographic questions: each may be left blank.
VOLUNTARY = FIELDS[10:17]
CHOICES: dict[str, type[models.TextChoices]] = {
    "indigenous": Indigenous,
    "disability": YesNoPrefer,
    "visible_minority": YesNoPrefer,
    "immigration": Immigration,
    "gender": Gender,
    "education": Education,
    "first_language": FirstLanguage,
    "employment_status": EmploymentStatus,
}
#: (English, French): what to do to answer a field correctly, naming it.
MESSAGES: dict[str, tuple[str, str]] = {
    "given_name": (
        f"Enter your given name ({NAME_MAX} characters at most).",
        f"Entrez votre prénom ({NAME_MAX} caractères au plus).",
    ),
    "family_name": (
        f"Enter your family name ({NAME_MAX} characters at most).",
        f"Entrez votre nom de famille ({NAME_MAX} caractères au plus).",
    ),
    "date_of_birth": (
        f"Enter your date of birth as YYYY-MM-DD (you must be at least {YOUNGEST_AGE}).",
        f"Entrez votre date de naissance sous la forme AAAA-MM-JJ (vous devez avoir au moins "
        f"{YOUNGEST_AGE} ans).",
    ),
    "sin": (
        "Enter your Social Insurance Number: 9 digits, as on your SIN letter.",
        "Entrez votre numéro d'assurance sociale\u00a0: 9 chiffres, comme sur votre lettre de NAS.",
    ),
    "sin_length": (
        "A Social Insurance Number has 9 digits: you typed {count}. Check it against your SIN "
        "letter.",
        "Un numéro d'assurance sociale a 9 chiffres\u00a0: vous en avez tapé {count}. Vérifiez-le "
        "sur votre lettre de NAS.",
    ),
    "sin_invalid": (
        "The number you typed is not a valid Social Insurance Number: one of its digits is "
        "probably wrong. Check each digit against your SIN letter.",
        "Le numéro tapé n'est pas un numéro d'assurance sociale valide\u00a0: un de ses chiffres "
        "est sans doute erroné. Vérifiez chaque chiffre sur votre lettre de NAS.",
    ),
    "contact_email": (
        "Enter your email address, like name@example.com.",
        "Entrez votre adresse courriel, par exemple nom@exemple.ca.",
    ),
    "phone": (
        "Enter your phone number as 10 digits, or leave it empty.",
        "Entrez votre numéro de téléphone en 10 chiffres, ou laissez-le vide.",
    ),
    "street_address": (
        f"Enter your street address ({ADDRESS_MAX} characters at most).",
        f"Entrez votre adresse ({ADDRESS_MAX} caractères au plus).",
    ),
    "city": (
        f"Enter your city or town ({CITY_MAX} characters at most).",
        f"Entrez votre ville ({CITY_MAX} caractères au plus).",
    ),
    "province": (
        "Choose your province or territory.",
        "Choisissez votre province ou territoire.",
    ),
    "postal_code": (
        "Enter your postal code, like K1A 0B1.",
        "Entrez votre code postal, par exemple K1A 0B1.",
    ),
    "postal_code_province": (
        "Enter a postal code of the province or territory you chose.",
        "Entrez un code postal de la province ou du territoire choisi.",
    ),
    "indigenous": (
        "Say whether you are an Indigenous person, or choose Prefer not to say.",
        "Indiquez si vous êtes une personne autochtone, ou choisissez Préfère ne pas répondre.",
    ),
    "disability": (
        "Say whether you have a disability, or choose Prefer not to say.",
        "Indiquez si vous avez une incapacité, ou choisissez Préfère ne pas répondre.",
    ),
    "visible_minority": (
        "Say whether you are a member of a visible minority, or choose Prefer not to say.",
        "Indiquez si vous faites partie d'une minorité visible, ou choisissez Préfère ne pas "
        "répondre.",
    ),
    "immigration": (
        "Say whether you are an immigrant or a refugee, or choose Prefer not to say.",
        "Indiquez si vous êtes immigrant ou réfugié, ou choisissez Préfère ne pas répondre.",
    ),
    "gender": (
        "Choose your gender, or Prefer not to say.",
        "Choisissez votre genre, ou Préfère ne pas répondre.",
    ),
    "education": (
        "Choose the highest level of education you completed, or Prefer not to say.",
        "Choisissez le plus haut niveau d'études terminé, ou Préfère ne pas répondre.",
    ),
    "first_language": (
        "Choose your first language, or Prefer not to say.",
        "Choisissez votre première langue, ou Préfère ne pas répondre.",
    ),
    "employment_status": (
        "Choose your employment status before the training.",
        "Choisissez votre situation d'emploi avant la formation.",
    ),
    "noc": (
        "Enter the 5-digit NOC 2021 code of your job before the training.",
        "Entrez le code à 5 chiffres de la CNP 2021 de votre emploi avant la formation.",
    ),
    "hourly_wage": (
        "Enter your hourly wage before the training, in dollars, like 21.50.",
        "Entrez votre salaire horaire avant la formation, en dollars, par exemple 21,50.",
    ),
    "weekly_hours": (
        f"Enter the hours you worked in a usual week, a whole number from 1 to {MAX_WEEKLY_HOURS}.",
        f"Entrez vos heures de travail d'une semaine habituelle, un nombre entier de 1 à "
        f"{MAX_WEEKLY_HOURS}.",
    ),
    "receiving_ei": (
        "Say whether you were receiving Employment Insurance benefits.",
        "Indiquez si vous receviez des prestations d'assurance-emploi.",
    ),
    "consent_name": (
        "Type your given name and family name as you entered them above.",
        "Tapez votre prénom et votre nom de famille tels que vous les avez entrés plus haut.",
    ),
    "consent": (
        "Confirm that your answers are true and that you agree to their use.",
        "Confirmez que vos réponses sont exactes et que vous acceptez leur utilisation.",
    ),
}


def _problem(field: str, message: str | None = None, **values: object) -> dict[str, str]:
    english, french = MESSAGES[message or field]
    return problem(field, english.format(**values), french.format(**values))


def _sin_problem(raw: str) -> dict[str, str]:
    """What is wrong with a SIN that `normalize_sin` refused: nothing typed, not 9 digits, or 9
    digits that are no SIN (the check digit fails, or it begins with 0 or 8)."""
    typed = re.sub(r"[\s-]", "", raw)
    if not typed:
        return _problem("sin")
    if typed.isascii() and typed.isdigit() and len(typed) == SIN_DIGITS:
        return _problem("sin", "sin_invalid")
    if not typed.isascii() or not typed.isdigit():
        return _problem("sin")
    return _problem("sin", "sin_length", count=len(typed))


def _text(limit: int, *, required: bool = True) -> Callable[[str], str | None]:
    def clean(raw: str) -> str | None:
        text = " ".join(raw.split())
        if _CONTROL.search(raw.replace("\n", " ").replace("\r", " ").replace("\t", " ")):
            return None
        if not text:
            return None if required else ""
        return text if len(text) <= limit else None

    return clean


def _birth_date(raw: str, today: dt.date) -> dt.date | None:
    try:
        born = dt.date.fromisoformat(raw.strip())
    except ValueError:
        return None
    try:
        youngest = today.replace(year=today.year - YOUNGEST_AGE)
    except ValueError:  # February 29
        youngest = today.replace(year=today.year - YOUNGEST_AGE, day=28)
    return born if OLDEST_BIRTH <= born <= youngest else None


def _email(raw: str) -> str | None:
    text = raw.strip()
    try:
        validate_email(text)
    except ValidationError:
        return None
    return text if len(text) <= 254 else None


def _phone(raw: str) -> str | None:
    digits = re.sub(r"[\s().+-]", "", raw)
    if not digits:
        return ""
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    return digits if re.fullmatch(r"[2-9]\d{9}", digits) else None


def _postal(raw: str) -> str | None:
    code = re.sub(r"[\s-]", "", raw).upper()
    return code if POSTAL_PATTERN.fullmatch(code) else None


def _wage(raw: str) -> int | None:
    text = raw.strip().removeprefix("$").removesuffix("$").strip()
    text = text.replace(",", ".") if text.count(",") == 1 and "." not in text else text
    try:
        cents = parse_amount(text)
    except AmountError:
        return None
    return cents if 0 < cents <= MAX_WAGE_CENTS else None


def _hours(raw: str) -> int | None:
    text = raw.strip()
    if not text.isascii() or not text.isdigit():
        return None
    hours = int(text)
    return hours if 1 <= hours <= MAX_WEEKLY_HOURS else None


def same_name(typed: str, given: str, family: str) -> bool:
    """The consent name matches: accents, case and spacing aside (the form says so)."""

    def folded(text: str) -> str:
        bare = "".join(
            c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
        )
        return " ".join(bare.casefold().split())

    return bool(typed.strip()) and folded(typed) == folded(f"{given} {family}")


def check_answers(raw: Mapping[str, Any], *, today: dt.date) -> dict[str, Any]:
    """The model fields of a valid form, or ServiceError(422) naming every problem."""
    typed = {name: raw.get(name) for name in FIELDS}
    text = {name: value if isinstance(value, str) else "" for name, value in typed.items()}
    problems: Problems = []
    fields: dict[str, Any] = {}

    def take(name: str, value: Any, message: str | None = None) -> None:
        if value is None:
            problems.append(_problem(name, message))
        else:
            fields[name] = value

    take("given_name", _text(NAME_MAX)(text["given_name"]))
    take("family_name", _text(NAME_MAX)(text["family_name"]))
    take("date_of_birth", _birth_date(text["date_of_birth"], today))
    sin = normalize_sin(text["sin"].strip())
    if sin is None:
        problems.append(_sin_problem(text["sin"]))
    take("contact_email", _email(text["contact_email"]))
    take("phone", _phone(text["phone"]))
    take("street_address", _text(ADDRESS_MAX)(text["street_address"]))
    take("city", _text(CITY_MAX)(text["city"]))
    province = text["province"].strip().upper()
    take("province", province if province in JURISDICTION_CODES else None)
    postal = _postal(text["postal_code"])
    if postal and fields.get("province") and postal[0] not in POSTAL_LETTERS[province]:
        problems.append(_problem("postal_code", "postal_code_province"))
    else:
        take("postal_code", postal)
    for name, choices in CHOICES.items():
        take(name, _choice(name, text[name], choices))
    problems += _employment(text, fields)
    take("receiving_ei", {"yes": True, "no": False}.get(text["receiving_ei"]))
    given, family = fields.get("given_name", ""), fields.get("family_name", "")
    take("consent_name", " ".join(text["consent_name"].split()) or None)
    named = "consent_name" in fields and given and family
    if named and not same_name(fields["consent_name"], given, family):
        del fields["consent_name"]
        problems.append(_problem("consent_name"))
    if text["consent"] != "yes":
        problems.append(_problem("consent"))
    if problems:
        raise bad_input(problems)
    return {**fields, **sin_fields(sin or "")}


def _choice(name: str, typed: str, choices: type[models.TextChoices]) -> str | None:
    """The chosen value; the equity questions are voluntary: one left blank is counted as
    "Prefer not to say" (the reports group both as not known)."""
    if not typed and name in VOLUNTARY:
        return PREFER_NOT
    return typed if typed in choices.values else None


def _employment(text: dict[str, str], fields: dict[str, Any]) -> Problems:
    """Occupation, wage and hours: asked of those who were working, ignored otherwise."""
    if fields.get("employment_status") not in EMPLOYED_STATUSES:
        fields.update(noc="", hourly_wage_cents=None, weekly_hours=None)
        return []
    problems: Problems = []
    noc = text["noc"].strip()
    if noc in noc_unit_groups():
        fields["noc"] = noc
    else:
        problems.append(_problem("noc"))
    wage, hours = _wage(text["hourly_wage"]), _hours(text["weekly_hours"])
    if wage is None:
        problems.append(_problem("hourly_wage"))
    if hours is None:
        problems.append(_problem("weekly_hours"))
    fields.update(hourly_wage_cents=wage, weekly_hours=hours)
    return problems


def sin_fields(sin: str) -> dict[str, Any]:
    """The SIN as the registry stores it: key id, AES-GCM ciphertext, blind index."""
    key_id, ciphertext = encrypt_sin(sin)
    return {"sin_key_id": key_id, "sin_ciphertext": ciphertext, "sin_index": sin_blind_index(sin)}
