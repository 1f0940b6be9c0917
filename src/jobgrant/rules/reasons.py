"""Eligibility reasons: stable codes, the rule behind each, messages in English and French."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from jobgrant.rules.money import format_money

Level = Literal["application", "employer", "trainee"]


@dataclass(frozen=True)
class ReasonType:
    code: str
    level: Level
    rule: str  # the parameter that produced it
    en: str
    fr: str


REASON_TYPES: tuple[ReasonType, ...] = (
    ReasonType(
        "JURISDICTION_WITHOUT_GRANT",
        "application",
        "cjg.grant_available",
        "There is no Canada Job Grant in {jurisdiction_en} under this policy.",
        "La Subvention canadienne pour l'emploi n'est pas offerte ({jurisdiction_fr}) "
        "selon cette politique.",
    ),
    ReasonType(
        "PROVIDER_NOT_THIRD_PARTY",
        "application",
        "cjg.training.third_party_required",
        "The training must be given by a third-party trainer; in-house training is not eligible.",
        "La formation doit être donnée par un formateur tiers; la formation à l'interne "
        "n'est pas admissible.",
    ),
    ReasonType(
        "TRAINING_SETTING_NOT_ELIGIBLE",
        "application",
        "cjg.training.setting",
        "Training delivered {setting_en} is not eligible under this policy.",
        "La formation donnée {setting_fr} n'est pas admissible selon cette politique.",
    ),
    ReasonType(
        "TRAINING_STARTED_BEFORE_APPLICATION",
        "application",
        "cjg.application.must_precede_training",
        "Training must start after the application date ({application_date}); "
        "it starts on {start_date}.",
        "La formation doit commencer après la date de la demande ({application_date}); "
        "elle commence le {start_date}.",
    ),
    ReasonType(
        "APPLICATION_TOO_CLOSE_TO_START",
        "application",
        "cjg.application.min_lead_days",
        "Apply at least {min_lead_days} days before training starts; this application comes "
        "{lead_days} days before.",
        "Présentez la demande au moins {min_lead_days} jours avant le début de la formation; "
        "cette demande le précède de {lead_days} jours.",
    ),
    ReasonType(
        "TRAINING_STARTS_TOO_FAR_AHEAD",
        "application",
        "cjg.application.max_lead_days",
        "Training must start within {max_lead_days} days of the application; it starts "
        "{lead_days} days after.",
        "La formation doit commencer dans les {max_lead_days} jours suivant la demande; "
        "elle commence {lead_days} jours après.",
    ),
    ReasonType(
        "TRAINING_TOO_LONG",
        "application",
        "cjg.training.max_duration_days",
        "Training may last at most {max_duration_days} days; this training lasts "
        "{duration_days} days.",
        "La formation peut durer au plus {max_duration_days} jours; celle-ci dure "
        "{duration_days} jours.",
    ),
    ReasonType(
        "TRAINING_TOO_SHORT",
        "application",
        "cjg.training.min_hours",
        "Training must have at least {min_hours} hours; this training has {hours}.",
        "La formation doit compter au moins {min_hours} heures; celle-ci en compte {hours}.",
    ),
    ReasonType(
        "MINIMUM_COST_NOT_MET",
        "application",
        "cjg.application.minimum_cost",
        "The application's eligible training costs ({cost}) are below the minimum of {minimum}.",
        "Les coûts de formation admissibles de la demande ({cost}) sont inférieurs au "
        "minimum de {minimum}.",
    ),
    ReasonType(
        "TRAINEE_WITHOUT_ELIGIBLE_COSTS",
        "trainee",
        "cjg.federal.rate",
        "Trainee {trainee} has no eligible training costs.",
        "La personne participante {trainee} n'a aucun coût de formation admissible.",
    ),
    ReasonType(
        "EMPLOYER_CAP_EXCEEDED",
        "employer",
        "cjg.employer.max_government_per_fiscal_year",
        "Employer {employer} would receive {total} of government money in {fiscal_year} "
        "({approved} already approved), above the limit of {cap} per employer{scope_en} per "
        "fiscal year; {available} remains available.",
        "L'employeur {employer} recevrait {total} de fonds publics en {fiscal_year} "
        "({approved} déjà approuvés), au-delà de la limite de {cap} par employeur{scope_fr} "
        "par exercice; il reste {available}.",
    ),
)
REASONS_BY_CODE = {r.code: r for r in REASON_TYPES}
MONEY_ARGUMENTS = frozenset({"cost", "minimum", "total", "approved", "cap", "available"})


@dataclass(frozen=True)
class Reason:
    """One reason an application is not eligible, in both official languages."""

    type: ReasonType
    arguments: dict[str, object]
    trainee: int | None = None
    employer: str | None = None

    @property
    def code(self) -> str:
        return self.type.code

    def message(self, lang: str) -> str:
        template = self.type.fr if lang == "fr" else self.type.en
        values = {
            name: format_money(int(value), lang) if name in MONEY_ARGUMENTS else value  # type: ignore[call-overload]
            for name, value in self.arguments.items()
        }
        return template.format(**values)

    def as_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "message_en": self.message("en"),
            "message_fr": self.message("fr"),
            "trainee": self.trainee,
            "employer": self.employer,
            "rule": self.type.rule,
        }
