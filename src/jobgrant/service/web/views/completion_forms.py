"""What the outcome pages read from a posted form and show back: the completion report's fields
per trainee and rating, and the follow-up answers, named so that a refusal's field path
(`trainees[0].noc`, `ratings[3][timely]`, `17.weekly_hours`) finds its control on the page.

The questions' wording comes from the report's version of `grants/outcome_questions/`, in the
page's language; the forms are plain HTML (the questions are data, not Django form classes)."""

from __future__ import annotations

import re
from typing import Any

from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _

from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.completion.question_sets import questions, versions, wording
from jobgrant.service.grants.models.applications import Counterfactual
from jobgrant.service.grants.models.completion import (
    LIKERT_ITEMS,
    CompletionReport,
    EmploymentType,
    FollowUp,
    NotCompletedReason,
)
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.language import current_language, in_language, labelled
from jobgrant.service.web import field_errors
from jobgrant.service.web.templatetags.jobgrant import money

TRAINEE_INPUTS = (
    "completed",
    "not_completed_reason",
    "employed_at_end",
    "with_this_employer",
    "employment_type",
    "noc",
    "hourly_wage_before",
    "hourly_wage_after",
)
RADIOS = ("completed", "employed_at_end", "with_this_employer")
FOLLOW_UP_INPUTS = ("employed", "same_employer", "weekly_hours", "hourly_wage")
_TRAINEE_PATH = re.compile(r"trainees\[(\d+)\]\.(\w+)")
_RATING_PATH = re.compile(r"ratings\[(\d+)\]\[([\w-]+)\]")


def yes_no(value: bool | None) -> str:
    return "" if value is None else ("yes" if value else "no")


def dollars(cents: int | None) -> str:
    return "" if cents is None else f"{cents // 100}.{cents % 100:02d}"


# --- The completion report ---------------------------------------------------------------------


def posted_report(
    request: HttpRequest, slots: dict[int, Participant], employers: list[int]
) -> tuple[list[dict[str, Any]], dict[tuple[int, str], str], str, list[int]]:
    """(trainees, ratings, feedback, the participant ids in the order of `trainees`): a trainee
    with nothing typed is left out of the draft."""
    trainees, order = [], []
    for pk in slots:
        typed = {name: request.POST.get(f"t{pk}-{name}", "").strip() for name in TRAINEE_INPUTS}
        if not any(typed.values()):
            continue
        trainees.append({"participant": pk, **{k: v for k, v in typed.items() if v}})
        order.append(pk)
    ratings = {
        (employer, item): request.POST.get(f"r{employer}-{item}", "").strip()
        for employer in employers
        for item in LIKERT_ITEMS
    }
    return (
        trainees,
        {k: v for k, v in ratings.items() if v},
        request.POST.get("feedback", ""),
        order,
    )


def saved_report(report: CompletionReport) -> dict[str, str]:
    """The draft's answers as the form's values, by input name."""
    values = {"feedback": report.feedback, "counterfactual": report.counterfactual}
    for outcome in report.trainees.all():
        pk = outcome.participant_id
        values |= {
            f"t{pk}-completed": yes_no(outcome.completed),
            f"t{pk}-not_completed_reason": outcome.not_completed_reason,
            f"t{pk}-employed_at_end": yes_no(outcome.employed_at_end),
            f"t{pk}-with_this_employer": yes_no(outcome.with_this_employer),
            f"t{pk}-employment_type": outcome.employment_type,
            f"t{pk}-noc": outcome.noc,
            f"t{pk}-hourly_wage_before": dollars(outcome.hourly_wage_before_cents),
            f"t{pk}-hourly_wage_after": dollars(outcome.hourly_wage_after_cents),
        }
    for rating in report.ratings.all():
        values[f"r{rating.employer_id}-{rating.item}"] = str(rating.score)
    return values


def report_problems(error: ServiceError, order: list[int]) -> dict[str, str]:
    """Each problem's message in the page's language, by the name of the input it is about."""
    found: dict[str, str] = {}
    fields = [_generic(str(problem["field"])) for problem in error.problems]
    field_errors.note_problems(REPORT_FORM, fields)
    for problem in error.problems:
        path = problem["field"]
        message = in_language(en=problem["message_en"], fr=problem["message_fr"])
        if match := _TRAINEE_PATH.fullmatch(path):
            index = int(match[1])
            if index < len(order):
                found[f"t{order[index]}-{match[2]}"] = message
        elif match := _RATING_PATH.fullmatch(path):
            found[f"r{match[1]}-{match[2]}"] = message
        else:
            found[path] = message
    return found


#: The completion report's name among the forms whose errors are counted (web/field_errors.py).
REPORT_FORM = "completion.CompletionReport"


def _generic(path: str) -> str:
    """A problem's field without the trainee or rating it is about: "noc", "rating"."""
    if match := _TRAINEE_PATH.fullmatch(path):
        return match[2]
    if _RATING_PATH.fullmatch(path):
        return "rating"
    return path


def anchor(name: str) -> str:
    """The id an error link moves to: a radio group's first button, else the control itself."""
    field = name.rsplit("-", 1)[-1]
    if field in RADIOS or field in ("employed", "same_employer"):
        return f"{name}-yes"
    if re.fullmatch(r"r\d+-[\w-]+", name):
        return f"{name}-1"
    return name


def error_links(problems: dict[str, str], labels: dict[str, str]) -> list[tuple[str, str]]:
    return [
        (f"#{anchor(name)}", labelled(labels.get(name, name), message))
        for name, message in problems.items()
    ]


def report_questions(version: str) -> dict[str, Any]:
    """The wording of every question in the page's language, and the choices' labels."""
    language = current_language()
    data = questions(version)
    return {
        "trainee": {key: wording(version, "trainee", key, language) for key in data["trainee"]},
        "ratings": [(item, wording(version, "ratings", item, language)) for item in LIKERT_ITEMS],
        "scale": [
            (str(point), wording(version, "scale", point, language)) for point in range(1, 6)
        ],
        "feedback": str(data["feedback"][language]),
        "counterfactual": _counterfactual_question(data, language),
        "reasons": [(str(value), str(label)) for value, label in NotCompletedReason.choices],
        "employment_types": [(str(value), str(label)) for value, label in EmploymentType.choices],
    }


def report_answers(
    request: HttpRequest, trainees: list[dict[str, Any]], ratings: Any, feedback: str
) -> dict[str, Any]:
    """What `save_completion_report` takes from the posted form, the counterfactual included."""
    counterfactual = request.POST.get("counterfactual", "")
    return {
        "trainees": trainees,
        "ratings": ratings,
        "feedback": feedback,
        "counterfactual": counterfactual,
    }


def counterfactual_context(values: dict[str, str], problems: dict[str, str]) -> dict[str, str]:
    return {
        "counterfactual": values.get("counterfactual", ""),
        "counterfactual_error": problems.get("counterfactual", ""),
    }


def _counterfactual_question(data: dict[str, Any], language: str) -> dict[str, Any]:
    """The counterfactual question, its help and its answers, as the application asked it
    (a version without it asks nothing)."""
    asked = data.get("counterfactual")
    if not asked:
        return {}
    return {
        "text": str(asked[language]),
        "help": str(asked["help"][language]),
        "choices": [(str(value), str(label)) for value, label in Counterfactual.choices],
    }


def trainee_rows(
    slots: dict[int, Participant], values: dict[str, str], problems: dict[str, str]
) -> list[dict[str, Any]]:
    rows = []
    for pk, slot in slots.items():
        name = f"{slot.given_name} {slot.family_name}".strip() or slot.email
        rows.append(
            {
                "pk": pk,
                "number": slot.position + 1,
                "name": name,
                "names": {field: f"t{pk}-{field}" for field in TRAINEE_INPUTS},
                "values": {field: values.get(f"t{pk}-{field}", "") for field in TRAINEE_INPUTS},
                "errors": {field: problems.get(f"t{pk}-{field}", "") for field in TRAINEE_INPUTS},
            }
        )
    return rows


def input_labels(rows: list[dict[str, Any]], wording_of: dict[str, Any]) -> dict[str, str]:
    labels: dict[str, str] = {"feedback": _("Feedback")}
    for row in rows:
        who = _("Trainee %(n)s") % {"n": row["number"]}
        for field in TRAINEE_INPUTS:
            labels[f"t{row['pk']}-{field}"] = f"{who}, {wording_of['trainee'][field]}"
    return labels


# --- The follow-up answers ---------------------------------------------------------------------


def posted_answers(request: HttpRequest, prefix: str = "") -> dict[str, str]:
    typed = {name: request.POST.get(f"{prefix}{name}", "").strip() for name in FOLLOW_UP_INPUTS}
    return {name: value for name, value in typed.items() if value}


def follow_up_questions() -> dict[str, str]:
    """The follow-up questions in the page's language (the current version's wording)."""
    latest = list(versions())[-1]
    language = current_language()
    return {key: wording(latest, "follow_up", key, language) for key in FOLLOW_UP_INPUTS}


def follow_up_problems(error: ServiceError, prefix_of: dict[str, str]) -> dict[str, str]:
    """Problems by input name: `17.weekly_hours` is `p17-weekly_hours` on the employer's page
    (prefix_of maps "17." to "p17-"); the trainee's `weekly_hours` is itself."""
    found: dict[str, str] = {}
    fields = [_generic(str(problem["field"])) for problem in error.problems]
    field_errors.note_problems(REPORT_FORM, fields)
    for problem in error.problems:
        path = problem["field"]
        message = in_language(en=problem["message_en"], fr=problem["message_fr"])
        head, dot, field = path.rpartition(".")
        name = f"{prefix_of.get(head + dot, '')}{field}" if dot else path
        found[name] = message
    return found


def missing_texts(missing: list[str], version: str, names: dict[int, str]) -> list[str]:
    """`missing_answers`' codes as the page's language says them."""
    language = current_language()
    texts = []
    for code in missing:
        kind, _dash, rest = code.partition("-")
        if kind == "trainee":
            texts.append(_("Trainee %(n)s: the outcome") % {"n": rest})
        else:
            employer, _dash, item = rest.partition("-")
            who = names.get(int(employer), "")
            texts.append(labelled(who, wording(version, "ratings", item, language)))
    return texts


def rating_texts(report: CompletionReport) -> list[str]:
    """The report's ratings as "employer: statement — score/5", in the page's language."""
    language = current_language()
    scale = {
        point: wording(report.questions_version, "scale", point, language) for point in range(1, 6)
    }
    version = report.questions_version
    return [
        labelled(rating.employer.name, wording(version, "ratings", rating.item, language))
        + f" — {rating.score} ({scale[rating.score]})"
        for rating in report.ratings.select_related("employer").order_by("employer_id", "item")
    ]


def answer_row(row: FollowUp) -> dict[str, Any]:
    """What the employer answered for one trainee, as the page shows it back."""

    def yes_no(value: bool | None) -> str:
        return "—" if value is None else (_("Yes") if value else _("No"))

    wage = row.hourly_wage_cents
    return {
        "answered": row.state == "responded",
        "who": _("Trainee %(n)s") % {"n": row.participant.position + 1},
        "employed": yes_no(row.employed),
        "same_employer": yes_no(row.same_employer),
        "weekly_hours": "—" if row.weekly_hours is None else str(row.weekly_hours),
        "hourly_wage": "—" if wage is None else money(wage),
        "on": timezone.localtime(row.responded_at).date() if row.responded_at else None,
    }
