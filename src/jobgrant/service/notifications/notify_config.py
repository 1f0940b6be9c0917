"""GC Notify's settings, read from JOBGRANT_NOTIFY_* and refused, naming the variable, when bad.

Checked when Django starts (NotificationsConfig.ready, with JOBGRANT_DELIVERY=notify), so a worker
or a server with a missing API key or template id never starts; and again, from the cache, by
outbox.enqueue, so a message that could not be sent is never queued.

Templates: one generic GC Notify email template per language, whose subject is `((subject))` and
whose body is `((body))`: the outbox already holds each message rendered in its recipient's
language, so every kind goes through the same two templates, and a new kind needs no change on
GC Notify. A kind may have its own template in a language (`"<kind>.<en|fr>": id`), with the same
two placeholders (another sender name or reply-to address, say). ADR 0025.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from jobgrant.service.notifications.kinds import LANGUAGES, known_kinds

PLACEHOLDERS = ("subject", "body")  # what every template's personalisation carries
# GC Notify's API key: the key's name, the service id and the secret, joined by dashes.
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_API_KEY = re.compile(rf"^(?P<name>.+)-(?P<service>{_UUID})-(?P<secret>{_UUID})$")
_SETTINGS = (
    "JOBGRANT_NOTIFY_BASE_URL",
    "JOBGRANT_NOTIFY_API_KEY",
    "JOBGRANT_NOTIFY_TEMPLATES",
    "JOBGRANT_NOTIFY_TIMEOUT_SECONDS",
    "JOBGRANT_NOTIFY_RATE_PER_MINUTE",
    "JOBGRANT_NOTIFY_WORKERS",
    "JOBGRANT_NOTIFY_LISTING_LAG_SECONDS",
    "JOBGRANT_MESSAGE_LEASE_SECONDS",
)


@dataclass(frozen=True)
class NotifyConfig:
    base_url: str
    api_key: str
    service_id: str
    templates: dict[str, str]  # "en", "fr" and "<kind>.<language>" → template id
    timeout: float
    rate_per_minute: float
    workers: int
    listing_lag: float

    def template_for(self, kind: str, language: str) -> str:
        return self.templates.get(f"{kind}.{language}") or self.templates[language]

    @property
    def seconds_between_requests(self) -> float:
        """This process's share of the service's limit, as the least gap between two requests."""
        return 60.0 * self.workers / self.rate_per_minute

    @property
    def longest_wait(self) -> float:
        """The longest a request waits for its turn; a longer pause (a 429's Retry-After) gives
        the row back to the queue instead (pacing.PausedError)."""
        return max(0.5, 2 * self.seconds_between_requests)


def current() -> NotifyConfig:
    """The configuration in force (parsed once per distinct set of values)."""
    return _parse(*(str(getattr(settings, name)) for name in _SETTINGS))


def check_kind(kind: str, language: str) -> str:
    """The template a message of this kind and language goes through (refused at enqueue, with
    the variable named, when the configuration is bad: it is never found out at send time)."""
    return current().template_for(kind, language)


@cache
def _parse(
    base_url: str,
    api_key: str,
    templates: str,
    timeout: str,
    rate: str,
    workers: str,
    lag: str,
    lease: str,
) -> NotifyConfig:
    if not re.match(r"^https?://[^/\s]+", base_url):
        raise ImproperlyConfigured("JOBGRANT_NOTIFY_BASE_URL must be an http(s):// address")
    match = _API_KEY.match(api_key.strip())
    if match is None:
        raise ImproperlyConfigured(
            "JOBGRANT_NOTIFY_API_KEY must be GC Notify's key: name-serviceid-secret"
            " (the service id and the secret are UUIDs)"
        )
    config = NotifyConfig(
        base_url=base_url.rstrip("/"),
        api_key=api_key.strip(),
        service_id=match["service"],
        templates=_templates(templates),
        timeout=_positive("JOBGRANT_NOTIFY_TIMEOUT_SECONDS", timeout),
        rate_per_minute=_positive("JOBGRANT_NOTIFY_RATE_PER_MINUTE", rate),
        workers=int(_positive("JOBGRANT_NOTIFY_WORKERS", workers, whole=True)),
        listing_lag=_positive("JOBGRANT_NOTIFY_LISTING_LAG_SECONDS", lag, zero=True),
    )
    _check_lease(config, float(lease))
    return config


def _positive(name: str, value: str, *, whole: bool = False, zero: bool = False) -> float:
    try:
        number = int(value) if whole else float(value)
    except ValueError:
        number = -1
    if number < 0 or (number == 0 and not zero):
        kind = "a whole number" if whole else "a number"
        raise ImproperlyConfigured(f"{name} must be {kind} above 0, not {value!r}")
    return float(number)


def _check_lease(config: NotifyConfig, lease: float) -> None:
    """A live worker must never lose its row: the lease outlasts two waits for a turn, the
    lookup and the send (requests' timeout bounds the connection and each read: two each)."""
    needed = config.longest_wait * 2 + config.timeout * 4
    if lease <= needed:
        raise ImproperlyConfigured(
            f"JOBGRANT_MESSAGE_LEASE_SECONDS ({lease:g}) must be longer than {needed:g} s with "
            "JOBGRANT_NOTIFY_TIMEOUT_SECONDS: lower the timeout or lengthen the lease"
        )


def _templates(raw: str) -> dict[str, str]:
    text = raw.strip()
    if text.startswith("@"):
        path = Path(text[1:])
        if not path.is_file():
            raise ImproperlyConfigured(f"JOBGRANT_NOTIFY_TEMPLATES: no file {path}")
        text = path.read_text()
    try:
        mapping: Any = json.loads(text) if text else None
    except json.JSONDecodeError as error:
        raise ImproperlyConfigured(f"JOBGRANT_NOTIFY_TEMPLATES is not JSON: {error}") from None
    if not isinstance(mapping, dict):
        raise ImproperlyConfigured(
            'JOBGRANT_NOTIFY_TEMPLATES must be a JSON object: {"en": id, "fr": id, ...}'
        )
    for language in LANGUAGES:
        if language not in mapping:
            raise ImproperlyConfigured(
                f"JOBGRANT_NOTIFY_TEMPLATES has no {language!r} template (the one every kind "
                f"in that language goes through unless it has its own)"
            )
    return {key: _template_id(key, value) for key, value in mapping.items()}


def _template_id(key: str, value: object) -> str:
    kind, _, language = key.rpartition(".")
    if key not in LANGUAGES and (kind not in known_kinds() or language not in LANGUAGES):
        raise ImproperlyConfigured(
            f"JOBGRANT_NOTIFY_TEMPLATES: {key!r} is neither a language (en, fr) nor "
            f"<kind>.<language> for a kind with templates"
        )
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise ImproperlyConfigured(
            f"JOBGRANT_NOTIFY_TEMPLATES[{key!r}] must be a GC Notify template id (a UUID)"
        ) from None
