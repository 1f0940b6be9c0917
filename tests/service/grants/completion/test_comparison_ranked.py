"""The comparison group's second source: a ranked intake's files below the cut-off that were not
funded join it as the files refused for lack of budget do, once decided, and are asked at 3 and
12 months with their employer's consent (tests/service/grants/ranking_helpers: D is below)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from tests.personas import EMPLOYER, OFFICER, PROGRAM_MANAGER, SECOND_OFFICER
from tests.service.grants.ranking_helpers import closed, ranked_stream, submitted_files

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.completion import comparison
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.comparison import ComparisonFollowUp
from jobgrant.service.grants.ranking.actions import (
    rank_intake,
    refuse_override,
    request_override,
    sign_off_override,
)
from jobgrant.service.notifications.models import Message

pytestmark = pytest.mark.django_db
REASON = "The employer's plant closes in March: the training must start now or not at all."
LINK = re.compile(r"/(en|fr)/(?:comparison|comparaison)/([0-9a-f]{64})/")
#: The training of application_body ends 2027-03-26: asked on 2027-06-26.
THREE_MONTHS = dt.date(2027, 6, 26)


@pytest.fixture
def files(demo: None) -> dict[str, Application]:
    intake = ranked_stream()
    submitted = submitted_files()
    rank_intake(closed(intake))
    return submitted


def _below(files: dict[str, Application]) -> dict[str, str]:
    """The test's files below the cut-off, by name, with their source."""
    names = {application.pk: name for name, application in files.items()}
    return {
        names[application.pk]: source
        for application, source in comparison.comparison_applications()
        if application.pk in names
    }


def test_a_file_below_the_cut_off_joins_once_the_officer_has_looked_at_it(files) -> None:
    assert _below(files) == {}  # submitted: not decided yet
    for application in files.values():
        actions.recommend_application(OFFICER.get(), application)
    # Recommended below the cut-off: its approval is refused without a signed-off override.
    assert _below(files) == {"D": "below-cut-off"}
    actions.deny_application(SECOND_OFFICER.get(), files["D"], "Below the cut-off.")
    assert _below(files) == {"D": "below-cut-off"}
    year = files["D"].fiscal_year
    assert files["D"].pk in {a.pk for a, _ in comparison.below_cut_off(year)}
    assert files["D"].pk not in {a.pk for a, _ in comparison.below_cut_off("1999-00")}


def test_an_open_request_to_fund_it_keeps_it_out_and_funding_it_takes_it_out(files) -> None:
    actions.recommend_application(OFFICER.get(), files["D"])
    override = request_override(OFFICER.get(), files["D"], "approve", REASON)
    assert _below(files) == {}
    refuse_override(PROGRAM_MANAGER.get(), override, "The ranking stands.")
    assert _below(files) == {"D": "below-cut-off"}
    again = request_override(OFFICER.get(), files["D"], "approve", REASON)
    sign_off_override(PROGRAM_MANAGER.get(), again, "Agreed: the closure is documented.")
    assert _below(files) == {}
    actions.approve_application(SECOND_OFFICER.get(), files["D"])
    assert _below(files) == {}  # funded: never compared


def test_it_is_asked_at_three_months_with_consent_as_a_refused_file_is(files) -> None:
    employer = EMPLOYER.get()
    employer.email = "applicant@example.ca"
    employer.save(update_fields=["email"])
    actions.recommend_application(OFFICER.get(), files["D"])
    actions.deny_application(SECOND_OFFICER.get(), files["D"], "Below the cut-off.")
    already = set(ComparisonFollowUp.objects.values_list("application_id", flat=True))
    assert comparison.enrol_comparison_group() >= 1
    assert comparison.enrol_comparison_group() == 0
    rows = ComparisonFollowUp.objects.filter(application=files["D"])
    assert files["D"].pk not in already
    assert {(r.source, r.milestone, r.position) for r in rows} == {
        ("below-cut-off", 3, 0),
        ("below-cut-off", 12, 0),
    }
    entry = AuditEntry.objects.get(action="comparison.enrol", object_id=str(files["D"].pk))
    assert entry.summary == {"source": "below-cut-off", "trainees": 1}
    comparison.send_due_comparison(THREE_MONTHS)
    message = Message.objects.get(kind="comparison_questions", recipient="applicant@example.ca")
    match = LINK.search(message.body)
    assert match is not None, message.body
    with pytest.raises(ServiceError) as refused:
        comparison.answer_comparison(match[2], "yes", {})
    assert "trainees[0].employed" in {p["field"] for p in refused.value.problems}
    comparison.answer_comparison(match[2], "yes", {0: {"employed": "no"}})
    three = ComparisonFollowUp.objects.get(application=files["D"], milestone=3)
    assert (three.state, three.employed, three.consent) == ("responded", False, True)
