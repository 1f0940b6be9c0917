"""Pages that offered what could not be done, or hid what was done: the officer who recommended
sees no Approve button (a second officer approves); a staff account whose owner has not set a
password is "Invited", not "Active"; the completion report is not offered before it opens; a
follow-up not yet due says when it opens, in the future; the answers given are shown back."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.personas import ADMIN, EMPLOYER, OFFICER, SECOND_OFFICER
from tests.service.grants.outcome_helpers import at, ended_file, submitted_report

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.completion import follow_ups as follow_up_actions
from jobgrant.service.grants.models.completion import FollowUp
from jobgrant.service.people import staff as staff_actions

pytestmark = pytest.mark.django_db


def signed_in(who: Any) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=who.username))
    return client


def text(answer: Any) -> str:
    return html.unescape(answer.content.decode()).replace("\u00a0", " ").replace("\u202f", " ")


@pytest.mark.parametrize(
    ("language", "hint"),
    [
        ("en", "You recommended this application: a second officer must approve it."),
        ("fr", "Vous avez recommandé cette demande : un deuxième agent doit l'approuver."),
    ],
)
def test_the_officer_who_recommended_sees_no_approve_button_and_is_told_why(
    make_body: Any, language: str, hint: str
) -> None:
    employer = EMPLOYER.get()
    application = actions.create_application(employer, make_body())
    actions.submit_application(employer, application)
    actions.recommend_application(OFFICER.get(), application, "Meets the rules.")
    review = page_path(language, f"/officer/applications/{application.pk}/")
    own = text(signed_in(OFFICER).get(review))
    assert 'id="approve-button"' not in own
    assert hint in own
    assert 'id="deny-button"' in own
    colleague = text(signed_in(SECOND_OFFICER).get(review))
    assert 'id="approve-button"' in colleague and 'id="sod-hint"' not in colleague


@pytest.mark.parametrize(
    ("language", "invited", "active"),
    [
        ("en", "Invited: waiting for set-up", "Active"),
        ("fr", "Invité : en attente de configuration", "Actif"),
    ],
)
def test_a_staff_account_is_invited_until_its_owner_sets_a_password(
    demo: None, language: str, invited: str, active: str
) -> None:
    made = staff_actions.create_staff(
        ADMIN.get(),
        {
            "username": "new-analyst",
            "email": "new-analyst@example.gc.ca",
            "first_name": "Nora",
            "last_name": "Analyst",
            "role": "analyst",
        },
    )
    page = text(signed_in(ADMIN).get(page_path(language, "/staff/")))
    status = page.split(f'id="status-{made.pk}">', 1)[1].split("</td>", 1)[0]
    assert status == invited
    made.set_password("a long pass phrase for the analyst")
    made.save()
    page = text(signed_in(ADMIN).get(page_path(language, "/staff/")))
    assert page.split(f'id="status-{made.pk}">', 1)[1].split("</td>", 1)[0] == active


@pytest.mark.parametrize(
    ("language", "opens"),
    [("en", "The report opens on"), ("fr", "Le rapport ouvre le")],
)
def test_the_completion_report_is_not_offered_before_it_opens(
    demo: None, language: str, opens: str
) -> None:
    application, _slots = ended_file()  # before the training
    page = text(
        signed_in(EMPLOYER).get(
            page_path(language, f"/employer/applications/{application.pk}/completion-report/")
        )
    )
    assert 'id="start-report"' not in page
    assert opens in page


def test_a_follow_up_not_yet_due_says_when_it_opens_and_answers_given_are_shown_back(
    demo: None,
) -> None:
    application, slots = submitted_report()
    client = signed_in(EMPLOYER)
    twelve = text(client.get(f"/en/employer/applications/{application.pk}/follow-ups/12/"))
    assert "This follow-up opens on" in twelve and "we will ask you then" in twelve
    assert "answered" not in twelve.split('id="not-yet"', 1)[1].split("</p>", 1)[0]
    path = f"/en/employer/applications/{application.pk}/follow-ups/3/"
    first = FollowUp.objects.filter(milestone=3).order_by("due_on").first()
    assert first is not None
    with at(first.due_on):
        follow_up_actions.send_due_follow_ups()
        client = signed_in(EMPLOYER)  # months later: a new session
        sent = client.post(
            path,
            {
                f"p{slots[0].pk}-employed": "yes",
                f"p{slots[0].pk}-same_employer": "yes",
                f"p{slots[0].pk}-weekly_hours": "40",
                f"p{slots[0].pk}-hourly_wage": "24.50",
                f"p{slots[1].pk}-employed": "no",
            },
        )
        assert sent.status_code == 302
        shown = client.get(path)
        assert shown.status_code == 200
        after = text(shown)
    given = after.split('id="given"', 1)[1].split("</table>", 1)[0]
    assert "Trainee 1" in given and "40" in given and "$24.50" in given
    assert "Trainee 2" in given and "No" in given
