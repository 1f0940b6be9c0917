"""Trainees confirm their participation: invitations, the single-use link, the form's checks, the
SIN kept as the registry keeps it, the funded-elsewhere flag and the reminders."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

import pytest
import time_machine
from django.db import connection
from tests.participants import (
    OTHER_SIN,
    SIN,
    answers,
    approved_application,
    digits,
    latest_link,
)
from tests.personas import EMPLOYER, OFFICER, PARTNER_EMPLOYER

from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.participants import Invitation, Participant
from jobgrant.service.grants.participants import actions as act
from jobgrant.service.grants.participants.access import participants_by
from jobgrant.service.grants.participants.reminders import send_participant_reminders
from jobgrant.service.links import page_link
from jobgrant.service.notifications.models import Message
from jobgrant.service.registry.identifiers import decrypt_sin, sin_blind_index

pytestmark = pytest.mark.django_db


def invite(application: Any, trainee: int = 0, language: str = "en") -> Participant:
    body = {"trainee": trainee, "email": f"trainee{trainee}@example.com", "language": language}
    return act.invite_participant(EMPLOYER.get(), application, body)


def token_of(participant: Participant) -> str:
    return latest_link(participant)[1]


def refusal(call: Any) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        call()
    return caught.value


def written() -> tuple[int, int, int, int]:
    """What a refused step must leave as it was: slots, links, messages, audit entries."""
    return (
        Participant.objects.count(),
        Invitation.objects.filter(used_at__isnull=False).count(),
        Message.objects.count(),
        AuditEntry.objects.exclude(action__startswith="refused.").count(),
    )


# --- Inviting ---------------------------------------------------------------------------------


def test_inviting_a_trainee_opens_a_slot_and_queues_the_invitation_in_their_language(
    demo: None,
) -> None:
    application = approved_application()
    participant = invite(application, trainee=1, language="fr")
    assert participant.state == "invited"
    message = Message.objects.get(kind="participant_invitation")
    assert message.recipient == "trainee1@example.com"
    assert message.language == "fr"
    assert "Confirmez votre participation" in message.subject_line
    language, token = latest_link(participant)
    assert language == "fr"
    invitation = participant.invitations.get()
    assert invitation.digest != token and len(invitation.digest) == 64  # only the SHA-256
    assert AuditEntry.objects.filter(action="participant.invite").count() == 1
    assert token not in str(list(AuditEntry.objects.values_list("summary", flat=True)))


def test_only_an_approved_application_invites_and_only_its_applicant(demo: None) -> None:
    application = approved_application()
    partner = refusal(
        lambda: act.invite_participant(
            PARTNER_EMPLOYER.get(),
            application,
            {"trainee": 0, "email": "a@example.com", "language": "en"},
        )
    )
    assert partner.status == 403
    assert AuditEntry.objects.filter(action="refused.invite_participant").count() == 1
    Application.objects.filter(pk=application.pk).update(state="withdrawn")
    closed = refusal(lambda: invite(application))
    assert (closed.status, closed.code) == (409, "NOT_APPROVED")


def test_an_invitation_names_every_bad_field_in_both_languages_and_writes_nothing(
    demo: None,
) -> None:
    application = approved_application()
    before = written()
    error = refusal(
        lambda: act.invite_participant(
            EMPLOYER.get(),
            application,
            {"trainee": 7, "email": "not-an-address", "language": "de", "extra": 1},
        )
    )
    assert error.status == 422
    assert {p["field"] for p in error.problems} == {"trainee", "email", "language", "extra"}
    assert all(p["message_fr"] and p["message_en"] for p in error.problems)
    assert written() == before


def test_a_trainee_with_a_live_slot_cannot_be_invited_twice(demo: None) -> None:
    application = approved_application()
    invite(application)
    error = refusal(lambda: invite(application))
    assert (error.status, error.code) == (409, "ALREADY_INVITED")


# --- The link ---------------------------------------------------------------------------------


def test_the_form_through_the_link_confirms_an_employee_and_the_link_is_single_use(
    demo: None,
) -> None:
    participant = invite(approved_application())
    token = token_of(participant)
    assert act.open_invitation(token).participant_id == participant.pk
    confirmed = act.submit_participant_form(token, answers())
    assert confirmed.state == "confirmed"
    assert confirmed.given_name == "Amélie" and confirmed.noc == "72100"
    assert confirmed.hourly_wage_cents == 2850 and confirmed.postal_code == "L8N1A1"
    before = written()
    again = refusal(lambda: act.submit_participant_form(token, answers()))
    assert (again.status, again.code) == (410, "LINK_USED")
    assert refusal(lambda: act.open_invitation(token)).code == "LINK_USED"
    assert written() == before
    actions = list(
        AuditEntry.objects.filter(object_type="participant").values_list("action", flat=True)
    )
    assert actions == ["participant.invite", "participant.submit", "participant.confirm"]
    assert verify().ok


def test_an_expired_link_is_refused_and_writes_nothing(demo: None) -> None:
    participant = invite(approved_application())
    token = token_of(participant)
    before = written()
    with time_machine.travel(dt.datetime(2026, 12, 12, 15, tzinfo=dt.UTC)):
        assert act.open_invitation(token).pk  # 14 days: still valid the day before
    with time_machine.travel(dt.datetime(2026, 12, 13, 16, tzinfo=dt.UTC)):
        error = refusal(lambda: act.submit_participant_form(token, answers()))
    assert (error.status, error.code) == (410, "LINK_EXPIRED")
    assert error.message_fr and "expired" in error.message_en
    assert written() == before


def test_a_revoked_link_and_a_tampered_link_are_refused(demo: None) -> None:
    participant = invite(approved_application())
    token = token_of(participant)
    tampered = token[:-1] + ("0" if token[-1] != "0" else "1")
    assert refusal(lambda: act.open_invitation(tampered)).status == 404
    assert refusal(lambda: act.submit_participant_form(tampered, answers())).code == (
        "LINK_NOT_FOUND"
    )
    act.revoke_participant(EMPLOYER.get(), participant)
    before = written()
    error = refusal(lambda: act.submit_participant_form(token, answers()))
    assert (error.status, error.code) == (410, "LINK_REVOKED")
    assert written() == before
    assert Participant.objects.get(pk=participant.pk).state == "withdrawn"
    assert invite(participant.application).state == "invited"  # a new slot, same trainee


def test_a_resent_link_kills_the_old_one(demo: None) -> None:
    participant = invite(approved_application())
    old = token_of(participant)
    act.resend_invitation(EMPLOYER.get(), participant)
    new = token_of(participant)
    assert new != old
    assert refusal(lambda: act.open_invitation(old)).code == "LINK_REPLACED"
    assert act.submit_participant_form(new, answers()).state == "confirmed"
    assert Message.objects.filter(kind="participant_invitation").count() == 2
    resend_confirmed = refusal(lambda: act.resend_invitation(EMPLOYER.get(), participant))
    assert (resend_confirmed.status, resend_confirmed.code) == (409, "ILLEGAL_TRANSITION")


# --- The answers -------------------------------------------------------------------------------


def test_bad_answers_are_named_field_by_field_and_nothing_is_written(demo: None) -> None:
    participant = invite(approved_application())
    token = token_of(participant)
    before = written()
    bad = answers(
        given_name="",
        date_of_birth="2020-01-01",
        sin="123 456 789",
        postal_code="V6B 1A1",  # British Columbia's, for an address in Ontario
        gender="robot",  # no choice of the question (left blank, it would be no error)
        noc="99999",
        hourly_wage="-3",
        consent_name="Someone Else",
        consent="",
    )
    error = refusal(lambda: act.submit_participant_form(token, bad))
    assert error.status == 422
    fields = [p["field"] for p in error.problems]
    assert fields == [
        "given_name",
        "date_of_birth",
        "sin",
        "postal_code",
        "gender",
        "noc",
        "hourly_wage",
        "consent",
    ]  # no consent_name problem while the given name is missing
    assert all(p["message_en"] and p["message_fr"] for p in error.problems)
    assert written() == before
    assert Participant.objects.get(pk=participant.pk).state == "invited"
    mismatch = refusal(lambda: act.submit_participant_form(token, answers(consent_name="A T")))
    assert [p["field"] for p in mismatch.problems] == ["consent_name"]


def test_a_blank_equity_answer_is_not_saying_and_occupation_is_only_asked_of_workers(
    demo: None,
) -> None:
    participant = invite(approved_application(), trainee=1)
    unemployed = answers(
        employment_status="unemployed", noc="", hourly_wage="", weekly_hours="", gender=""
    )
    confirmed = act.submit_participant_form(token_of(participant), unemployed)
    assert confirmed.state == "confirmed" and confirmed.noc == ""
    assert confirmed.gender == "prefer-not-to-say"
    assert confirmed.hourly_wage_cents is None


def test_answers_that_contradict_the_approved_status_make_the_slot_ineligible(
    demo: None,
) -> None:
    application = approved_application()
    employee = invite(application, trainee=0)
    found = act.submit_participant_form(token_of(employee), answers(employment_status="unemployed"))
    assert (found.state, found.decided_reason) == ("ineligible", "NOT_EMPLOYED_BEFORE_TRAINING")
    unemployed = invite(application, trainee=1)
    worked = act.submit_participant_form(token_of(unemployed), answers(sin=OTHER_SIN))
    assert (worked.state, worked.decided_reason) == ("ineligible", "EMPLOYED_BEFORE_TRAINING")
    assert AuditEntry.objects.filter(action="participant.find_ineligible").count() == 2


# --- The SIN ---------------------------------------------------------------------------------


def test_the_sin_is_encrypted_blind_indexed_and_never_in_outbox_audit_url_or_logs(
    demo: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    participant = invite(approved_application())
    token = token_of(participant)
    confirmed = act.submit_participant_form(token, answers())
    stored = Participant.objects.get(pk=confirmed.pk)
    assert decrypt_sin(stored.sin_key_id, bytes(stored.sin_ciphertext)) == digits(SIN)
    assert stored.sin_index == sin_blind_index(digits(SIN))
    assert stored.masked_sin == "***-***-544"
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT * FROM "{Participant._meta.db_table}" WHERE "id" = %s', [stored.pk])
        row = cursor.fetchone()
    assert digits(SIN) not in str(row)
    outbox = " ".join(f"{m.subject_line} {m.body}" for m in Message.objects.all())
    trail = " ".join(str(e.summary) + e.object_id for e in AuditEntry.objects.all())
    for place in (outbox, trail, caplog.text, page_link("web:participate", "en", token=token)):
        assert digits(SIN) not in place.replace(" ", "").replace("-", "")
    assert token not in caplog.text and token not in trail


# --- Funded elsewhere ----------------------------------------------------------------------------


def test_a_trainee_funded_in_another_file_this_fiscal_year_is_flagged_with_the_amount(
    demo: None,
) -> None:
    first = invite(approved_application())
    act.submit_participant_form(token_of(first), answers())
    second = invite(approved_application(), trainee=0)
    flagged = act.submit_participant_form(token_of(second), answers())
    assert flagged.state == "confirmed"
    assert flagged.funded_elsewhere == [
        {
            "application": first.application_id,
            "participant": first.pk,
            "government_cents": 1_000_000,
        }
    ]  # cjg-2013: $5,000 federal and $5,000 provincial for the $15,000 tuition
    assert flagged.funded_elsewhere_cents == 1_000_000
    from jobgrant.service.grants.participants.access import flagged_participants

    assert list(flagged_participants(OFFICER.get())) == [flagged]
    assert list(flagged_participants(EMPLOYER.get())) == []
    other_person = invite(second.application, trainee=1)
    unflagged = act.submit_participant_form(
        token_of(other_person), answers(sin=OTHER_SIN, employment_status="unemployed")
    )
    assert unflagged.funded_elsewhere == [] and unflagged.funded_elsewhere_cents == 0


# --- Reminders ----------------------------------------------------------------------------------


def test_reminders_go_once_per_milestone_with_a_fresh_link(demo: None) -> None:
    participant = invite(approved_application())  # training starts 2027-01-11
    assert participants_by(participant.application) == dt.date(2027, 1, 6)
    assert send_participant_reminders() == 0  # invited on 2026-11-29, nothing due yet
    first_link = token_of(participant)
    with time_machine.travel(dt.datetime(2026, 12, 23, 15, tzinfo=dt.UTC)):  # 14 days before
        assert send_participant_reminders() == 1
        assert send_participant_reminders() == 0
    reminder = Message.objects.get(kind="participant_reminder")
    assert reminder.milestone.startswith("reminder-2026-12-23")
    assert refusal(lambda: act.open_invitation(first_link)).code == "LINK_REPLACED"
    with time_machine.travel(dt.datetime(2027, 1, 1, 15, tzinfo=dt.UTC)):  # 5 days before
        assert send_participant_reminders() == 1
        act.submit_participant_form(token_of(participant), answers())
    with time_machine.travel(dt.datetime(2027, 1, 2, 15, tzinfo=dt.UTC)):
        assert send_participant_reminders() == 0
    assert Message.objects.filter(kind="participant_reminder").count() == 2
    assert AuditEntry.objects.filter(action="participant.remind").count() == 2
