"""A batch cut into consecutive batches of whole applications, as views of its columns: what
evaluating a whole population a chunk at a time (evaluate.py) and the population's passes
(population.py) both walk over."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from jobgrant.rules.batch import Applications, Employers, QuoteBatch, Trainees

#: Applications per chunk: big enough that the per-call work (the keys present, the rule
#: columns looked up) is a few percent, small enough that a chunk's columns stay in cache and
#: its working set is small (about 9 MB at 16,384 one-trainee applications, 14 MB at 32,768,
#: for the same time per application).
CHUNK_APPLICATIONS = 1 << 14


def chunks(batch: QuoteBatch, applications: int = CHUNK_APPLICATIONS) -> Iterator[QuoteBatch]:
    """The batch as consecutive batches of at most `applications` applications: views of its
    columns, with the offsets and row numbers made relative to each chunk."""
    if applications < 1:
        raise ValueError("a chunk has at least one application")
    n = len(batch.applications)
    for start in range(0, n, applications):
        yield _applications_slice(batch, start, min(start + applications, n))


def _applications_slice(batch: QuoteBatch, start: int, stop: int) -> QuoteBatch:
    a, e, t = batch.applications, batch.employers, batch.trainees
    e0, e1 = int(a.employer_offsets[start]), int(a.employer_offsets[stop])
    t0, t1 = int(e.trainee_offsets[e0]), int(e.trainee_offsets[e1])
    rows, employers, trainees = slice(start, stop), slice(e0, e1), slice(t0, t1)
    return QuoteBatch(
        Applications(
            jurisdiction=a.jurisdiction[rows],
            region=a.region[rows],
            delivery=a.delivery[rows],
            application_date=a.application_date[rows],
            start_date=a.start_date[rows],
            end_date=a.end_date[rows],
            hours=a.hours[rows],
            third_party=a.third_party[rows],
            setting=a.setting[rows],
            employer_offsets=a.employer_offsets[start : stop + 1] - e0,
        ),
        Employers(
            employees=e.employees[employers],
            approved_this_fiscal_year=e.approved_this_fiscal_year[employers],
            trainee_offsets=e.trainee_offsets[e0 : e1 + 1] - t0,
            application=(e.application[employers] - start).astype(np.int32),
        ),
        Trainees(
            tuition=t.tuition[trainees],
            student_fees=t.student_fees[trainees],
            materials=t.materials[trainees],
            exam_fees=t.exam_fees[trainees],
            wages_in_kind=t.wages_in_kind[trainees],
            status=t.status[trainees],
            employer=(t.employer[trainees] - e0).astype(np.int32),
            application=(t.application[trainees] - start).astype(np.int32),
        ),
    )
