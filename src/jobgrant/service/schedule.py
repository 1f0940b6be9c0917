"""The periodic jobs `jobgrant worker` runs, each at its interval.

Each function takes no argument, is idempotent and is safe to run in two workers at once (row
locks and the state machine decide; a job that finds nothing to do does nothing). An exception in
one job is logged and the worker goes on with the others.
"""

from __future__ import annotations

PERIODIC_JOBS: list[tuple[str, str, int]] = [
    # (name, "dotted.module:function", every_seconds)
    ("prune_task_results", "jobgrant.service.notifications.worker:prune_task_results", 86_400),
    # Empties the bodies of messages sent more than JOBGRANT_MESSAGE_BODY_DAYS ago.
    (
        "prune_sent_bodies",
        "jobgrant.service.notifications.delivery_actions:prune_sent_bodies",
        3600,
    ),
    (
        "participant_reminders",
        "jobgrant.service.grants.participants.reminders:send_participant_reminders",
        3600,
    ),
    # Renders the documents of the latest agreement versions nobody has read yet (ADR 0040).
    ("render_agreements", "jobgrant.service.grants.agreements.actions:render_documents", 30),
    ("expire_offers", "jobgrant.service.grants.agreements.actions:expire_offers", 60),
    ("offers_expiring", "jobgrant.service.grants.agreements.actions:remind_expiring_offers", 600),
    (
        "send_due_follow_ups",
        "jobgrant.service.grants.completion.follow_ups:send_due_follow_ups",
        3600,
    ),
    ("remind_follow_ups", "jobgrant.service.grants.completion.follow_ups:remind_follow_ups", 3600),
    ("lapse_follow_ups", "jobgrant.service.grants.completion.follow_ups:lapse_follow_ups", 3600),
    # Opens and closes the intakes at their dates; hands a ranked stream's closed ones to the
    # ranking (ADR 0048).
    ("intakes", "jobgrant.service.grants.intakes.actions:open_and_close_due", 600),
    # The net outcomes' comparison group: files refused for lack of budget join it, then are
    # asked at 3 and 12 months as the funded files are (grants/completion/comparison.py).
    (
        "enrol_comparison",
        "jobgrant.service.grants.completion.comparison:enrol_comparison_group",
        3600,
    ),
    ("send_comparison", "jobgrant.service.grants.completion.comparison:send_due_comparison", 3600),
    ("remind_comparison", "jobgrant.service.grants.completion.comparison:remind_comparison", 3600),
    ("lapse_comparison", "jobgrant.service.grants.completion.comparison:lapse_comparison", 3600),
    # Hands the KPI snapshots older than JOBGRANT_KPI_REFRESH_MINUTES to the worker's tasks.
    ("refresh_kpis", "jobgrant.service.outcomes.snapshot_actions:refresh_stale_snapshots", 60),
]
