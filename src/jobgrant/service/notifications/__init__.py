"""Messages to people: an outbox written in the transaction of its cause, delivered by the worker.

outbox.py            enqueue() and absolute_url(): what the actions call
delivery_actions.py  claim a due row, send it through Django's email backend, retry with back-off
worker.py            `jobgrant worker`: django-tasks' database worker, the sweep, periodic jobs
"""
