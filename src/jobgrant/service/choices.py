"""The kernel's codes the service's models and pages share, each with its label in both languages.

The codes are the rules kernel's (`jobgrant.rules`); the labels are defined here once. The
jurisdictions' names come from `rules.codes.JURISDICTIONS`, which already holds them in English
and French, so they are not repeated in the French catalogue.
"""

from __future__ import annotations

from django.db import models
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy, pgettext_lazy

from jobgrant.rules.codes import JURISDICTIONS
from jobgrant.service.language import in_language

_NAMES = {j.code: (j.name_en, j.name_fr) for j in JURISDICTIONS}


def _name_in_language(code: str) -> str:
    english, french = _NAMES[code]
    return in_language(en=english, fr=french)


# The label is made once, at import; the name is chosen when the label is shown.
_jurisdiction_name = lazy(_name_in_language, str)


class Jurisdiction(models.TextChoices):
    """Provinces and territories in the Statistics Canada order (as `rules.codes`)."""

    NL = "NL", _jurisdiction_name("NL")
    PE = "PE", _jurisdiction_name("PE")
    NS = "NS", _jurisdiction_name("NS")
    NB = "NB", _jurisdiction_name("NB")
    QC = "QC", _jurisdiction_name("QC")
    ON = "ON", _jurisdiction_name("ON")
    MB = "MB", _jurisdiction_name("MB")
    SK = "SK", _jurisdiction_name("SK")
    AB = "AB", _jurisdiction_name("AB")
    BC = "BC", _jurisdiction_name("BC")
    YT = "YT", _jurisdiction_name("YT")
    NT = "NT", _jurisdiction_name("NT")
    NU = "NU", _jurisdiction_name("NU")


JURISDICTION_CHOICES = Jurisdiction.choices

#: A province's or territory's name as French writes it after "de" (with its article).
_OF_IN_FRENCH = {
    "NL": "de Terre-Neuve-et-Labrador",
    "PE": "de l'Île-du-Prince-Édouard",
    "NS": "de la Nouvelle-Écosse",
    "NB": "du Nouveau-Brunswick",
    "QC": "du Québec",
    "ON": "de l'Ontario",
    "MB": "du Manitoba",
    "SK": "de la Saskatchewan",
    "AB": "de l'Alberta",
    "BC": "de la Colombie-Britannique",
    "YT": "du Yukon",
    "NT": "des Territoires du Nord-Ouest",
    "NU": "du Nunavut",
}


def jurisdiction_names(code: str) -> tuple[str, str]:
    """(English, French) names of a province or territory, for a sentence in both languages."""
    return _NAMES[code]


def jurisdiction_of(code: str) -> tuple[str, str]:
    """(English, French) for "of <the province>" in a sentence: ("Nova Scotia", "de la
    Nouvelle-Écosse"), so that messages name it in words, never by its code."""
    return _NAMES[code][0], _OF_IN_FRENCH[code]


class StreamCode(models.TextChoices):
    """The grant's streams (programs' streams and budget accounts). The code is stored (budget
    keys, file names, the API); the label is the abbreviation people read: CJG in English, SCE
    (Subvention canadienne pour l'emploi) in French."""

    CJG = "CJG", pgettext_lazy("stream abbreviation", "CJG")


class Setting(models.TextChoices):
    """Where the training takes place (`rules.batch.SETTINGS`)."""

    ON_SITE = "on-site", gettext_lazy("On site, at the workplace")
    OFF_SITE = "off-site", gettext_lazy("Off site, in a classroom")
    ONLINE = "online", gettext_lazy("Online")


class TraineeStatus(models.TextChoices):
    """A trainee's tie to the employer (`rules.batch.STATUSES`)."""

    EXISTING_EMPLOYEE = "existing-employee", gettext_lazy("Existing employee")
    NEW_HIRE = "new-hire", gettext_lazy("New hire")
    UNEMPLOYED = "unemployed", gettext_lazy("Unemployed, to be hired")


class CostCategory(models.TextChoices):
    """The costs of a training (`rules.requests.COST_CATEGORIES`) and the wages counted in kind."""

    TUITION = "tuition", gettext_lazy("Tuition or trainer fees")
    STUDENT_FEES = "student_fees", gettext_lazy("Mandatory student fees")
    MATERIALS = "materials", gettext_lazy("Textbooks, software and other required materials")
    EXAM_FEES = "exam_fees", gettext_lazy("Examination fees")
    WAGES_IN_KIND = (
        "wages_in_kind",
        gettext_lazy("Wages paid during training (in-kind contribution)"),
    )
