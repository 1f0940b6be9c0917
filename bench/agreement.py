"""Benchmark of what an agreement costs: rendering and hashing a version (inside every
approval's transaction), and drawing its PDF (each download).

    python bench/agreement.py [--rounds 50]

It prepares a fresh SQLite database in a temporary directory (migrated, demonstration data),
approves one application as the demonstration officers do, then renders that version's
documents in both languages and hashes them --rounds times, and draws its PDF in each language
--rounds / 5 times, printing the median and the 90th percentile of each, in milliseconds, with
the machine's load average (other work changes the figures).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _median_p90(samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return f"median {statistics.median(ordered) * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=50)
    rounds = parser.parse_args().rounds
    var = Path(tempfile.mkdtemp(prefix="jobgrant-bench-agreement-"))
    os.environ["JOBGRANT_VAR_DIR"] = str(var)
    os.environ["JOBGRANT_DATABASE_URL"] = f"sqlite:///{var / 'bench.sqlite3'}"
    os.environ.setdefault("JOBGRANT_ENV", "development")
    from jobgrant.service.commands import prepare_database

    prepare_database(with_demo=True)
    from django.utils import timezone

    from jobgrant.service.accounts.models import User
    from jobgrant.service.api.openapi import example_application
    from jobgrant.service.grants.agreements.document import (
        content_hash,
        employers_of,
        render_document,
    )
    from jobgrant.service.grants.agreements.pdf import agreement_pdf
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.models.agreements import AgreementVersion

    employer = User.objects.get(username="demo-employer")
    application = actions.create_application(employer, example_application(timezone.localdate()))
    actions.submit_application(employer, application)
    actions.recommend_application(User.objects.get(username="demo-officer-on-1"), application)
    actions.approve_application(User.objects.get(username="demo-officer-on-2"), application)
    version = AgreementVersion.objects.get(agreement__application=application)
    renders = []
    for _ in range(rounds):
        began = time.perf_counter()
        links = employers_of(version)
        content_hash(render_document(version, "en", links), render_document(version, "fr", links))
        renders.append(time.perf_counter() - began)
    pdfs = []
    for _ in range(max(1, rounds // 5)):
        for language in ("en", "fr"):
            began = time.perf_counter()
            agreement_pdf(version, language)
            pdfs.append(time.perf_counter() - began)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    sys.stdout.write(f"load average {load}\n")
    sys.stdout.write(f"render and hash a version (both languages): {_median_p90(renders)}\n")
    sys.stdout.write(f"draw its PDF (one language): {_median_p90(pdfs)}\n")


if __name__ == "__main__":
    main()
