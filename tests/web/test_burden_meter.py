"""The burden meter: a scripted employer walks the wizard while the test moves the clock, and each
step's time from its first view to its submission is what the clock says; a claim returned counts
as sent back; the field errors a refused form shows are counted by form, field and code, never
with what was typed; the analyst's page gives the figures in English and French."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from tests import canonical
from tests.conftest import TRAINING_STEP, applications, declare
from tests.personas import ANALYST, APPLICANT, AUDITOR, CLOCK, EMPLOYER, OFFICER
from tests.service.grants.claim_helpers import during_training, pdf_bytes
from tests.web.reading import signed_in

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.burden import actions as burden
from jobgrant.service.grants.claims.assessment import return_claim
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.burden import BurdenStep, FieldErrorShown, StepTiming
from jobgrant.service.grants.models.changes import ChangeRequest
from jobgrant.service.grants.models.claims import Claim
from jobgrant.service.outcomes import burden as figures
from jobgrant.service.outcomes.access import read_burden

pytestmark = pytest.mark.django_db

APPLY = "/en/employer/apply/"
#: The fiscal year of the wizard's training (it starts on 2027-01-11).
YEAR = "2026-27"


def spend(minutes: int) -> None:
    """The employer works on the page for `minutes` (the test's clock moves on)."""
    CLOCK[-1].shift(dt.timedelta(minutes=minutes))


def trainees_form(tuition: str = "15000.00") -> dict[str, str]:
    return {
        "trainee-TOTAL_FORMS": "1",
        "action": "next",
        "trainee-0-employer": APPLICANT.get().business_number,
        "trainee-0-status": "existing-employee",
        "trainee-0-tuition": tuition,
    }


def walk_the_wizard(client: Client) -> Application:
    """Each step: shown, worked on for a known time, submitted (the training step once refused
    for a missing course: its time runs on from the first view)."""
    assert client.get(f"{APPLY}organizations/").status_code == 200
    spend(3)
    organizations = {"lead": str(APPLICANT.get().pk), "partner-TOTAL_FORMS": "0", "action": "next"}
    assert client.post(f"{APPLY}organizations/", organizations).status_code == 302
    assert client.get(f"{APPLY}training/").status_code == 200
    spend(5)
    refused = client.post(f"{APPLY}training/", {**TRAINING_STEP, "course": "", "action": "next"})
    assert refused.status_code == 422
    spend(7)
    assert client.post(f"{APPLY}training/", {**TRAINING_STEP, "action": "next"}).status_code == 302
    assert client.get(f"{APPLY}trainees/").status_code == 200
    spend(20)
    assert client.post(f"{APPLY}trainees/", trainees_form()).status_code == 302
    assert client.get(f"{APPLY}declarations/").status_code == 200
    spend(6)
    declare(client)
    assert client.get(f"{APPLY}review/").status_code == 200
    spend(4)
    done = client.post(f"{APPLY}review/", {"confirm": "yes", "action": "submit"})
    assert done.status_code == 302
    return applications().get()


def minutes_of(application: Application) -> dict[str, int]:
    return {
        timing.step: (timing.seconds or 0) // 60
        for timing in StepTiming.objects.filter(application=application)
    }


def test_a_scripted_employer_is_timed_from_each_pages_first_view_to_its_submission(
    demo: None,
) -> None:
    application = walk_the_wizard(signed_in(EMPLOYER))
    assert minutes_of(application) == {
        "apply.organizations": 3,
        "apply.training": 12,  # from the first view, across the refused submission
        "apply.trainees": 20,
        "apply.declarations": 6,
        "apply.review": 4,
        "application": 45,
    }
    timings = StepTiming.objects.filter(application=application)
    assert {timing.employees for timing in timings} == {APPLICANT.employees}
    assert not StepTiming.objects.filter(draft__isnull=False).exists()  # moved to the file
    report = figures.compute("ON", YEAR, suppressed=False)
    training = {row.key: row for row in report.table("step-apply.training").rows}
    assert training["1-49"].figures["median"].value == 12
    assert training["1-49"].figures["timed"].value == 1
    assert training["total"].figures["median"].value == 12
    assert training["50-99"].figures["timed"].value == 0
    declarations = {row.key: row for row in report.table("step-apply.declarations").rows}
    assert declarations["total"].figures["median"].value == 6
    whole = {row.key: row for row in report.table("step-application").rows}
    assert whole["total"].figures["median"].value == 45


def test_going_back_to_a_step_keeps_its_first_view_and_first_submission(demo: None) -> None:
    client = signed_in(EMPLOYER)
    client.get(f"{APPLY}organizations/")
    spend(2)
    organizations = {"lead": str(APPLICANT.get().pk), "partner-TOTAL_FORMS": "0", "action": "next"}
    client.post(f"{APPLY}organizations/", organizations)
    spend(30)  # back to the first step, and on again: the step was done in 2 minutes
    client.get(f"{APPLY}organizations/")
    client.post(f"{APPLY}organizations/", organizations)
    timing = StepTiming.objects.get(step=BurdenStep.APPLY_ORGANIZATIONS)
    assert timing.seconds is not None and timing.seconds // 60 == 2


def test_the_field_errors_shown_are_counted_by_form_field_and_code_never_what_was_typed(
    demo: None,
) -> None:
    client = signed_in(EMPLOYER)
    organizations = {"lead": str(APPLICANT.get().pk), "partner-TOTAL_FORMS": "0", "action": "next"}
    client.post(f"{APPLY}organizations/", organizations)
    typed = {**TRAINING_STEP, "course": "", "hours": "lots-of-hours-xyz", "action": "next"}
    assert client.post(f"{APPLY}training/", typed).status_code == 422
    shown = set(FieldErrorShown.objects.values_list("form", "field", "code"))
    assert ("employer_training.TrainingForm", "course", "required") in shown
    assert any(field == "hours" for _form, field, _code in shown)
    stored = " ".join(" ".join(row) for row in shown)
    assert "lots-of-hours" not in stored
    count = FieldErrorShown.objects.count()
    # Staff forms are not the employers' burden: an analyst's refused choice is not counted.
    analyst = signed_in(ANALYST)
    assert analyst.get("/en/analyst/burden/", {"fiscal_year": "1999-00"}).status_code == 422
    assert FieldErrorShown.objects.count() == count
    table = figures.field_errors_table(YEAR)
    assert table.rows[0].figures["errors"].value >= 1
    assert "employer_training.TrainingForm/course/required" in {row.key for row in table.rows}


def test_the_declarations_step_is_timed_and_its_errors_are_its_own(demo: None) -> None:
    client = signed_in(EMPLOYER)
    organizations = {"lead": str(APPLICANT.get().pk), "partner-TOTAL_FORMS": "0", "action": "next"}
    client.post(f"{APPLY}organizations/", organizations)
    client.post(f"{APPLY}training/", {**TRAINING_STEP, "action": "next"})
    client.post(f"{APPLY}trainees/", trainees_form())
    assert client.get(f"{APPLY}declarations/").status_code == 200
    spend(9)
    refused = client.post(f"{APPLY}declarations/", {"action": "next"})
    assert refused.status_code == 422
    shown = {
        form for form, _field, _code in FieldErrorShown.objects.values_list("form", "field", "code")
    }
    assert shown == {"employer_declarations.DeclarationsForm"}
    spend(2)
    declare(client)
    timing = StepTiming.objects.get(step=BurdenStep.APPLY_DECLARATIONS)
    assert timing.draft_id is not None and (timing.seconds or 0) // 60 == 11
    html = signed_in(ANALYST).get("/en/analyst/burden/", {"fiscal_year": YEAR}).content.decode()
    assert "Application: declarations — " in cells(html, "field-errors")
    french = signed_in(ANALYST).get("/fr/analyste/fardeau/", {"fiscal_year": YEAR})
    assert "Demande\u00a0: déclarations" in french.content.decode()


def test_a_claim_returned_to_the_employer_counts_as_sent_back(demo: None) -> None:
    application = canonical.put("claimable")
    with during_training():
        client = signed_in(EMPLOYER)
        assert client.post(f"/en/employer/applications/{application.pk}/claims/").status_code == 302
        claim = Claim.objects.get(application=application)
        assert client.get(f"/en/employer/claims/{claim.pk}/").status_code == 200
        files = [SimpleUploadedFile("invoice.pdf", pdf_bytes(), "application/pdf")]
        client.post(f"/en/employer/claims/{claim.pk}/", {"file": files})
        assert (
            client.post(f"/en/employer/claims/{claim.pk}/submit/", {"confirm": "yes"}).status_code
            == 302
        )
        return_claim(OFFICER.get(), Claim.objects.get(pk=claim.pk), "The invoice is unreadable.")
    timing = StepTiming.objects.get(step=BurdenStep.CLAIM, subject=claim.pk)
    assert timing.submitted_at is not None and timing.sent_back == 1
    assert timing.application_id == application.pk


def timed_claims(application: Application, minutes: list[int]) -> None:
    """Claims' steps of a file, each timed at the given minutes (made by the actions the pages
    call, the clock moved between the view and the submission)."""
    for subject, spent in enumerate(minutes, start=1):
        burden.step_viewed(BurdenStep.CLAIM, application=application, subject=subject)
        spend(spent)
        burden.step_submitted(BurdenStep.CLAIM, application=application, subject=subject)
    burden.sent_back(BurdenStep.CLAIM, application.pk, 1)


def test_the_analyst_reads_the_burden_in_english_and_french(demo: None) -> None:
    application = canonical.put("approved")
    year, place = application.fiscal_year, application.jurisdiction
    timed_claims(application, [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 130])
    burden.field_errors_shown([("employer_training.TrainingForm", "course", "required")] * 3)
    client = signed_in(ANALYST)
    page = client.get("/en/analyst/burden/", {"jurisdiction": place, "fiscal_year": year})
    html = page.content.decode()
    assert page.status_code == 200
    assert "The burden on employers" in html
    assert "no keystroke is recorded" in html and "never what was typed" in html
    claims = cells(html, "step-claim")
    assert "1 h 00 min" in claims  # the lower of the two middle values: 60 and 70 minutes
    assert "8.3% (1/12)" in claims
    assert 'data-suppressed="small"' in cells(html, "step-application")
    errors = cells(html, "field-errors")
    assert "Application: training and provider — Course or program name: left empty" in errors
    assert 'href="/en/analyst/kpis/"' in html
    french = client.get("/fr/analyste/fardeau/", {"jurisdiction": place, "fiscal_year": year})
    text = french.content.decode()
    assert french.status_code == 200 and '<html lang="fr">' in text
    assert "Le fardeau des employeurs" in text
    assert "1 h 00 min" in cells(text, "step-claim")
    assert "8,3\u00a0% (1/12)" in cells(text, "step-claim")
    assert "laissé vide" in cells(text, "field-errors")


def test_only_the_kpis_readers_read_the_burden_and_auditors_unsuppressed(demo: None) -> None:
    application = canonical.put("approved")
    timed_claims(application, [5, 6])
    year = application.fiscal_year
    assert signed_in(EMPLOYER).get("/en/analyst/burden/").status_code in (302, 403)
    hidden = read_burden(ANALYST.get(), None, year).table("step-claim").rows[-1]
    assert not hidden.figures["median"].shown
    shown = read_burden(AUDITOR.get(), None, year).table("step-claim").rows[-1]
    assert shown.figures["median"].value == 5


def cells(html: str, table: str) -> str:
    found = re.findall(rf'<table[^>]*id="{table}(?:-part-\d+)?">(.*?)</table>', html, re.S)
    assert found, table
    return "".join(found)


def test_the_api_gives_the_same_figures_and_a_422_for_a_year_that_is_not_one(
    demo: None, as_user: Any
) -> None:
    application = canonical.put("approved")
    timed_claims(application, [5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
    year = application.fiscal_year
    api = as_user(ANALYST)
    answer = api.get("/burden", fiscal_year=year, jurisdiction="ON")
    assert answer.status_code == 200, answer.content
    tables = {table["id"]: table for table in answer.json()["tables"]}
    total = tables["step-claim"]["rows"][-1]["figures"]
    assert total["median"] == {**total["median"], "unit": "minutes", "value": 9}
    assert total["sent-back"]["value"] == "0.1000"
    refused = api.get("/burden", fiscal_year="2026-28")
    assert refused.status_code == 422
    assert refused.json()["errors"][0]["field"] == "fiscal_year"


def test_a_change_denied_because_information_is_missing_counts_as_sent_back(demo: None) -> None:
    agreement = canonical.put("accepted").agreement
    employer = signed_in(EMPLOYER)
    form = f"/en/employer/applications/{agreement.application_id}/changes/new/provider/"
    assert employer.get(form).status_code == 200
    spend(6)
    typed = {"provider_name": "Niagara College", "third_party": "yes", "confirm": "yes"}
    assert employer.post(form, typed).status_code == 302
    change = ChangeRequest.objects.get()
    timing = StepTiming.objects.get(step=BurdenStep.CHANGE)
    assert timing.subject == change.pk and (timing.seconds or 0) // 60 == 6
    officer = signed_in(OFFICER)
    decide = f"/en/officer/changes/{change.pk}/decision/"
    review = officer.get(f"/en/officer/changes/{change.pk}/")
    assert 'name="deny-missing_information"' in review.content.decode()
    asked = {
        "action": "deny",
        "deny-reason": "Send the college's outline.",
        "deny-missing_information": "on",
    }
    confirm = officer.post(decide, asked)
    assert 'id="confirm-missing-information"' in confirm.content.decode()
    assert officer.post(decide, {**asked, "confirm": "yes"}).status_code == 302
    timing.refresh_from_db()
    assert timing.sent_back == 1
    entry = AuditEntry.objects.filter(action="change_request.deny").get()
    assert entry.summary["missing_information"] is True
    # The next change request of the file is timed on its own, from its own first view.
    assert employer.get(form).status_code == 200
    assert StepTiming.objects.filter(step=BurdenStep.CHANGE, submitted_at__isnull=True).count() == 1
