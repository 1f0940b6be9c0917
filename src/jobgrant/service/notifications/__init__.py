"""Messages to people: an outbox written in the transaction of its cause, delivered by the worker.

outbox.py            enqueue(): what the actions call (links in messages: service/links.py)
delivery_actions.py  claim a due row, send it (SMTP or GC Notify), retry with back-off
notify_delivery.py   the GC Notify delivery (JOBGRANT_DELIVERY=notify): reference, lookup, 429s
notify_config.py     its JOBGRANT_NOTIFY_* settings, refused at start-up when bad
pacing.py            each worker's share of GC Notify's rate limit
failures.py          what a failed attempt means: permanent or not, what the row records
worker.py            `jobgrant worker`: django-tasks' database worker, the sweep, periodic jobs
"""
