"""Load the demonstration history once: `seed_history`."""


from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from jobgrant.service.audit.chain import record
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.demo import DemoRefused
from jobgrant.service.demo_outcomes.cast import assemble, open_programs
from jobgrant.service.demo_outcomes.plan import load_rates, make_plan
from jobgrant.service.demo_outcomes.walk import walk

LOADED = "demo.history_loaded"


@dataclass(frozen=True)
class Loaded:
    seed: int
    files: int
    trainees: int
    steps: int
    seconds: float
    cpu_seconds: float


def history_loaded() -> bool:
    return AuditEntry.objects.filter(action=LOADED).exists()


def seed_history(
    seed: int | None = None, progress: Callable[[str], None] = lambda _: None
) -> Loaded | None:
    """Load the history once (all or nothing, in one transaction); None when it is there."""
    if settings.PRODUCTION:
        raise DemoRefused("demonstration data is refused when JOBGRANT_ENV=production")
    if history_loaded():
        return None
    started, cpu = time.perf_counter(), time.process_time()
    settings_file, _ = load_rates()
    plan = make_plan(seed)
    federal_direct = set(settings_file["history"]["federal_direct"])
    with transaction.atomic():
        cast = assemble(plan, federal_direct)
        open_programs(plan, federal_direct)
        steps = walk(plan, cast, progress)
        summary = {"seed": plan.seed, "files": len(plan.files), "trainees": plan.trainees}
        record("demo-seed", LOADED, "demo", plan.seed, summary)
    return Loaded(
        plan.seed,
        len(plan.files),
        plan.trainees,
        steps,
        time.perf_counter() - started,
        time.process_time() - cpu,
    )
