"""The follow-ups at 3 and 12 months: their days across month ends and leap days, sending (one
message per trainee, one per file for the employer), one reminder, lapsing (never sent again),
the trainee's single-use link in either language, the employer's answers."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from tests.personas import EMPLOYER
from tests.service.grants.outcome_helpers import at, submitted_report

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.completion import follow_ups
from jobgrant.service.grants.completion.schedule import due_on
from jobgrant.service.grants.models.completion import FollowUp, FollowUpLink, FollowUpState
from jobgrant.service.notifications.models import Message

pytestmark = pytest.mark.django_db
THREE_MONTHS = dt.date(2027, 6, 26)  # the training of the fixture ended on 2027-03-26
LINK = re.compile(r"/(en|fr)/(?:follow-up|suivi)/([0-9a-f]{64})/")


@pytest.mark.parametrize(
    ("ended", "months", "expected"),
    [
        ("2027-01-31", 1, "2027-02-28"),  # the end of a month kept
        ("2028-01-31", 1, "2028-02-29"),  # a leap year
        ("2027-11-30", 3, "2028-02-29"),  # the end of November → the end of February (leap)
        ("2026-11-30", 3, "2027-02-28"),
        ("2027-02-28", 3, "2027-05-31"),  # February's last day is a month end
        ("2028-02-28", 3, "2028-05-28"),  # not the last day of a leap February
        ("2028-02-29", 12, "2029-02-28"),
        ("2027-08-31", 3, "2027-11-30"),
        ("2027-11-29", 3, "2028-02-29"),
        ("2027-10-15", 3, "2028-01-15"),  # across a year
        ("2027-03-26", 12, "2028-03-26"),
    ],
)
def test_a_follow_up_is_due_n_months_later_with_the_end_of_month_kept(
    ended: str, months: int, expected: str
) -> None:
    assert due_on(dt.date.fromisoformat(ended), months) == dt.date.fromisoformat(expected)


def trainee_links(language: str | None = None) -> list[tuple[str, str, str]]:
    """(kind, language, token) of each link sent to a trainee, oldest first."""
    found = []
    for message in Message.objects.filter(kind__startswith="follow_up_trainee").order_by("id"):
        match = LINK.search(message.body)
        assert match is not None, message.body
        found.append((message.kind, match[1], match[2]))
    return [link for link in found if language is None or link[1] == language]


def test_nothing_is_sent_before_the_day_then_one_message_per_trainee_and_one_per_file(
    demo: None,
) -> None:
    application, _ = submitted_report(trainee_language="fr")
    with at(THREE_MONTHS - dt.timedelta(days=1)):
        assert follow_ups.send_due_follow_ups() == 0
    with at(THREE_MONTHS):
        assert follow_ups.send_due_follow_ups() == 4  # 2 trainees + 2 employer rows
        assert follow_ups.send_due_follow_ups() == 0  # idempotent
    sent = FollowUp.objects.filter(state=FollowUpState.SENT)
    assert sorted(sent.values_list("milestone", flat=True)) == [3, 3, 3, 3]
    messages = Message.objects.filter(kind__startswith="follow_up")
    by_recipient = sorted(messages.values_list("recipient", "kind", "language"))
    assert by_recipient == [
        ("applicant@example.ca", "follow_up_employer", "en"),
        ("trainee0@example.com", "follow_up_trainee", "en"),
        ("trainee1@example.com", "follow_up_trainee", "fr"),
    ]
    french = messages.get(recipient="trainee1@example.com")
    assert "3 mois après votre formation" in french.subject_line
    assert "/fr/suivi/" in french.body
    employer = messages.get(kind="follow_up_employer")
    assert f"/en/employer/applications/{application.pk}/follow-ups/3/" in employer.body
    assert "2 trainee(s)" in employer.body
    assert FollowUpLink.objects.count() == 2


def test_the_trainee_answers_once_through_the_link_in_either_language(demo: None) -> None:
    submitted_report()
    with at(THREE_MONTHS):
        follow_ups.send_due_follow_ups()
        [(_, language, token), _] = trainee_links()
        assert language == "en"
        with pytest.raises(ServiceError) as bad:
            follow_ups.answer_follow_up(token, {"employed": "yes", "weekly_hours": "200"})
        fields = {problem["field"] for problem in bad.value.problems}
        assert fields == {"same_employer", "weekly_hours"}
        french = {p["field"]: p["message_fr"] for p in bad.value.problems}
        assert "heures par semaine" in french["weekly_hours"]
        assert not FollowUp.objects.filter(state=FollowUpState.RESPONDED).exists()
        # The same link, answered from its French page (the action does not care which).
        answered = follow_ups.answer_follow_up(
            token,
            {
                "employed": "oui",
                "same_employer": "non",
                "weekly_hours": "35",
                "hourly_wage": "26,40",
            },
        )
        with pytest.raises(ServiceError) as again:
            follow_ups.answer_follow_up(token, {"employed": "no"})
    assert again.value.code == "FOLLOW_UP_LINK_USED" and again.value.status == 410
    answered.refresh_from_db()
    assert answered.state == FollowUpState.RESPONDED
    assert (answered.employed, answered.same_employer) == (True, False)
    assert (answered.weekly_hours, answered.hourly_wage_cents) == (35, 2640)
    entry = AuditEntry.objects.get(action="follow_up.respond")
    assert "hourly_wage_cents" not in entry.summary and entry.actor.startswith("participant:")


def test_one_reminder_with_a_new_link_then_the_survey_lapses_and_is_never_sent_again(
    demo: None,
) -> None:
    submitted_report()
    with at(THREE_MONTHS):
        follow_ups.send_due_follow_ups()
    first_token = trainee_links()[0][2]
    with at(THREE_MONTHS + dt.timedelta(days=13)):
        assert follow_ups.remind_follow_ups() == 0
    with at(THREE_MONTHS + dt.timedelta(days=14)):
        assert follow_ups.remind_follow_ups() == 4
        assert follow_ups.remind_follow_ups() == 0  # one reminder only
        with pytest.raises(ServiceError) as replaced:
            follow_ups.open_follow_up_link(first_token)
        assert replaced.value.code == "FOLLOW_UP_LINK_REPLACED"
    reminders = Message.objects.filter(kind__endswith="_reminder")
    assert reminders.count() == 3  # two trainees, one employer message for the file
    new_token = next(t for kind, _, t in trainee_links() if kind.endswith("reminder"))
    with at(THREE_MONTHS + dt.timedelta(days=28)):
        assert follow_ups.lapse_follow_ups() == 4
        with pytest.raises(ServiceError) as closed:
            follow_ups.answer_follow_up(new_token, {"employed": "no"})
        assert closed.value.code == "FOLLOW_UP_LINK_EXPIRED"
    assert set(FollowUp.objects.filter(milestone=3).values_list("state", flat=True)) == {
        FollowUpState.LAPSED
    }
    count = Message.objects.count()
    with at(dt.date(2027, 12, 1)):
        assert follow_ups.send_due_follow_ups() == 0
        assert follow_ups.remind_follow_ups() == 0
        assert follow_ups.lapse_follow_ups() == 0
    assert Message.objects.count() == count
    assert FollowUp.objects.filter(milestone=3, state=FollowUpState.LAPSED).count() == 4


def test_the_employer_answers_for_its_trainees_once(demo: None) -> None:
    application, slots = submitted_report()
    with pytest.raises(ServiceError) as early:
        follow_ups.answer_employer_follow_ups(
            application, 3, {slots[0].pk: {"employed": "no"}}, by=EMPLOYER.get()
        )
    assert early.value.code == "NO_FOLLOW_UP"  # not sent yet
    with at(THREE_MONTHS):
        follow_ups.send_due_follow_ups()
        with pytest.raises(ServiceError) as bad:
            follow_ups.answer_employer_follow_ups(
                application,
                3,
                {slots[0].pk: {"employed": "maybe"}, 999999: {"employed": "no"}},
                by=EMPLOYER.get(),
            )
        assert {p["field"] for p in bad.value.problems} == {f"{slots[0].pk}.employed", "999999"}
        rows = follow_ups.answer_employer_follow_ups(
            application,
            3,
            {
                slots[0].pk: {"employed": True, "same_employer": True, "weekly_hours": 40},
                slots[1].pk: {"employed": False},
            },
            by=EMPLOYER.get(),
        )
        with pytest.raises(ServiceError) as again:
            follow_ups.answer_employer_follow_ups(
                application, 3, {slots[1].pk: {"employed": True}}, by=EMPLOYER.get()
            )
    assert again.value.code == "NO_FOLLOW_UP"
    assert [row.state for row in rows] == [FollowUpState.RESPONDED] * 2
    trainee_rows = FollowUp.objects.filter(respondent="trainee", milestone=3)
    assert set(trainee_rows.values_list("state", flat=True)) == {FollowUpState.SENT}
