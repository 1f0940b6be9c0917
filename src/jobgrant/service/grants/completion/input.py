"""Checks of the outcome answers (completion report, follow-ups): each bad field is named, in
English and French, and nothing is written until every field is good.

A `Checker` collects the problems of one body; the actions raise `bad_input` with all of them.
Answers come from the API (JSON: true/false, numbers, decimal strings) or a page's form (the
strings "yes"/"no"), so a yes-or-no accepts both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import models

from jobgrant.rules.money import AmountError, parse_amount
from jobgrant.service.errors import bad_input, problem
from jobgrant.service.language import in_both_languages
from jobgrant.service.registry.noc import noc_unit_groups

YES = ("yes", "true", "oui", "1")
NO = ("no", "false", "non", "0")
#: An hourly wage above this is a typing mistake (dollars), not a wage.
MAX_HOURLY_WAGE_CENTS = 1_000_00
MAX_WEEKLY_HOURS = 168
MAX_FEEDBACK = 4000


@dataclass
class Checker:
    problems: list[dict[str, str]] = field(default_factory=list)

    def add(self, path: str, en: str, fr: str) -> None:
        self.problems.append(problem(path, en, fr))

    def raise_if_any(self) -> None:
        if self.problems:
            raise bad_input(self.problems)

    def mapping(self, raw: object, path: str) -> Mapping[str, Any]:
        if isinstance(raw, Mapping):
            return raw
        self.add(path, "must be an object of answers", "doit être un objet de réponses")
        return {}

    def unknown(self, raw: Mapping[str, Any], known: tuple[str, ...], path: str) -> None:
        for key in raw:
            if key not in known:
                self.add(f"{path}{key}", "is not a known field", "n'est pas un champ connu")

    def yes_no(self, raw: object, path: str, *, required: bool = True) -> bool | None:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower() if raw is not None else ""
        if text in YES:
            return True
        if text in NO:
            return False
        if text == "" and not required:
            return None
        self.add(path, "must be answered yes or no", "doit recevoir la réponse oui ou non")
        return None

    def choice(self, raw: object, choices: type[models.TextChoices], path: str) -> str:
        """One of `choices`; else a problem that names them in words (their labels), not codes."""
        if isinstance(raw, str) and raw in choices.values:
            return raw
        english, french = in_both_languages(lambda: "\n".join(map(str, choices.labels)))
        en = ", ".join(f"“{label}”" for label in english.split("\n"))
        fr = ", ".join(f"«\u00a0{label}\u00a0»" for label in french.split("\n"))
        self.add(path, f"must be one of: {en}", f"doit être l'un des choix suivants\u00a0: {fr}")
        return ""

    def noc(self, raw: object, path: str) -> str:
        code = str(raw).strip() if isinstance(raw, str | int) and not isinstance(raw, bool) else ""
        if code in noc_unit_groups():
            return code
        self.add(
            path,
            "must be a NOC 2021 unit group: five digits from the National Occupational "
            "Classification, like 72410",
            "doit être un groupe de base de la CNP 2021 : cinq chiffres de la Classification "
            "nationale des professions, par exemple 72410",
        )
        return ""

    def wage(self, raw: object, path: str) -> int | None:
        """An hourly wage in dollars (a decimal string like "24.50") as cents; empty is None."""
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return None
        try:
            text = raw.strip() if isinstance(raw, str) else raw
            if isinstance(text, str) and "," in text and "." not in text:
                text = text.replace(",", ".")  # 24,50 as French writes it
            cents = parse_amount(text)
        except AmountError:
            cents = -1
        if 0 <= cents <= MAX_HOURLY_WAGE_CENTS:
            return cents
        self.add(
            path,
            "must be an hourly wage in dollars, like 24.50 (at most 1000.00)",
            "doit être un salaire horaire en dollars, par exemple 24,50 (au plus 1000.00)",
        )
        return None

    def hours(self, raw: object, path: str) -> int | None:
        try:
            hours = int(str(raw).strip()) if not isinstance(raw, bool | float) else -1
        except ValueError:
            hours = -1
        if 1 <= hours <= MAX_WEEKLY_HOURS:
            return hours
        self.add(
            path,
            f"must be a whole number of hours a week, from 1 to {MAX_WEEKLY_HOURS}",
            f"doit être un nombre entier d'heures par semaine, de 1 à {MAX_WEEKLY_HOURS}",
        )
        return None

    def text(self, raw: object, path: str, limit: int = MAX_FEEDBACK) -> str:
        if raw is None:
            return ""
        if isinstance(raw, str) and len(raw) <= limit:
            return raw.strip()
        self.add(
            path,
            f"must be text of at most {limit} characters",
            f"doit être un texte d'au plus {limit} caractères",
        )
        return ""
