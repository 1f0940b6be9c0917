"""Rate limits (django-ratelimit, counted in the shared cache) and the caller's address.

Each limit has a name and a rate ("20/m") in settings.JOBGRANT_RATES (docs/guide/accounts.md,
"Lockout, rate limits, sessions and tokens"). The pages answer a limited request with the 429 page,
the API with 429 problem+json; both say when to try again. The address is REMOTE_ADDR, or behind
JOBGRANT_CLIENT_IP_PROXIES proxies the address the outermost of them saw (X-Forwarded-For, read from
the right: the entries a client writes itself come first and are never believed).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django_ratelimit.core import get_usage

from jobgrant.service.observability.metrics import RATE_LIMITED

log = logging.getLogger("jobgrant.security")


def client_ip(request: HttpRequest) -> str:
    proxies = settings.JOBGRANT_CLIENT_IP_PROXIES
    if proxies > 0:
        hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        hops = [hop for hop in hops if hop]
        if len(hops) >= proxies:
            return str(hops[-proxies])
    return str(request.META.get("REMOTE_ADDR", ""))


def _by_address(_group: str, request: HttpRequest) -> str:
    return client_ip(request)


def _by_user(_group: str, request: HttpRequest) -> str:
    user = getattr(request, "user", None)
    return f"user:{user.pk}" if user is not None and user.is_authenticated else client_ip(request)


KEYS = {"address": _by_address, "user": _by_user}


def exceeded(request: HttpRequest, name: str, by: str = "address", value: str = "") -> int:
    """Count this request against limit `name` (per address, per user, or per `value` when
    given, e.g. an email address); 0 while under it, else the seconds until it opens again."""
    key: Any = (lambda _group, _request: value) if value else KEYS[by]
    usage = get_usage(
        request,
        group=f"jobgrant.{name}.{'value' if value else by}",
        key=key,
        rate=settings.JOBGRANT_RATES[name],
        increment=True,
    )
    if usage is None or not usage["should_limit"]:
        return 0
    log.warning("rate limit %s reached (%s)", name, by if not value else "per value")
    RATE_LIMITED.labels(name).inc()
    return max(1, int(usage["time_left"]))
