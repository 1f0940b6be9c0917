"""Change requests: each kind asked for, checked, decided; the money moved under the
no-over-commit rule; a new agreement version each time; acceptance again when money or scope
changes; every transition audited and every decision told to the applicant."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db.models import F
from tests import canonical
from tests.personas import (
    EMPLOYER,
    OFFICER,
    OTHER_JURISDICTION_OFFICER,
    SECOND_OFFICER,
)
from tests.service.grants.agreement_helpers import ALL_CONFIRMED, committed
from tests.service.grants.change_helpers import accepted, counts, latest, trainee

from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.agreements.actions import accept_agreement
from jobgrant.service.grants.changes.actions import (
    approve_change,
    claim_under_assessment,
    deny_change,
    request_change,
)
from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.changes import ChangeRequest
from jobgrant.service.ledger.models import BudgetAccount, Posting
from jobgrant.service.notifications.models import Message

pytestmark = pytest.mark.django_db


def ask(agreement: Agreement, kind: str, **body: Any) -> ChangeRequest:
    return request_change(EMPLOYER.get(), agreement, kind, {"kind": kind, **body})


def refused(agreement: Agreement, kind: Any, **body: Any) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        ask(agreement, kind, **body)
    return caught.value


def fields(error: ServiceError) -> dict[str, tuple[str, str]]:
    return {p["field"]: (p["message_en"], p["message_fr"]) for p in error.problems}


# --- Dates: self-service inside the fiscal year ------------------------------------------------


def test_new_dates_inside_the_fiscal_year_are_approved_at_once_without_an_officer(demo) -> None:
    agreement = accepted()
    before = committed("federal")
    change = ask(agreement, "dates", start_date="2027-01-18", end_date="2027-03-30")
    assert change.state == "approved" and change.self_service and change.decided_by is None
    assert change.diff == [
        {"field": "training.start_date", "before": "2027-01-11", "after": "2027-01-18"},
        {"field": "training.end_date", "before": "2027-03-26", "after": "2027-03-30"},
    ]
    version = latest(agreement)
    assert version.number == 2 and change.version == version
    assert not version.needs_acceptance and not change.needs_acceptance
    assert version.schedule["start_date"] == "2027-01-18"
    # The due dates are worked out again from the new dates.
    assert version.participants_by == dt.date(2027, 1, 13)
    assert version.completion_report_by == dt.date(2027, 4, 29)
    assert agreement.state == "accepted"
    assert committed("federal") == before
    actions = list(
        AuditEntry.objects.filter(object_type="changerequest", object_id=str(change.pk))
        .order_by("sequence")
        .values_list("action", flat=True)
    )
    assert actions == ["change_request.submit", "change_request.approve"]
    message = Message.objects.get(kind="change_approved")
    assert message.recipient == "applicant@example.ca" and message.language == "en"
    assert "nothing more to do" in message.body
    assert verify().ok


def test_dates_across_the_fiscal_year_are_refused_named_in_both_languages(demo) -> None:
    agreement = canonical.put("accepted").agreement
    before = counts()
    error = refused(agreement, "dates", end_date="2027-04-05")
    assert error.status == 422
    english, french = fields(error)["end_date"]
    assert "fiscal year 2026-27" in english and "exercice 2026-27" in french
    assert counts() == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"start_date": "2027-02-30"}, "start_date"),
        ({"start_date": "11/01/2027"}, "start_date"),
        ({"start_date": "2027-03-28"}, "start_date"),  # after the end (2027-03-26)
        ({}, "start_date"),
        ({"start_date": "2027-01-11"}, "(body)"),  # the same date: nothing changes
        ({"start_date": "2027-01-12", "colour": "red"}, "colour"),
    ],
)
def test_bad_dates_are_named_and_nothing_is_written(demo, body, field) -> None:
    agreement = canonical.put("accepted").agreement
    before = counts()
    error = refused(agreement, "dates", **body)
    assert error.status == 422 and field in fields(error)
    assert all(en and fr and en != fr for en, fr in fields(error).values())
    assert counts() == before


def test_a_date_before_the_application_date_is_refused_by_the_rules(demo) -> None:
    agreement = canonical.put("accepted").agreement
    before = counts()
    error = refused(agreement, "dates", start_date="2026-11-20")
    assert error.status == 409 and error.code == "CHANGE_NOT_ELIGIBLE"
    assert error.message_en != error.message_fr
    assert counts() == before


# --- One at a time; only an accepted agreement ------------------------------------------------


def test_one_open_change_request_per_agreement(demo) -> None:
    agreement = canonical.put("accepted").agreement
    first = ask(agreement, "provider", provider={"name": "Niagara College", "third_party": True})
    assert first.state == "submitted"
    before = counts()
    error = refused(agreement, "dates", start_date="2027-01-12")
    assert error.status == 409 and error.code == "CHANGE_ALREADY_OPEN"
    assert str(first.pk) in error.message_en and str(first.pk) in error.message_fr
    assert counts() == before
    deny_change(OFFICER.get(), first, "Keep the college you chose.")
    assert ask(agreement, "dates", start_date="2027-01-12").state == "approved"


def test_an_offer_not_yet_accepted_cannot_be_changed(demo) -> None:
    agreement = canonical.put("approved").agreement
    error = refused(agreement, "dates", start_date="2027-01-12")
    assert error.status == 409 and error.code == "AGREEMENT_NOT_CHANGEABLE"
    assert ChangeRequest.objects.count() == 0


def test_no_claim_model_exists_yet_so_no_claim_is_under_assessment(demo) -> None:
    assert claim_under_assessment(canonical.put("accepted").agreement) is False


# --- The provider: an officer decides; the scope changes ---------------------------------------


def test_a_provider_change_approved_makes_a_version_to_accept_again(demo) -> None:
    agreement = canonical.put("accepted").agreement
    change = ask(
        agreement,
        "provider",
        provider={"name": "Niagara College", "third_party": True},
        note="Mohawk cancelled the course.",
    )
    assert change.state == "submitted" and change.note == "Mohawk cancelled the course."
    assert change.diff == [
        {
            "field": "training.provider.name",
            "before": "Mohawk College",
            "after": "Niagara College",
        }
    ]
    approve_change(OFFICER.get(), change, "Same program at Niagara.")
    change.refresh_from_db()
    assert change.state == "approved" and change.decided_by == OFFICER.get()
    version = latest(agreement)
    assert version.number == 2 and version.needs_acceptance and version.accepted_at is None
    assert version.schedule["provider"] == "Niagara College"
    assert change.needs_acceptance and agreement.state == "accepted"
    message = Message.objects.get(kind="change_approved")
    assert "accepted again" in message.body and "Same program at Niagara." in message.body
    # Until the new version is accepted, no other change can be asked for.
    assert refused(agreement, "dates", start_date="2027-01-12").code == "AGREEMENT_NOT_CHANGEABLE"
    accept_agreement(EMPLOYER.get(), agreement, "Pat Birch", "Owner", ALL_CONFIRMED)
    assert latest(agreement).accepted_at is not None
    assert ask(agreement, "dates", start_date="2027-01-12").state == "approved"


def test_a_provider_that_is_not_a_third_party_is_refused_by_the_rules(demo) -> None:
    agreement = canonical.put("accepted").agreement
    error = refused(agreement, "provider", provider={"name": "In house", "third_party": False})
    assert error.code == "CHANGE_NOT_ELIGIBLE"
    assert ChangeRequest.objects.count() == 0


def test_bad_provider_fields_are_named(demo) -> None:
    error = refused(
        canonical.put("accepted").agreement,
        "provider",
        provider={"name": " ", "third_party": "yes"},
    )
    assert set(fields(error)) == {"provider.name", "provider.third_party"}


def test_a_denial_needs_a_reason_and_tells_the_applicant_in_their_language(demo) -> None:
    agreement = accepted(language="fr")
    change = ask(agreement, "provider", provider={"name": "Collège Boréal", "third_party": True})
    with pytest.raises(ServiceError) as caught:
        deny_change(OFFICER.get(), change, "  ")
    assert caught.value.status == 422 and caught.value.problems[0]["field"] == "reason"
    with pytest.raises(ServiceError) as sin:
        deny_change(OFFICER.get(), change, "Le stagiaire 046 454 286 n'est pas admissible.")
    assert sin.value.problems[0]["field"] == "reason"
    assert not Message.objects.filter(kind="change_denied").exists()
    deny_change(OFFICER.get(), change, "Le cours n'est pas le même.")
    change.refresh_from_db()
    assert change.state == "denied" and change.reason == "Le cours n'est pas le même."
    assert latest(agreement).number == 1
    message = Message.objects.get(kind="change_denied")
    assert message.language == "fr" and "Le cours n'est pas le même." in message.body
    assert AuditEntry.objects.filter(action="change_request.deny").count() == 1
    with pytest.raises(ServiceError) as again:
        approve_change(SECOND_OFFICER.get(), change)
    assert again.value.status == 409 and again.value.code == "ILLEGAL_TRANSITION"


def test_only_an_officer_of_the_file_decides_and_refusals_are_audited(demo) -> None:
    change = ask(
        canonical.put("accepted").agreement,
        "provider",
        provider={"name": "Niagara College", "third_party": True},
    )
    for who, code in ((EMPLOYER, "NOT_YOUR_FILE"), (OTHER_JURISDICTION_OFFICER, "NOT_YOUR_FILE")):
        with pytest.raises(ServiceError) as caught:
            approve_change(who.get(), change)
        assert caught.value.status == 403 and caught.value.code == code
    assert AuditEntry.objects.filter(action="refused.approve_change").count() == 2
    change.refresh_from_db()
    assert change.state == "submitted"


# --- Trainees: money added is committed, under the no-over-commit rule --------------------------


def test_a_trainee_added_commits_the_money_it_adds_when_approved(demo) -> None:
    agreement = canonical.put("accepted").agreement
    federal, provincial = committed("federal"), committed("provincial")
    change = ask(agreement, "trainees", add=[trainee(tuition="3000.00")])
    assert change.figures["before"]["federal"] == 500_000
    assert change.figures["after"]["federal"] == 600_000
    assert committed("federal") == federal  # nothing moves until an officer approves
    approve_change(OFFICER.get(), change)
    assert committed("federal") == federal + 100_000
    assert committed("provincial") == provincial + 100_000
    application = Application.objects.get(pk=agreement.application_id)
    assert application.federal_cents == 600_000 and application.provincial_cents == 600_000
    version = latest(agreement)
    assert version.federal_cents == 600_000 and len(version.trainee_shares) == 2
    assert version.needs_acceptance
    legs = Posting.objects.filter(transaction__application_id=application.pk)
    assert sum(leg.amount_cents for leg in legs) == 0
    entry = AuditEntry.objects.get(action="change_request.approve")
    assert entry.summary["federal_moved_cents"] == 100_000
    assert verify().ok


def test_money_added_beyond_the_budget_is_refused_and_everything_rolls_back(demo) -> None:
    agreement = canonical.put("accepted").agreement
    change = ask(agreement, "trainees", add=[trainee(tuition="3000.00")])
    BudgetAccount.objects.filter(funder="federal", jurisdiction="ON", fiscal_year="2026-27").update(
        allocated_cents=F("committed_cents") + F("earmarked_cents") + 50_000
    )
    federal, provincial = committed("federal"), committed("provincial")
    versions, messages = latest(agreement).number, Message.objects.count()
    with pytest.raises(ServiceError) as caught:
        approve_change(OFFICER.get(), change)
    error = caught.value
    assert error.status == 409 and error.code == "BUDGET_EXHAUSTED"
    assert "1\u00a0000,00" in error.message_fr and "$1,000.00" in error.message_en
    change.refresh_from_db()
    assert change.state == "submitted"
    assert (committed("federal"), committed("provincial")) == (federal, provincial)
    assert latest(agreement).number == versions and Message.objects.count() == messages
    assert Application.objects.get(pk=agreement.application_id).federal_cents == 500_000


def test_a_trainee_removed_releases_the_money_it_took(demo) -> None:
    two = [trainee(), trainee(tuition="6000.00")]
    agreement = accepted(trainees=two)
    federal = committed("federal")
    assert Application.objects.get(pk=agreement.application_id).federal_cents == 700_000
    change = ask(agreement, "trainees", remove=[1])
    assert change.diff[0]["field"] == "trainees[1]" and change.diff[0]["after"] is None
    approve_change(OFFICER.get(), change)
    assert committed("federal") == federal - 200_000
    assert Application.objects.get(pk=agreement.application_id).federal_cents == 500_000
    version = latest(agreement)
    assert version.federal_cents == 500_000 and len(version.trainee_shares) == 1


def test_a_trainee_replaced_by_another(demo) -> None:
    agreement = canonical.put("accepted").agreement
    change = ask(
        agreement, "trainees", replace=[{"index": 0, "trainee": trainee(tuition="9000.00")}]
    )
    assert change.diff[0]["change"] == "replace"
    assert change.figures["after"]["federal"] == 300_000
    approve_change(OFFICER.get(), change)
    assert latest(agreement).federal_cents == 300_000


def test_bad_trainees_are_named_at_their_place_in_the_body_and_nothing_is_written(demo) -> None:
    agreement = canonical.put("accepted").agreement
    before = counts()
    bad = trainee(tuition="-1")
    bad["status"] = "retired"
    error = refused(agreement, "trainees", add=[bad], remove=[5])
    found = fields(error)
    assert {"add[0].costs.tuition", "add[0].status"} <= set(found) or "remove[0]" in found
    assert counts() == before
    error = refused(agreement, "trainees", add=[bad])
    assert {"add[0].costs.tuition", "add[0].status"} <= set(fields(error))
    assert all(en and fr and en != fr for en, fr in fields(error).values())
    assert refused(agreement, "trainees", remove=[0]).problems[0]["field"] == "remove"
    assert counts() == before


# --- Moving money between cost lines --------------------------------------------------------


def test_money_moved_between_lines_keeps_the_total_and_needs_acceptance(demo) -> None:
    agreement = canonical.put("accepted").agreement
    move = {
        "from": {"trainee": 0, "category": "tuition"},
        "to": {"trainee": 0, "category": "materials"},
        "amount": "1000.00",
    }
    change = ask(agreement, "cost_reallocation", moves=[move])
    assert change.diff == [
        {"field": "trainees[0].costs.tuition", "before": "15000.00", "after": "14000.00"},
        {"field": "trainees[0].costs.materials", "before": "0.00", "after": "1000.00"},
    ]
    assert change.figures["before"] == change.figures["after"]
    federal = committed("federal")
    approve_change(OFFICER.get(), change)
    assert committed("federal") == federal
    version = latest(agreement)
    assert version.needs_acceptance
    assert {line["category"]: line["cents"] for line in version.cost_lines} == {
        "tuition": 1_400_000,
        "materials": 100_000,
    }


@pytest.mark.parametrize(
    ("move", "field"),
    [
        (
            {
                "from": {"trainee": 0, "category": "tuition"},
                "to": {"trainee": 0, "category": "tuition"},
                "amount": "1.00",
            },
            "moves[0].to",
        ),
        (
            {
                "from": {"trainee": 0, "category": "materials"},
                "to": {"trainee": 0, "category": "tuition"},
                "amount": "1.00",
            },
            "moves[0].amount",
        ),
        (
            {
                "from": {"trainee": 3, "category": "tuition"},
                "to": {"trainee": 0, "category": "fees"},
                "amount": "0",
            },
            "moves[0].from.trainee",
        ),
        ({"from": {"trainee": 0, "category": "tuition"}}, "moves[0]"),
    ],
)
def test_bad_moves_are_named_and_nothing_is_written(demo, move, field) -> None:
    agreement = canonical.put("accepted").agreement
    before = counts()
    error = refused(agreement, "cost_reallocation", moves=[move])
    assert error.status == 422 and field in fields(error)
    assert counts() == before


@pytest.mark.parametrize("kind", ["colour", {}, ["dates"], None])
def test_an_unknown_kind_is_named(demo, kind) -> None:
    error = refused(canonical.put("accepted").agreement, kind)
    assert fields(error)["kind"][0].startswith("must be one of")


def test_an_end_before_the_start_is_said_with_dates_in_words_in_each_language(demo) -> None:
    agreement = canonical.put("accepted").agreement
    error = refused(agreement, "dates", start_date="2027-03-28")  # the end is 2027-03-26
    english, french = fields(error)["start_date"]
    assert "(March 26, 2027) before it starts (March 28, 2027)" in english
    assert "(26 mars 2027) avant son début (28 mars 2027)" in french
