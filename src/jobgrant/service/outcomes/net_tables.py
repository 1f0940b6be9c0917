"""The net outcomes' tables of a KpiReport: employment gross and net of a comparison group, and
the share of training its employers declared would have happened anyway.

- net-outcomes: one row per milestone (3 and 12 months): the funded trainees' employment rate
  (gross), the comparison group's rate and its size, the net difference (gross − comparison, in
  percentage points) and its 95 % confidence interval (`net`). When the groups are too small for
  the interval to mean anything, the net figures are left empty ("...") and the table's note says
  so in a plain sentence. Suppression as every table: a figure about fewer than 10 people is
  hidden (the net figures are about the smaller of the two groups).
- counterfactual: the participants by their employer's answer to "would this training have
  happened without the grant?", at application and in the completion report, each as a share of
  those answered; "yes, as planned" is the training that would have happened anyway.

Both are made from the sums the other tables add up (`kpi_sql.comparison`,
`kpi_sql.counterfactual`), so they add up across jurisdictions and are stored with the cells.
"""

from __future__ import annotations

from jobgrant.service.grants.models.applications import Counterfactual
from jobgrant.service.outcomes import net
from jobgrant.service.outcomes.kpi_columns import equity_rows
from jobgrant.service.outcomes.tables import Column, Figure, Row, Table, Unit

Sums = dict[str, int]


def _column(id_: str, unit: Unit, en: str, fr: str, about_en: str, about_fr: str) -> Column:
    return Column(id_, en, fr, unit, about_en, about_fr)


NET_COLUMNS = (
    _column(
        "gross",
        Unit.RATE,
        "Employed: funded trainees (gross)",
        "En emploi : participants financés (brut)",
        "Participants employed at the milestone over participants with an answer, as in the"
        " key indicators.",
        "Participants en emploi à l'échéance sur les participants ayant une réponse, comme dans"
        " les indicateurs clés.",
    ),
    _column(
        "comparison",
        Unit.RATE,
        "Employed: comparison group",
        "En emploi : groupe de comparaison",
        "People named in applications refused for lack of budget (or below an intake's cut-off)"
        " whom their employer reported employed, over those it answered about, with its consent."
        " Response rate: answered over asked.",
        "Personnes nommées dans des demandes refusées faute de budget (ou sous le seuil d'un"
        " appel de demandes) que leur employeur a déclarées en emploi, sur celles au sujet"
        " desquelles il a répondu, avec son consentement. Taux de réponse : réponses sur"
        " demandes envoyées.",
    ),
    _column(
        "comparison_size",
        Unit.PEOPLE,
        "Comparison group's size (answers)",
        "Taille du groupe de comparaison (réponses)",
        "People of the comparison group with an answer at the milestone.",
        "Personnes du groupe de comparaison ayant une réponse à l'échéance.",
    ),
    _column(
        "net",
        Unit.POINTS,
        "Net (gross − comparison)",
        "Net (brut − comparaison)",
        "The difference of the two employment rates, in percentage points.",
        "L'écart entre les deux taux d'emploi, en points de pourcentage.",
    ),
    _column(
        "net_low",
        Unit.POINTS,
        "Net: 95 % interval, low",
        "Net : intervalle à 95 %, borne inférieure",
        "The lower bound of the difference's 95 % confidence interval (Wald).",
        "La borne inférieure de l'intervalle de confiance à 95 % de l'écart (Wald).",
    ),
    _column(
        "net_high",
        Unit.POINTS,
        "Net: 95 % interval, high",
        "Net : intervalle à 95 %, borne supérieure",
        "The upper bound of the difference's 95 % confidence interval (Wald).",
        "La borne supérieure de l'intervalle de confiance à 95 % de l'écart (Wald).",
    ),
)

MILESTONES = (
    (3, "3-months", "Employed 3 months after", "En emploi 3 mois après"),
    (12, "12-months", "Employed 12 months after", "En emploi 12 mois après"),
)


def tables(s: Sums) -> list[Table]:
    """The two tables of a scope's summed cells (people's and files' sums together)."""
    return [net_outcomes(s), counterfactual(s)]


def net_outcomes(s: Sums) -> Table:
    rows, too_small = [], []
    for months, key, en, fr in MILESTONES:
        figures, small = _net_figures(s, months)
        rows.append(Row(key, en, fr, figures))
        if small:
            too_small.append(months)
    note_en, note_fr = _note(too_small)
    return Table(
        id="net-outcomes",
        title_en="Gross and net employment",
        title_fr="Emploi brut et net",
        columns=NET_COLUMNS,
        rows=tuple(rows),
        note_en=note_en,
        note_fr=note_fr,
    )


def _rate(numerator: int, denominator: int, response: Figure | None = None) -> Figure:
    return Figure(
        Unit.RATE,
        numerator=numerator,
        denominator=denominator,
        people=denominator,
        response=response,
    )


def _net_figures(s: Sums, months: int) -> tuple[dict[str, Figure], bool]:
    treated = net.Rate(s.get(f"employed_{months}", 0), s.get(f"answered_{months}", 0))
    comparison = net.Rate(
        s.get(f"comparison_employed_{months}", 0), s.get(f"comparison_answered_{months}", 0)
    )
    asked = s.get(f"comparison_asked_{months}", 0)
    treated_response = _rate(treated.answered, s.get(f"asked_{months}", 0))
    figures = {
        "gross": _rate(treated.yes, treated.answered, treated_response),
        "comparison": _rate(comparison.yes, comparison.answered, _rate(comparison.answered, asked)),
        "comparison_size": Figure(
            Unit.PEOPLE, value=comparison.answered, people=comparison.answered
        ),
    }
    found = net.net(treated, comparison)
    fewest = min(treated.answered, comparison.answered)
    bounds = (found.difference, found.low, found.high) if found else (None, None, None)
    for name, bound in zip(("net", "net_low", "net_high"), bounds, strict=True):
        value = None if bound is None else net.hundredths_of_a_point(bound)
        figures[name] = Figure(Unit.POINTS, value=value, people=fewest)
    return figures, found is None


def _note(too_small: list[int]) -> tuple[str, str]:
    """The plain sentence about milestones whose groups are too small (no count in it: a
    count might be one that suppression hides)."""
    if not too_small:
        return (
            "Net = gross − comparison group. The comparison group is not chosen at random: it"
            " shows what happened to similar applicants the grant could not fund.",
            "Net = brut − groupe de comparaison. Le groupe de comparaison n'est pas tiré au"
            " hasard : il montre ce qu'il est advenu de demandeurs semblables que la subvention"
            " n'a pu financer.",
        )
    when_en = " and ".join(f"{m} months" for m in too_small)
    when_fr = " et ".join(f"{m} mois" for m in too_small)
    rule_en = (
        f"at least {net.MIN_ANSWERS} answers in each group, with at least {net.MIN_EACH}"
        " people employed and not employed"
    )
    rule_fr = (
        f"au moins {net.MIN_ANSWERS} réponses dans chaque groupe, dont au moins {net.MIN_EACH}"
        " personnes en emploi et sans emploi"
    )
    return (
        f"At {when_en}, the groups are too small for a net figure to mean anything: it needs"
        f" {rule_en}. Only the gross figures are given.",
        f"À {when_fr}, les groupes sont trop petits pour qu'un chiffre net ait un sens : il"
        f" faut {rule_fr}. Seuls les chiffres bruts sont donnés.",
    )


COUNTERFACTUAL_COLUMNS = tuple(
    _column(
        f"at_{when}",
        Unit.RATE,
        en,
        fr,
        f"Participants whose employer gave this answer {about_en}, over participants whose"
        " employer answered. Response rate: participants whose employer answered over"
        " participants.",
        f"Participants dont l'employeur a donné cette réponse {about_fr}, sur les participants"
        " dont l'employeur a répondu. Taux de réponse : participants dont l'employeur a répondu"
        " sur l'ensemble des participants.",
    )
    for when, en, fr, about_en, about_fr in (
        ("application", "At application", "À la demande", "when applying", "dans sa demande"),
        (
            "completion",
            "In the completion report",
            "Dans le rapport d'achèvement",
            "in the completion report",
            "dans le rapport d'achèvement",
        ),
    )
)


def counterfactual(s: Sums) -> Table:
    """The participants by answer; the total row is everyone answered (its share: answered over
    participants), so that suppression's parts = total holds."""
    answers = {when: _answers(s, when) for when in ("application", "completion")}
    rows = []
    for value, label_en, label_fr in equity_rows(Counterfactual)[:-1]:  # no "not answered"
        figures = {}
        for when, (by_answer, answered, participants) in answers.items():
            response = _rate(answered, participants)
            figures[f"at_{when}"] = Figure(
                Unit.RATE,
                numerator=by_answer.get(value, 0),
                denominator=answered,
                people=by_answer.get(value, 0),
                response=response,
            )
        rows.append(Row(value, label_en, label_fr, figures))
    total = {
        f"at_{when}": Figure(
            Unit.RATE, numerator=answered, denominator=participants, people=answered
        )
        for when, (_, answered, participants) in answers.items()
    }
    rows.append(
        Row("total", "Answered (share of participants)", "Réponses (part des participants)", total)
    )
    return Table(
        id="counterfactual",
        title_en="Would the training have happened without the grant?",
        title_fr="La formation aurait-elle eu lieu sans la subvention?",
        columns=COUNTERFACTUAL_COLUMNS,
        rows=tuple(rows),
        note_en="“Yes, as planned” is training that would have happened anyway; “later” and"
        " “smaller”, training the grant brought forward or enlarged. Counted by participant.",
        note_fr="« Oui, comme prévu » désigne une formation qui aurait eu lieu de toute façon;"
        " « plus tard » et « moins importante », une formation que la subvention a avancée ou"
        " élargie. Compté par participant.",
    )


def _answers(s: Sums, when: str) -> tuple[dict[str, int], int, int]:
    prefix = f"counterfactual_{when}:"
    by_answer = {name[len(prefix) :]: n for name, n in s.items() if name.startswith(prefix)}
    answered = sum(n for answer, n in by_answer.items() if answer)
    return by_answer, answered, s.get("participants", 0)
