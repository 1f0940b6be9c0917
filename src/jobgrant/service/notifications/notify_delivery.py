"""Delivering an outbox row through GC Notify's API (JOBGRANT_DELIVERY=notify), with the Notify
API client from PyPI (notifications-python-client), whose API GC Notify implements.

Every attempt sends the row's stable reference (`outbox-ID@host`, its Message-ID without the
brackets). Notify does not refuse a second notification with the same reference, so an attempt
after the first (a retry, or a row whose worker died and whose lease ran out) first asks Notify
for that reference (GET /v2/notifications?reference=) and, if Notify has it, records the row
sent without sending it again. A send whose outcome is unknown (a 5xx, a timeout: Notify may have
accepted it) is not retried before JOBGRANT_NOTIFY_LISTING_LAG_SECONDS, time for the accepted
notification to be listed. What is left (ADR 0025): a notification that Notify accepted but does
not list yet when the retry asks.

Failures: 400 and 403 are permanent (a bad request, a bad key: repeating it cannot succeed);
429 waits for its Retry-After and pauses this process's requests; 5xx, timeouts and broken
connections are transient.
"""

from __future__ import annotations

import datetime as dt
import logging
from email.utils import parsedate_to_datetime
from typing import Any

from notifications_python_client.errors import APIError
from notifications_python_client.notifications import NotificationsAPIClient
from requests import Response

from jobgrant.service.notifications import notify_config
from jobgrant.service.notifications.failures import Failure
from jobgrant.service.notifications.models import Message
from jobgrant.service.notifications.pacing import Pace, PausedError

log = logging.getLogger("jobgrant.notifications")
PERMANENT = frozenset({400, 403})
pace = Pace()  # this process's share of GC Notify's rate limit
_clients: dict[tuple[str, str, float], Any] = {}
# The client ships py.typed but its functions carry no annotations: it is used through Any.
_Client: Any = NotificationsAPIClient


def reference_for(message: Message) -> str:
    return message.message_id.strip("<>")


def send(message: Message) -> None:
    """Send the row to GC Notify, unless an earlier attempt already reached it."""
    config = notify_config.current()
    client = _client(config)
    reference = reference_for(message)
    if message.attempts > 1 and _already_accepted(client, config, reference):
        log.info("message %s: GC Notify already has %s, not sent again", message.pk, reference)
        return
    _wait_turn(config)
    client.send_email_notification(
        email_address=message.recipient,
        template_id=config.template_for(message.kind, message.language),
        personalisation={"subject": message.subject_line, "body": message.body},
        reference=reference,
    )


def _wait_turn(config: notify_config.NotifyConfig) -> None:
    """Wait for this process's turn, or give the row back if that is further off (a 429's
    pause): a worker never sleeps through its row's lease, nor long after a SIGTERM."""
    pace.wait_turn(config.seconds_between_requests, most=config.longest_wait)


def _already_accepted(client: Any, config: notify_config.NotifyConfig, reference: str) -> bool:
    _wait_turn(config)
    found: dict[str, Any] = client.get_all_notifications(template_type="email", reference=reference)
    return any(n.get("reference") == reference for n in found.get("notifications", []))


def _client(config: notify_config.NotifyConfig) -> Any:
    """One client (one HTTP session, its connections kept alive) per process and settings."""
    key = (config.api_key, config.base_url, config.timeout)
    if key not in _clients:
        _clients.clear()
        _clients[key] = _Client(config.api_key, base_url=config.base_url, timeout=config.timeout)
    return _clients[key]


def failure(error: Exception) -> Failure | None:
    """What a GC Notify error means for the row (None: not a GC Notify error). A 429 also
    pauses every request of this process for its Retry-After."""
    if isinstance(error, PausedError):  # nothing was sent: wait out the pause
        return Failure(False, "Notify paused", error.seconds)
    if not isinstance(error, APIError):
        return None
    response: Response | None = error.response
    if response is None:  # no answer at all: a timeout, a connection refused or broken
        cause = type(error.__cause__).__name__ if error.__cause__ else "no answer"
        lag = notify_config.current().listing_lag
        return Failure(False, f"Notify {cause}", lag)
    status = response.status_code
    described = f"Notify {status}"
    if status in PERMANENT:
        return Failure(True, described)
    if status == 429:
        wait = retry_after(response)
        pace.pause(wait)
        return Failure(False, described, wait)
    unknown_outcome = status >= 500 or status < 300  # Notify may have accepted it
    lag = notify_config.current().listing_lag if unknown_outcome else 0.0
    return Failure(False, described, lag)


def retry_after(response: Response) -> float:
    """Seconds from a Retry-After header (seconds or an HTTP date); 0 when there is none."""
    value = response.headers.get("Retry-After", "").strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 0.0
    return max((when - dt.datetime.now(dt.UTC)).total_seconds(), 0.0)
