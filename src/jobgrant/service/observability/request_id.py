"""The request id: one id for every line of one action, from the request to the delivery.

A request keeps the `X-Request-ID` its client (or the proxy) sent when it is a plain token (at
most 64 letters, digits, `-`, `_`, `.` or `:`; anything else could forge a log line), else gets
a new one; the answer carries it back in `X-Request-ID`. While the request runs, every log line
has it (`RequestIdFilter`), the outbox message it queues keeps it (`Message.request_id`), and so
does each audit entry it writes (`AuditEntry.request_id`). The worker binds a message's id while
it delivers it, and a new one for each periodic job it runs, so its lines and entries carry
theirs too.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.core.signals import request_finished
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse

HEADER = "X-Request-ID"
_META = "HTTP_X_REQUEST_ID"
_ACCEPTED = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_current: ContextVar[str] = ContextVar("jobgrant_request_id", default="")


def new_id() -> str:
    return uuid.uuid4().hex


def current() -> str:
    """The id of the action in hand ("" outside any)."""
    return _current.get()


def accepted(value: str) -> str | None:
    """`value` if it may be a request id as it is, else None."""
    return value if _ACCEPTED.fullmatch(value) else None


@contextmanager
def bound(value: str) -> Iterator[str]:
    """Make `value` the current id for the block (the worker's delivery, a periodic job)."""
    token = _current.set(value)
    try:
        yield value
    finally:
        _current.reset(token)


class RequestIdMiddleware:
    """First of the middleware: the id is bound before anything logs, and answered back."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        value = accepted(request.META.get(_META, "")) or new_id()
        request.request_id = value  # type: ignore[attr-defined]
        # Bound until the request is finished, not only while the middleware runs: Django logs
        # a 4xx or 5xx ("Not Found: …") after the middleware returned it.
        _current.set(value)
        response = self.get_response(request)
        response[HEADER] = value
        return response


@receiver(request_finished, dispatch_uid="jobgrant-request-id-cleared")
def _cleared(sender: Any, **_: Any) -> None:
    _current.set("")


class RequestIdFilter(logging.Filter):
    """Gives every record the current request id (`request_id`, "" outside any)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", ""):
            record.request_id = current()
        return True
