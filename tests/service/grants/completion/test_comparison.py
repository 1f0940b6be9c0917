"""The net outcomes' answers at application and the comparison group: a file refused for lack
of budget joins it, is asked at 3 and 12 months by an e-mailed link, with consent; and the
evaluator's export, which names nobody and keeps one pseudonym per person for one key."""

from __future__ import annotations

import copy
import csv
import datetime as dt
import io
import re
from typing import Any

import pytest
from django.db import transaction
from django.db.models import F
from tests.conftest import application_body, applications
from tests.personas import ANALYST, EMPLOYER, OFFICER, SECOND_OFFICER

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.completion import comparison
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.comparison import ComparisonFollowUp
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount
from jobgrant.service.notifications.models import Message
from jobgrant.service.outcomes import evaluation_export
from jobgrant.service.outcomes.access import export_evaluation

pytestmark = pytest.mark.django_db
LINK = re.compile(r"/(en|fr)/(?:comparison|comparaison)/([0-9a-f]{64})/")
#: The training of application_body ends 2027-03-26: asked on 2027-06-26 and 2028-03-26.
THREE_MONTHS = dt.date(2027, 6, 26)


def _trainee(**baseline: Any) -> dict[str, Any]:
    trainee = copy.deepcopy(application_body()["trainees"][0])
    trainee["baseline"] = baseline
    return trainee


def _refused_for_lack_of_budget() -> Application:
    """Two named trainees; the officer's approval is refused: the budget is spent."""
    employer = EMPLOYER.get()
    employer.email = "applicant@example.ca"
    employer.save(update_fields=["email"])
    trainees = [
        _trainee(employed=True, wage_band="20-30", weekly_hours=37),
        _trainee(employed=False),
    ]
    body = application_body(trainees=trainees, counterfactual="yes-later")
    application = actions.create_application(employer, body)
    actions.submit_application(employer, application)
    actions.recommend_application(OFFICER.get(), application)
    spent = BudgetAccount.objects.filter(funder="federal", jurisdiction="ON")
    # Nothing left to commit: what is committed, and what Ontario's ranked intake earmarked.
    spent.update(allocated_cents=F("committed_cents") + F("earmarked_cents"))
    with pytest.raises(ServiceError) as refused:
        actions.approve_application(SECOND_OFFICER.get(), application)
    assert refused.value.code == "BUDGET_EXHAUSTED"
    return application


def test_the_answers_for_the_evaluation_are_kept_and_never_reach_the_rules(demo: None) -> None:
    application = _refused_for_lack_of_budget()
    assert application.counterfactual == "yes-later"
    assert application.request["trainees"][0]["baseline"] == {
        "employed": True,
        "wage_band": "20-30",
        "weekly_hours": 37,
    }
    assert application.eligible  # the kernel quoted it without the baseline


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"counterfactual": "perhaps"}, "counterfactual"),
        (
            {"trainees": [_trainee(employed=True, weekly_hours=37)]},
            "trainees[0].baseline.wage_band",
        ),
        (
            {"trainees": [_trainee(employed=True, wage_band="20-30", weekly_hours=0)]},
            "trainees[0].baseline.weekly_hours",
        ),
        ({"trainees": [_trainee(employed="maybe")]}, "trainees[0].baseline.employed"),
    ],
)
def test_a_bad_answer_is_named_and_nothing_is_written(
    demo: None, changes: dict[str, Any], field: str
) -> None:
    before = applications().count()
    with pytest.raises(ServiceError) as refused:
        actions.create_application(EMPLOYER.get(), application_body(**changes))
    assert refused.value.status == 422
    assert field in {problem["field"] for problem in refused.value.problems}
    assert applications().count() == before


def test_a_file_refused_for_lack_of_budget_joins_the_comparison_group_once(demo: None) -> None:
    application = _refused_for_lack_of_budget()
    assert [a.pk for a, _ in comparison.comparison_applications("2026-27")] == [application.pk]
    assert comparison.enrol_comparison_group() == 1
    assert comparison.enrol_comparison_group() == 0
    rows = ComparisonFollowUp.objects.filter(application=application).order_by("due_on", "position")
    assert [(r.position, r.milestone, r.due_on.isoformat()) for r in rows] == [
        (0, 3, "2027-06-26"),
        (1, 3, "2027-06-26"),
        (0, 12, "2028-03-26"),
        (1, 12, "2028-03-26"),
    ]
    assert AuditEntry.objects.filter(action="comparison.enrol").count() == 1


def test_a_file_refused_by_its_intakes_own_budget_joins_too(demo: None) -> None:
    """An intake with a budget of its own (an earmark on the account), spent: the approval is
    refused INTAKE_BUDGET_EXHAUSTED, a lack of budget as the account's."""
    employer = EMPLOYER.get()
    application = actions.create_application(employer, application_body())
    actions.submit_application(employer, application)
    actions.recommend_application(OFFICER.get(), application)
    intake = application.intake
    account = BudgetAccount.objects.get(
        funder="federal", jurisdiction="ON", fiscal_year=application.fiscal_year, stream="CJG"
    )
    with transaction.atomic():
        operations.set_earmark(intake.pk, account, 100, actor="test")  # one dollar
    with pytest.raises(ServiceError) as refused:
        actions.approve_application(SECOND_OFFICER.get(), application)
    assert refused.value.code == "INTAKE_BUDGET_EXHAUSTED"
    joined = comparison.refused_for_lack_of_budget(application.fiscal_year)
    assert (application.pk, "no-budget") in {(a.pk, source) for a, source in joined}


def _asked() -> tuple[Application, str]:
    application = _refused_for_lack_of_budget()
    comparison.enrol_comparison_group()
    assert comparison.send_due_comparison(THREE_MONTHS - dt.timedelta(days=1)) == 0
    assert comparison.send_due_comparison(THREE_MONTHS) == 2
    message = Message.objects.get(kind="comparison_questions")
    assert message.recipient == "applicant@example.ca"
    match = LINK.search(message.body)
    assert match is not None, message.body
    return application, match[2]


def test_with_consent_the_employer_answers_for_each_person_once(demo: None) -> None:
    application, token = _asked()
    with pytest.raises(ServiceError) as refused:
        comparison.answer_comparison(token, "yes", {0: {"employed": "yes"}})
    fields = {problem["field"] for problem in refused.value.problems}
    assert {"trainees[0].same_employer", "trainees[1].employed"} <= fields
    answers = {
        0: {"employed": "yes", "same_employer": "yes", "weekly_hours": "37", "hourly_wage": "26"},
        1: {"employed": "no"},
    }
    comparison.answer_comparison(token, "yes", answers)
    three = ComparisonFollowUp.objects.filter(application=application, milestone=3)
    assert [(r.state, r.employed, r.consent) for r in three.order_by("position")] == [
        ("responded", True, True),
        ("responded", False, True),
    ]
    with pytest.raises(ServiceError) as again:
        comparison.answer_comparison(token, "yes", answers)
    assert again.value.code == "FOLLOW_UP_LINK_USED"


def test_without_consent_nothing_more_is_asked(demo: None) -> None:
    application, token = _asked()
    comparison.answer_comparison(token, "no", {})
    states = set(
        ComparisonFollowUp.objects.filter(application=application).values_list("state", "consent")
    )
    assert states == {("declined", False)}
    assert comparison.send_due_comparison(dt.date(2028, 3, 26)) == 0


def test_the_page_asks_consent_in_french_and_records_the_answers(demo: None, client: Any) -> None:
    application, token = _asked()
    page = client.get(f"/fr/comparaison/{token}/")
    assert page.status_code == 200
    assert "Acceptez-vous que vos réponses" in page.content.decode()
    refused = client.post(f"/fr/comparaison/{token}/", {"consent": "yes"})
    assert refused.status_code == 422
    posted = {
        "consent": "yes",
        "t0-employed": "no",
        "t1-employed": "yes",
        "t1-same_employer": "no",
        "t1-weekly_hours": "20",
    }
    done = client.post(f"/fr/comparaison/{token}/", posted)
    assert done.status_code == 302
    employed = ComparisonFollowUp.objects.filter(application=application, milestone=3)
    assert [r.employed for r in employed.order_by("position")] == [False, True]


def test_the_evaluation_export_names_nobody_and_keeps_one_pseudonym_per_key(
    canonical_file: Any,
) -> None:
    """A completed file's trainees (named, with a SIN) and a refused file's named trainees."""
    completed = canonical_file("completed")
    application = _refused_for_lack_of_budget()
    comparison.enrol_comparison_group()
    year = completed.fiscal_year
    assert year == application.fiscal_year
    first = export_evaluation(ANALYST.get(), year)
    second = export_evaluation(ANALYST.get(), year)
    rows = list(csv.DictReader(io.StringIO(first)))
    mine = [row for row in rows if row["group"] == "comparison"]
    assert len(mine) == 2 and mine[0]["baseline_wage_band"] == "20-30"
    assert mine[0]["counterfactual_application"] == "yes-later"
    treated = [row for row in rows if row["group"] == "treated"]
    assert treated and all(row["completed"] in ("yes", "no") for row in treated)
    assert first == second  # the same key, the same pseudonyms
    assert all(re.fullmatch(r"t1-[0-9a-f]{32}", row["person"]) for row in rows)
    secrets = {EMPLOYER.get().username, "applicant@example.ca"}
    for slot in Participant.objects.filter(application=completed):
        secrets |= {slot.given_name, slot.family_name, slot.email, slot.sin(), slot.sin_index}
    text = first.lower()
    assert not [s for s in secrets if s and s.lower() in text]
    other = evaluation_export.pseudonym("comparison:1:0", ("t2", b"k" * 32))
    assert other != evaluation_export.pseudonym("comparison:1:0", ("t1", b"k" * 32))
    entries = AuditEntry.objects.filter(action="evaluation.export")
    assert entries.count() == 2 and entries.last().summary["key"] == "t1"


def test_only_an_analyst_exports(demo: None) -> None:
    with pytest.raises(ServiceError) as refused:
        export_evaluation(OFFICER.get(), "2026-27")
    assert refused.value.status == 403
    assert AuditEntry.objects.filter(action="refused.export_evaluation").exists()
