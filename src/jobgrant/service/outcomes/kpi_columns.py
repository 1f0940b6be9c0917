"""The KPI tables' columns and rows, in English and French: the open data's data dictionary."""

from __future__ import annotations

from django.utils.translation import override

from jobgrant.rules.codes import JURISDICTION_CODES, JURISDICTIONS
from jobgrant.service.grants.models.participants import Gender, Immigration, Indigenous, YesNoPrefer
from jobgrant.service.outcomes.tables import Column, Unit

_WHOSE_ANSWER_EN = (
    " The trainee's own follow-up answer counts; where the trainee did not answer, the"
    " employer's answer about that trainee. Response rate: participants with an answer over"
    " participants asked (a follow-up sent)."
)
_WHOSE_ANSWER_FR = (
    " La réponse du participant au suivi compte; s'il n'a pas répondu, celle de l'employeur à"
    " son sujet. Taux de réponse : participants ayant une réponse sur participants sollicités"
    " (suivi envoyé)."
)

PARTICIPANTS = Column(
    "participants",
    "Participants",
    "Participants",
    Unit.PEOPLE,
    "Trainees of the fiscal year's files who took part (participant slot confirmed, or reported"
    " on by the completion report).",
    "Participants des dossiers de l'exercice qui ont pris part à la formation (inscription"
    " confirmée ou visée par le rapport d'achèvement).",
)
COMPLETION = Column(
    "completion_rate",
    "Completion rate",
    "Taux d'achèvement",
    Unit.RATE,
    "Participants reported as having completed the training, over participants in a submitted"
    " completion report. Response rate: participants in a submitted report over participants.",
    "Participants déclarés ayant terminé la formation, sur les participants visés par un rapport"
    " d'achèvement soumis. Taux de réponse : participants visés par un rapport soumis sur"
    " l'ensemble des participants.",
)
EMPLOYED_END = Column(
    "employed_at_end",
    "Employed at the end of training",
    "En emploi à la fin de la formation",
    Unit.RATE,
    "Participants the employer reported as employed when the training ended, over participants"
    " in a submitted completion report. Response rate as for the completion rate.",
    "Participants déclarés en emploi par l'employeur à la fin de la formation, sur les"
    " participants visés par un rapport d'achèvement soumis. Taux de réponse comme pour le taux"
    " d'achèvement.",
)
EMPLOYED_3 = Column(
    "employed_3_months",
    "Employed 3 months after",
    "En emploi 3 mois après",
    Unit.RATE,
    "Participants employed 3 months after the training, over participants with an answer."
    + _WHOSE_ANSWER_EN,
    "Participants en emploi 3 mois après la formation, sur les participants ayant une réponse."
    + _WHOSE_ANSWER_FR,
)
EMPLOYED_12 = Column(
    "employed_12_months",
    "Employed 12 months after",
    "En emploi 12 mois après",
    Unit.RATE,
    "Participants employed 12 months after the training, over participants with an answer."
    + _WHOSE_ANSWER_EN,
    "Participants en emploi 12 mois après la formation, sur les participants ayant une réponse."
    + _WHOSE_ANSWER_FR,
)
APPLICATIONS = Column(
    "applications",
    "Applications",
    "Demandes",
    Unit.FILES,
    "Applications received in the fiscal year (every file past draft).",
    "Demandes reçues pendant l'exercice (tout dossier soumis).",
)
APPROVALS = Column(
    "approvals",
    "Approvals",
    "Approbations",
    Unit.FILES,
    "Applications approved (an agreement was issued), whatever became of the agreement.",
    "Demandes approuvées (une entente a été émise), quel que soit le sort de l'entente.",
)


def _cost(funder: str, en: str, fr: str, who_en: str, who_fr: str) -> Column:
    return Column(
        f"cost_{funder}",
        en,
        fr,
        Unit.CENTS,
        f"{who_en} money paid to the files (payments confirmed by the paying system, before"
        " set-off), less what was recovered from them (repaid or set off).",
        f"Sommes {who_fr} versées aux dossiers (paiements confirmés par le système de paiement,"
        " avant compensation), moins les sommes recouvrées (remboursées ou compensées).",
    )


COST_FEDERAL = _cost("federal", "Federal cost", "Coût fédéral", "Federal", "fédérales")
COST_PROVINCIAL = _cost(
    "provincial",
    "Provincial or territorial cost",
    "Coût provincial ou territorial",
    "Provincial or territorial",
    "provinciales ou territoriales",
)
COST_GOVERNMENT = _cost(
    "government", "Government cost", "Coût gouvernemental", "Government", "gouvernementales"
)
COST_PER_TRAINEE = Column(
    "cost_per_trainee",
    "Government cost per trainee",
    "Coût gouvernemental par participant",
    Unit.CENTS_PER,
    "Government cost over participants.",
    "Coût gouvernemental sur le nombre de participants.",
)
COST_PER_JOB = Column(
    "cost_per_job_outcome",
    "Government cost per job outcome",
    "Coût gouvernemental par résultat d'emploi",
    Unit.CENTS_PER,
    "Government cost over participants employed at the end of the training (the job outcome).",
    "Coût gouvernemental sur les participants en emploi à la fin de la formation (le résultat"
    " d'emploi).",
)
SLIPPAGE = Column(
    "slippage",
    "Slippage (committed, never claimed)",
    "Fonds engagés non réclamés",
    Unit.CENTS,
    "Government money committed to the files and never claimed, from the ledger: what is still"
    " committed and unclaimed plus what was released unclaimed (offer declined, agreement"
    " lowered or withdrawn, unused at the final claim). Not about people: never suppressed.",
    "Sommes gouvernementales engagées envers les dossiers et jamais réclamées, selon le grand"
    " livre : ce qui reste engagé et non réclamé plus ce qui a été libéré sans être réclamé"
    " (offre refusée, entente réduite ou retirée, solde inutilisé à la demande finale). Ne"
    " porte pas sur des personnes : jamais supprimée.",
)
DAYS_AVERAGE = Column(
    "days_to_payment",
    "Days from claim to payment (average)",
    "Jours de la demande de remboursement au paiement (moyenne)",
    Unit.DAYS_PER,
    "For each claim paid at least once: days from its submission to its first payment paid;"
    " the sum of the days over the claims.",
    "Pour chaque demande de remboursement payée au moins une fois : jours de sa soumission à"
    " son premier paiement; somme des jours sur le nombre de demandes.",
)
DAYS_MEDIAN = Column(
    "days_to_payment_median",
    "Days from claim to payment (median)",
    "Jours de la demande de remboursement au paiement (médiane)",
    Unit.DAYS_PER,
    "The median of the same days (the mean of the two middle claims when their number is even).",
    "La médiane des mêmes jours (moyenne des deux demandes du milieu si leur nombre est pair).",
)

OUTCOME_COLUMNS = (PARTICIPANTS, COMPLETION, EMPLOYED_END, EMPLOYED_3, EMPLOYED_12)
HEADLINE_COLUMNS = (
    APPLICATIONS,
    APPROVALS,
    *OUTCOME_COLUMNS,
    COST_FEDERAL,
    COST_PROVINCIAL,
    COST_GOVERNMENT,
    COST_PER_TRAINEE,
    COST_PER_JOB,
    SLIPPAGE,
    DAYS_AVERAGE,
    DAYS_MEDIAN,
)

UNANSWERED = ("unanswered", "Not answered", "Sans réponse")
TOTAL = ("total", "Total", "Total")

FIRM_SIZES = (
    ("1-49", "1 to 49 employees", "1 à 49 employés"),
    ("50-99", "50 to 99 employees", "50 à 99 employés"),
    ("100-499", "100 to 499 employees", "100 à 499 employés"),
    ("500+", "500 employees or more", "500 employés ou plus"),
    ("unknown", "Size not recorded", "Taille non consignée"),
)


def _choices(choices: type) -> tuple[tuple[str, str, str], ...]:
    rows = []
    for value, label in choices.choices:  # type: ignore[attr-defined]
        with override("en"):
            en = str(label)
        with override("fr"):
            fr = str(label)
        rows.append((value, en, fr))
    return (*rows, UNANSWERED)


#: (table id, column on the participant, title EN, title FR, its rows (key, EN, FR)).
EQUITY_TABLES = (
    ("by-gender", "gender", "By gender", "Selon le genre", Gender),
    (
        "by-indigenous-identity",
        "indigenous",
        "By Indigenous identity",
        "Selon l'identité autochtone",
        Indigenous,
    ),
    ("by-disability", "disability", "By disability", "Selon l'incapacité", YesNoPrefer),
    (
        "by-visible-minority",
        "visible_minority",
        "By visible minority",
        "Selon l'appartenance à une minorité visible",
        YesNoPrefer,
    ),
    (
        "by-immigration",
        "immigration",
        "By immigration",
        "Selon le statut d'immigrant",
        Immigration,
    ),
)


def equity_rows(choices: type) -> tuple[tuple[str, str, str], ...]:
    return _choices(choices)


_NAMES = {j.code: (j.name_en, j.name_fr) for j in JURISDICTIONS}
#: The jurisdictions in Statistics Canada's order.
JURISDICTION_ORDER = JURISDICTION_CODES


def jurisdiction_label(code: str) -> tuple[str, str]:
    return _NAMES.get(code, (code, code))
