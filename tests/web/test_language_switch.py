"""The language button of a form (without JavaScript; tests/e2e/test_language_toggle.py presses
the header's toggle): it posts what was typed to the same page in the other language, which
shows it back, checks nothing and writes nothing. The wizard keeps its steps in the draft
(tests/web/test_employer_drafts.py); here the trainee's participant form, the agreement's
acceptance and its confirmation, and the completion report."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.conftest import changes_audited
from tests.participants import SIN, answers, approved_application, latest_link
from tests.personas import EMPLOYER
from tests.service.grants.agreement_helpers import approved
from tests.service.grants.outcome_helpers import after_training, ended_file

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.completion import TraineeOutcome
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.grants.participants import actions as participant_actions

pytestmark = pytest.mark.django_db
SWITCH = {"switch-language": "yes"}


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def signed_in() -> Client:
    client = Client()
    client.force_login(User.objects.get(username=EMPLOYER.username))
    return client


def test_the_participant_form_keeps_every_answer_but_the_sin_through_the_button(
    demo: None,
) -> None:
    slot = participant_actions.invite_participant(
        EMPLOYER.get(),
        approved_application(),
        {"trainee": 0, "email": "amelie@example.com", "language": "en"},
    )
    token = latest_link(slot)[1]
    client = Client()
    form = text(client.get(f"/en/participate/{token}/"))
    assert f'formaction="/fr/participer/{token}/"' in form
    entries = changes_audited()
    typed = answers(street_address="12, rue King Est", consent="")
    switched = client.post(f"/fr/participer/{token}/", {**typed, **SWITCH})
    assert switched.status_code == 200
    page = text(switched)
    assert '<html lang="fr">' in page and "<gcds-error-summary" not in page
    for name in ("given_name", "family_name", "date_of_birth", "street_address", "noc"):
        assert f'value="{typed[name]}"' in page, name
    assert 'value="ON" selected' in page
    assert re.search(r'name="gender" value="woman"[^>]*checked', page)
    assert SIN not in page and "n'est pas réaffiché" in page  # cleared, and the page says why
    assert Participant.objects.get(pk=slot.pk).state == "invited"
    assert changes_audited() == entries


def test_the_acceptance_and_its_confirmation_keep_what_was_typed(demo: None) -> None:
    agreement = approved()
    client = signed_in()
    path = f"/employer/applications/{agreement.application_id}/agreement/accept/"
    form = text(client.get(f"/en{path}"))
    assert f'formaction="{page_path("fr", path)}"' in form
    typed = {"signatory": "Ada Tremblay", "title": "Propriétaire", "cost_schedule": "yes"}
    switched = client.post(page_path("fr", path), {**typed, **SWITCH})
    assert switched.status_code == 200
    page = text(switched)
    assert '<html lang="fr">' in page and "<gcds-error-summary" not in page
    assert 'value="Ada Tremblay"' in page and 'value="Propriétaire"' in page
    assert 'id="id_cost_schedule" name="cost_schedule" value="yes" checked' in page
    assert 'id="id_agreement" name="agreement" value="yes" checked' not in page
    every = {**typed, "agreement": "yes", "general_terms": "yes", "confirm": "yes"}
    confirming = client.post(f"/en{path}", {**every, **SWITCH})  # from the confirmation step
    assert confirming.status_code == 200
    assert 'id="confirm-signatory">Ada Tremblay<' in text(confirming)
    assert Agreement.objects.get(pk=agreement.pk).state == "issued"


def test_the_completion_report_keeps_what_was_typed(demo: None) -> None:
    application, slots = ended_file()
    path = f"/employer/applications/{application.pk}/completion-report/"
    with after_training():
        client = signed_in()
        client.post(f"/en{path}", {"action": "start"})
        form = text(client.get(f"/en{path}"))
        assert f'formaction="{page_path("fr", path)}"' in form
        first = slots[0].pk
        typed = {f"t{first}-noc": "72410", f"t{first}-hourly_wage_before": "24,50"}
        switched = client.post(
            page_path("fr", path), {**typed, "feedback": "Très utile.", **SWITCH}
        )
    assert switched.status_code == 200
    page = text(switched)
    assert '<html lang="fr">' in page and "<gcds-error-summary" not in page
    assert 'value="72410"' in page and 'value="24,50"' in page and "Très utile." in page
    assert not TraineeOutcome.objects.exists()


def test_the_registration_keeps_what_was_typed_but_the_passwords(demo: None) -> None:
    from jobgrant.service.registry.models import Employer

    form = text(Client().get("/en/register/"))
    assert 'formaction="/fr/inscription/"' in form
    typed = {"name": "Boulangerie Prairie", "city": "Saskatoon", "password": "secret-words-here"}
    employers = Employer.objects.count()
    switched = Client().post("/fr/inscription/", {**typed, **SWITCH})
    assert switched.status_code == 200
    page = text(switched)
    assert 'value="Boulangerie Prairie"' in page and 'value="Saskatoon"' in page
    assert "secret-words-here" not in page and "<gcds-error-summary" not in page
    assert Employer.objects.count() == employers


def test_the_staff_form_and_the_decline_keep_what_was_typed(demo: None) -> None:
    from tests.personas import ADMIN

    admin = Client()
    admin.force_login(ADMIN.get())
    switched = admin.post(
        "/fr/personnel/nouveau/", {"username": "noor", "first_name": "Noor", **SWITCH}
    )
    assert switched.status_code == 200
    assert 'value="noor"' in text(switched) and "<gcds-error-summary" not in text(switched)
    assert not User.objects.filter(username="noor").exists()
    agreement = approved()
    path = f"/fr/employeur/demandes/{agreement.application_id}/entente/refuser/"
    declined = signed_in().post(path, {"reason": "Le calendrier a changé.", **SWITCH})
    assert declined.status_code == 200 and "Le calendrier a changé." in text(declined)
    assert Agreement.objects.get(pk=agreement.pk).state == "issued"


def test_the_follow_ups_keep_what_was_typed(demo: None) -> None:
    from tests.service.grants.outcome_helpers import at, submitted_report

    from jobgrant.service.grants.completion import follow_ups as follow_up_actions
    from jobgrant.service.grants.models.completion import FollowUp, FollowUpState
    from jobgrant.service.notifications.models import Message

    application, slots = submitted_report()
    employer_path = f"/employer/applications/{application.pk}/follow-ups/3/"
    with at(FollowUp.objects.first().due_on):
        follow_up_actions.send_due_follow_ups()
        body = Message.objects.filter(kind="follow_up_trainee").order_by("id").first().body
        token = re.search(r"/(?:follow-up|suivi)/([0-9a-f]{64})/", body)[1]
        trainee = Client()
        assert f'formaction="/fr/suivi/{token}/"' in text(trainee.get(f"/en/follow-up/{token}/"))
        switched = trainee.post(f"/fr/suivi/{token}/", {"weekly_hours": "38", **SWITCH})
        client = signed_in()
        typed = {f"p{slots[0].pk}-weekly_hours": "37", **SWITCH}
        employer = client.post(page_path("fr", employer_path), typed)
    assert switched.status_code == 200 and 'value="38"' in text(switched)
    assert employer.status_code == 200 and 'value="37"' in text(employer)
    assert "<gcds-error-summary" not in text(switched) + text(employer)
    assert not FollowUp.objects.filter(state=FollowUpState.RESPONDED).exists()


def test_a_change_request_and_its_review_keep_what_was_typed(demo: None) -> None:
    from tests.service.grants.change_helpers import accepted

    from jobgrant.service.grants.models.changes import ChangeRequest

    agreement = accepted()
    client = signed_in()
    path = f"/employer/applications/{agreement.application_id}/changes/new/dates/"
    assert f'formaction="{page_path("fr", path)}"' in text(client.get(f"/en{path}"))
    typed = {"start_date": "2027-01-18", "end_date": "", "note": "La salle est réservée."}
    form = client.post(page_path("fr", path), {**typed, **SWITCH})
    assert form.status_code == 200 and 'value="2027-01-18"' in text(form)
    assert "La salle est réservée." in text(form) and "<gcds-error-summary" not in text(form)
    review = client.post(page_path("fr", path), {**typed, "confirm": "yes", **SWITCH})
    assert review.status_code == 200 and 'id="change-diff"' in text(review)
    assert "18 janvier 2027" in text(review)
    assert not ChangeRequest.objects.exists()
