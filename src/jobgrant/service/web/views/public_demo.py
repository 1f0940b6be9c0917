"""The demonstration's mailbox: the outbox's messages, for `make run` (JOBGRANT_DEMO_MAIL=1).

`make run` delivers messages to files in var/mail/ instead of an SMTP server; this page shows
what was sent (and what waits or failed), so a demonstration can follow an application's
messages in both languages. It answers 404 unless the demonstration setting is on, which
production refuses (settings.py).

Each person sees their own messages only: a signed-in person those sent to their address and
those about the files they may see (the trainees' invitations and follow-ups, whose links the
demonstration follows); someone who has just registered, and cannot sign in before confirming
their address, those sent to the address they registered with in this browser session.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.completion import FollowUp
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.notifications.models import Message

SHOWN = 100
#: The addresses registered in this browser session (the registration page adds them).
REGISTERED_KEY = "jobgrant.demo_mail.registered"


def remember_registered(request: HttpRequest, address: str, since: dt.datetime) -> None:
    """Let this browser session read the messages sent to `address` from now on (the
    demonstration only: an address someone else already uses shows none of the mail sent
    before `since`, the moment the registration was sent)."""
    if not settings.JOBGRANT_DEMO_MAIL or not address:
        return
    known = [pair for pair in request.session.get(REGISTERED_KEY, []) if pair[0] != address]
    pair = [address.strip().lower(), since.isoformat()]
    request.session[REGISTERED_KEY] = [*known, pair][-5:]


def registered_addresses(request: HttpRequest) -> list[tuple[str, str]]:
    return [(str(a), str(since)) for a, since in request.session.get(REGISTERED_KEY, [])]


def _ids(found: QuerySet[Any]) -> list[str]:
    return [str(pk) for pk in found.values_list("pk", flat=True)]


def _theirs(request: HttpRequest) -> QuerySet[Message] | None:
    """The messages this visitor may read, or None when they may read none."""
    addresses = registered_addresses(request)
    mine = Q(pk__in=[])
    for address, since in addresses:
        mine |= Q(recipient__iexact=address, created_at__gte=dt.datetime.fromisoformat(since))
    user = request.user
    if isinstance(user, User) and user.is_authenticated:
        files = access.visible_applications(user)
        mine |= Q(recipient__iexact=user.email) if user.email else Q(pk__in=[])
        mine |= Q(subject_type="grants.application", subject_id__in=_ids(files))
        participants = Participant.objects.filter(application__in=files)
        mine |= Q(subject_type="grants.participant", subject_id__in=_ids(participants))
        follow_ups = FollowUp.objects.filter(application__in=files)
        mine |= Q(subject_type="grants.followup", subject_id__in=_ids(follow_ups))
    elif not addresses:
        return None
    return Message.objects.filter(mine)


@require_GET
def demo_mail(request: HttpRequest) -> HttpResponse:
    if not settings.JOBGRANT_DEMO_MAIL:
        raise Http404
    found = _theirs(request)
    to = request.GET.get("to", "").strip().lower()
    if found is not None and to:
        found = found.filter(recipient__iexact=to)
    messages = [] if found is None else list(found.order_by("-created_at", "-pk")[:SHOWN])
    return render(
        request,
        "web/demo_mail.html",
        {
            "title": _("Messages sent (demonstration)"),
            "messages": messages,
            "shown": SHOWN,
            "nobody": found is None,
            "to": to,
        },
    )
