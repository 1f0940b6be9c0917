"""The trainees' pages: the employer invites, re-sends and revokes; the trainee answers through
the link in their language, once; the officer sees who is funded in another file."""

from __future__ import annotations

import html
import io
import logging
from typing import Any

import pytest
from django.test import Client
from tests.conftest import changes_audited, json_lines
from tests.participants import SIN, answers, approved_application, digits, latest_link
from tests.personas import EMPLOYER, OFFICER

from jobgrant.rules.money import format_money
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.grants.participants import actions as participant_actions
from jobgrant.service.notifications.models import Message

pytestmark = pytest.mark.django_db


def signed_in(who: Any) -> Client:
    client = Client()
    client.force_login(who.get())
    return client


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def invited(language: str = "fr", trainee: int = 0) -> tuple[Participant, str]:
    application = approved_application()
    slot = participant_actions.invite_participant(
        EMPLOYER.get(),
        application,
        {"trainee": trainee, "email": "amelie@example.com", "language": language},
    )
    return slot, latest_link(slot)[1]


# --- The employer ------------------------------------------------------------------------------


def test_the_employer_invites_a_trainee_from_the_trainees_page(demo: None) -> None:
    application = approved_application()
    client = signed_in(EMPLOYER)
    detail = text(client.get(f"/en/employer/applications/{application.pk}/"))
    assert f"/en/employer/applications/{application.pk}/trainees/" in detail
    page = client.get(f"/en/employer/applications/{application.pk}/trainees/")
    assert page.status_code == 200
    assert "Every trainee should answer by" in text(page) and "Not invited" in text(page)
    posted = client.post(
        f"/en/employer/applications/{application.pk}/trainees/",
        {"trainee": "1", "email": "lea@example.com", "language": "fr"},
    )
    assert posted.status_code == 302
    after = text(client.get(posted["Location"]))
    assert "Trainee 2 was invited: a message was sent to lea@example.com." in after
    assert 'id="trainee-2-state">Invited<' in after
    assert Message.objects.get(kind="participant_invitation").language == "fr"


def test_a_bad_invitation_shows_the_error_summary_and_writes_nothing(demo: None) -> None:
    application = approved_application()
    messages = Message.objects.count()  # "application received", from the submission
    client = signed_in(EMPLOYER)
    page = client.post(
        f"/fr/employeur/demandes/{application.pk}/personnes-en-formation/",
        {"trainee": "", "email": "pas-une-adresse", "language": ""},
    )
    assert page.status_code == 422
    shown = text(page)
    assert "gcds-error-summary" in shown
    assert "Choose the trainee to invite." not in shown  # in French
    assert Participant.objects.count() == 0 and Message.objects.count() == messages


def test_resend_and_revoke_after_confirmation_from_the_page(demo: None) -> None:
    slot, old = invited()
    client = signed_in(EMPLOYER)
    trainees = f"/en/employer/applications/{slot.application_id}/trainees/"
    assert client.post(f"/en/employer/participants/{slot.pk}/resend/").status_code == 302
    assert "the old one no longer works" in text(client.get(trainees))
    assert latest_link(slot)[1] != old
    confirm = client.get(f"/en/employer/participants/{slot.pk}/revoke/")
    assert confirm.status_code == 200 and "Yes, revoke" in text(confirm)
    assert Participant.objects.get(pk=slot.pk).state == "invited"  # asking changes nothing
    assert client.post(f"/en/employer/participants/{slot.pk}/revoke/").status_code == 302
    assert "Withdrawn" in text(client.get(trainees))
    assert Participant.objects.get(pk=slot.pk).state == "withdrawn"


# --- The trainee ---------------------------------------------------------------------------------


def test_the_trainee_answers_in_french_once_and_sees_no_answer_back(demo: None) -> None:
    slot, token = invited("fr")
    client = Client()
    form = client.get(f"/fr/participer/{token}/")
    assert form.status_code == 200
    assert '<html lang="fr">' in text(form)
    assert "Préfère ne pas répondre" in text(form)
    assert form["Cache-Control"].startswith("max-age=0") and "no-store" in form["Cache-Control"]
    assert form["Referrer-Policy"] == "same-origin"  # never to another site
    english = client.get(f"/en/participate/{token}/")  # the language switch keeps the link
    assert english.status_code == 200 and "Prefer not to say" in text(english)
    sent = client.post(f"/fr/participer/{token}/", answers())
    assert sent.status_code == 302
    received = client.get(sent["Location"])
    assert received.status_code == 200
    shown = text(received)
    assert "vos réponses ont été reçues" in shown
    for answer in ("Tremblay", "Amélie", digits(SIN)[-3:] + "<", "L8N"):
        assert answer not in shown
    again = client.get(f"/fr/participer/{token}/")
    assert again.status_code == 410
    assert "déjà été utilisé" in text(again) and "already been used" in text(again)
    assert Participant.objects.get(pk=slot.pk).state == "confirmed"


def test_bad_answers_are_named_in_french_and_nothing_is_written(demo: None) -> None:
    slot, token = invited("fr")
    entries = changes_audited()
    page = Client().post(
        f"/fr/participer/{token}/", answers(sin="123 456 789", consent_name="Quelqu'un")
    )
    assert page.status_code == 422
    shown = text(page)
    assert "gcds-error-summary" in shown
    assert "n'est pas un numéro d'assurance sociale valide" in shown
    assert "Tapez votre prénom et votre nom de famille" in shown
    assert "123 456 789" not in shown  # the SIN typed is not shown back, and the page says so
    assert "le numéro tapé n'est pas réaffiché" in shown
    assert Participant.objects.get(pk=slot.pk).state == "invited"
    assert changes_audited() == entries


def test_the_signature_hint_says_accents_and_capitals_do_not_matter(demo: None) -> None:
    _, token = invited("en")
    form = text(Client().get(f"/en/participate/{token}/"))
    assert "Accents, capitals and extra spaces do not matter" in form


def test_the_used_link_page_does_not_say_nothing_was_recorded(demo: None) -> None:
    _, token = invited("en")
    assert Client().post(f"/en/participate/{token}/", answers()).status_code == 302
    again = text(Client().get(f"/en/participate/{token}/"))
    assert "already received" in again
    assert "Nothing was recorded" not in again


def test_a_dead_link_says_why_in_both_languages_and_the_token_is_not_logged(
    demo: None, caplog: pytest.LogCaptureFixture, json_log: io.StringIO
) -> None:
    caplog.set_level(logging.INFO)
    slot, token = invited("en")
    tampered = "f" * 64
    unknown = Client().get(f"/en/participate/{tampered}/")
    assert unknown.status_code == 404
    assert "This link is not valid" in text(unknown) and "Ce lien n'est pas valide" in text(unknown)
    participant_actions.revoke_participant(EMPLOYER.get(), slot)
    revoked = Client().post(f"/en/participate/{token}/", answers())
    assert revoked.status_code == 410 and "cancelled" in text(revoked)
    assert Participant.objects.get(pk=slot.pk).given_name == ""
    assert tampered not in caplog.text and token not in caplog.text
    assert "/participate/[redacted]/" in caplog.text
    # The same lines as a server prints them (JSON): the token is out of every field.
    printed = json_log.getvalue()
    assert tampered not in printed and token not in printed
    assert any("/participate/[redacted]/" in line["message"] for line in json_lines(json_log))


# --- The officer ---------------------------------------------------------------------------------


def test_the_officer_sees_a_trainee_funded_elsewhere_with_the_amount(demo: None) -> None:
    for _ in range(2):
        slot, token = invited("en")
        participant_actions.submit_participant_form(token, answers())
    page = signed_in(OFFICER).get("/fr/agent/signalements/")
    assert page.status_code == 200
    shown = text(page)
    assert f'id="flag-{slot.pk}"' in shown and format_money(1_000_000, "fr") in shown
    assert digits(SIN) not in shown.replace(" ", "")
    assert "/fr/agent/signalements/" in text(signed_in(OFFICER).get("/fr/agent/"))
    assert signed_in(EMPLOYER).get("/en/officer/participant-flags/").status_code == 403


def test_an_officer_with_the_permission_sees_one_sin_in_full_and_the_view_is_audited(
    demo: None, caplog: pytest.LogCaptureFixture
) -> None:
    for _ in range(2):
        slot, token = invited("en")
        participant_actions.submit_participant_form(token, answers())
    officer = OFFICER.get()
    client = signed_in(OFFICER)
    refused = client.post(f"/en/officer/participants/{slot.pk}/sin/")
    assert refused.status_code == 302
    assert "needs its own permission" in text(client.get(refused["Location"]))
    assert AuditEntry.objects.filter(action="refused.view_participant_sin").count() == 1
    officer.may_view_sin = True
    officer.save()
    listed = text(client.get("/en/officer/participant-flags/"))
    assert "***-***-544" in listed and "130-692-544" not in listed
    shown = client.post(f"/en/officer/participants/{slot.pk}/sin/")
    assert shown.status_code == 200 and "no-store" in shown["Cache-Control"]
    assert f'id="sin-{slot.pk}">130-692-544<' in text(shown)
    views = AuditEntry.objects.filter(action="participant.view_sin")
    assert views.count() == 1 and "130" not in str(views.get().summary)
    assert digits(SIN) not in caplog.text
