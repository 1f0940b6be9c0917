"""Benchmark of a claim's way through the service: start it, attach a receipt, submit it (the
kernel's shares of the actuals to date, the caps, the ledger's claim), approve it (the same
again, the ledger's approve_claim, the outbox message).

    python bench/claims.py [--rounds 40] [--database postgresql://...]

It prepares a fresh database (SQLite in a temporary directory unless --database names an empty
PostgreSQL one), approves one application of the demonstration employer, accepts it, confirms its
trainee through the participant form and assigns it; then, with the clock at a day of the
training, makes --rounds claims of $100.00 one after the other, each started, given a PDF,
submitted and approved. It prints the median and 90th percentile of each step in milliseconds,
wall clock and this process's CPU time, with the load average (other work on the machine
changes the wall-clock figures; the CPU time much less).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _median_p90(samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return f"median {statistics.median(ordered) * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms"


def _pdf() -> bytes:
    body = b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"
    return body


def _file_ready() -> Any:
    from django.utils import timezone

    from jobgrant.service.accounts.models import User
    from jobgrant.service.api.openapi import example_application
    from jobgrant.service.grants.agreements.actions import accept_agreement
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.applications.assignment import assign_application
    from jobgrant.service.grants.models.agreements import Agreement
    from jobgrant.service.grants.participants import actions as participant_actions
    from jobgrant.service.notifications.models import Message

    employer = User.objects.get(username="demo-employer")
    officer = User.objects.get(username="demo-officer-on-1")
    application = actions.create_application(employer, example_application(timezone.localdate()))
    actions.submit_application(employer, application)
    actions.recommend_application(officer, application)
    actions.approve_application(User.objects.get(username="demo-officer-on-2"), application)
    agreement = Agreement.objects.get(application=application)
    accept_agreement(
        employer, agreement, "Pat Birch", "Owner", ["agreement", "cost_schedule", "general_terms"]
    )
    body = {"trainee": 0, "email": "trainee@example.com", "language": "en"}
    slot = participant_actions.invite_participant(employer, application, body)
    message = Message.objects.filter(subject_id=str(slot.pk)).order_by("-id").first()
    token = message.body.split("/participate/", 1)[1].split("/", 1)[0] if message else ""
    participant_actions.submit_participant_form(token, _answers())
    assign_application(officer, application, officer)
    return application, slot, employer, officer


def _answers() -> dict[str, str]:
    return {
        "given_name": "Amélie",
        "family_name": "Tremblay",
        "date_of_birth": "1990-04-12",
        "sin": "130 692 544",
        "contact_email": "amelie@example.com",
        "phone": "905 555 0134",
        "street_address": "12 King Street East",
        "city": "Hamilton",
        "province": "ON",
        "postal_code": "L8N 1A1",
        "indigenous": "prefer-not-to-say",
        "disability": "no",
        "visible_minority": "prefer-not-to-say",
        "immigration": "no",
        "gender": "woman",
        "education": "college",
        "first_language": "french",
        "employment_status": "employed-full-time",
        "noc": "72100",
        "hourly_wage": "28.50",
        "weekly_hours": "40",
        "receiving_ei": "no",
        "consent_name": "Amélie Tremblay",
        "consent": "yes",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--database", default="")
    options = parser.parse_args()
    var = Path(tempfile.mkdtemp(prefix="jobgrant-bench-claims-"))
    os.environ["JOBGRANT_VAR_DIR"] = str(var)
    os.environ["JOBGRANT_DATABASE_URL"] = options.database or f"sqlite:///{var / 'bench.sqlite3'}"
    os.environ.setdefault("JOBGRANT_ENV", "development")
    from jobgrant.service.commands import prepare_database

    prepare_database(with_demo=True)
    import time_machine
    from django.core.files.uploadedfile import SimpleUploadedFile

    from jobgrant.service.grants.claims import actions as claim_actions
    from jobgrant.service.grants.claims import assessment as claim_assessment
    from jobgrant.service.grants.claims.receipts import checked

    application, slot, employer, officer = _file_ready()
    start = dt.date.fromisoformat(application.request["training"]["start_date"])
    steps: dict[str, list[float]] = {"start": [], "receipt": [], "submit": [], "approve": []}
    cpu: dict[str, list[float]] = {step: [] for step in steps}
    line = {"participant": slot.pk, "category": "tuition", "amount": "100.00"}
    with time_machine.travel(dt.datetime.combine(start, dt.time(15), dt.UTC), tick=True):
        for _ in range(options.rounds):
            began, began_cpu = time.perf_counter(), time.process_time()
            claim = claim_actions.start_claim(employer, application, {"lines": [line]})
            steps["start"].append(time.perf_counter() - began)
            cpu["start"].append(time.process_time() - began_cpu)
            began, began_cpu = time.perf_counter(), time.process_time()
            upload = SimpleUploadedFile("invoice.pdf", _pdf(), "application/pdf")
            claim_actions.add_receipts(employer, claim, [checked(upload)])
            steps["receipt"].append(time.perf_counter() - began)
            cpu["receipt"].append(time.process_time() - began_cpu)
            began, began_cpu = time.perf_counter(), time.process_time()
            claim_actions.submit_claim(employer, claim)
            steps["submit"].append(time.perf_counter() - began)
            cpu["submit"].append(time.process_time() - began_cpu)
            began, began_cpu = time.perf_counter(), time.process_time()
            claim_assessment.approve_claim(officer, claim, {})
            steps["approve"].append(time.perf_counter() - began)
            cpu["approve"].append(time.process_time() - began_cpu)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    engine = "PostgreSQL" if options.database else "SQLite"
    sys.stdout.write(f"{engine}, {options.rounds} claims one after the other; load {load}\n")
    for step, samples in steps.items():
        sys.stdout.write(f"{step}: {_median_p90(samples)}; CPU {_median_p90(cpu[step])}\n")


if __name__ == "__main__":
    main()
