"""Benchmark of `jobgrant replay`: a closed intake of 10,000 applications replayed under another
policy (service/outcomes/replay.py).

    python bench/replay.py [--files 10000] [--runs 3] [--policy cjg-2014] [--database URL]

It makes a fresh database (SQLite in a temporary directory, or --database, e.g. a PostgreSQL URL
of an empty database) with the demonstration data, then writes a closed Ontario intake of
--files submitted applications in bulk (one or two trainees each, tuitions from $1,000 to
$20,000, the two demonstration employers, one file a day; the set-up is not timed), and replays
it --runs times. It prints the median wall seconds and CPU seconds of the replay (the figures
and the CSV), the files per second, and the load average.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any


def _body(number: int, start: dt.date) -> dict[str, Any]:
    trainees = 1 + number % 2
    tuition = 1000 + (number * 7919) % 19001
    return {
        "jurisdiction": "ON",
        "region": "3550",
        "employers": [{"id": "acme", "business_number": "100000009"}],
        "training": {
            "setting": "off-site",
            "start_date": start.isoformat(),
            "end_date": (start + dt.timedelta(days=60)).isoformat(),
            "hours": 120,
            "provider": {"name": "Mohawk College", "third_party": True},
        },
        "trainees": [
            {
                "employer_id": "acme",
                "status": "new-hire" if (number + i) % 3 == 0 else "existing-employee",
                "costs": {
                    "tuition": f"{tuition}.00",
                    "student_fees": "0.00",
                    "materials": "0.00",
                    "exam_fees": "0.00",
                },
            }
            for i in range(trainees)
        ],
    }


def _intake(files: int) -> int:
    """A closed intake of `files` submitted applications, written in bulk; its id."""
    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.models.applications import (
        Application,
        ApplicationEmployer,
        Intake,
        IntakeState,
        Program,
        State,
    )
    from jobgrant.service.registry.models import Employer

    program = Program.objects.filter(jurisdiction="ON").order_by("-fiscal_year").first()
    assert program is not None, "the demonstration data has Ontario's program"
    stream = program.streams.order_by("id").first()
    first_day = dt.date(int(program.fiscal_year[:4]), 4, 1)
    intake = Intake.objects.create(
        stream=stream,
        name_en="Benchmark",
        name_fr="Banc d'essai",
        opens_on=first_day,
        closes_on=first_day + dt.timedelta(days=300),
        state=IntakeState.CLOSED,
    )
    user = User.objects.get(username="demo-employer")
    employer = Employer.objects.get(name="Acme Precision Machining")
    rows = []
    for number in range(files):
        received = first_day + dt.timedelta(days=number % 280)
        body = _body(number, received + dt.timedelta(days=30))
        tuition = sum(int(t["costs"]["tuition"][:-3]) for t in body["trainees"])
        third = tuition * 100 // 3
        rows.append(
            Application(
                stream=stream,
                intake=intake,
                state=State.SUBMITTED,
                jurisdiction="ON",
                fiscal_year=program.fiscal_year,
                delivery=program.delivery,
                created_by=user,
                received_on=received,
                request=body,
                policy=program.policy,
                policy_version="bench",
                quote={},
                explanation=[],
                eligible=True,
                federal_cents=third,
                provincial_cents=third,
                employer_cents=tuition * 100 - 2 * third,
            )
        )
    made = Application.objects.bulk_create(rows, batch_size=2000)
    ApplicationEmployer.objects.bulk_create(
        [
            ApplicationEmployer(
                application=a,
                employer=employer,
                reference="acme",
                position=0,
                government_cents=a.federal_cents + a.provincial_cents,
                employees=employer.employees,
            )
            for a in made
        ],
        batch_size=2000,
    )
    return intake.pk


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--policy", default="cjg-2014")
    parser.add_argument("--database", default="")
    options = parser.parse_args()
    var = Path(tempfile.mkdtemp(prefix="jobgrant-bench-replay-"))
    os.environ["JOBGRANT_VAR_DIR"] = str(var)
    os.environ["JOBGRANT_DATABASE_URL"] = options.database or f"sqlite:///{var / 'bench.sqlite3'}"
    os.environ.setdefault("JOBGRANT_ENV", "development")
    from jobgrant.service.commands import prepare_database

    prepare_database(with_demo=True)
    from jobgrant.service.outcomes import replay_output
    from jobgrant.service.outcomes.replay import replay

    intake = _intake(options.files)
    walls, cpus = [], []
    for _ in range(options.runs):
        began, began_cpu = time.perf_counter(), time.process_time()
        result = replay(intake, options.policy)
        replay_output.csv_text(result, "en")
        walls.append(time.perf_counter() - began)
        cpus.append(time.process_time() - began_cpu)
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    funded = len(result.funded("now"))
    print(f"replay of {options.files:,} files under {options.policy} ({funded:,} funded now)")
    print(f"  median of {options.runs}: {wall:.2f} s wall, {cpu:.2f} s CPU")
    print(f"  {options.files / wall:,.0f} files per second")
    print(f"  load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
