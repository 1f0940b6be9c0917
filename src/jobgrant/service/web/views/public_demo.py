"""The demonstration's mailbox: the outbox's messages, for `make run` (JOBGRANT_DEMO_MAIL=1).

`make run` delivers messages to files in var/mail/ instead of an SMTP server; this page shows
what was sent (and what waits or failed), so a demonstration can follow an application's
messages in both languages. It answers 404 unless the demonstration setting is on, which
production refuses (settings.py).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from jobgrant.service.notifications.models import Message

SHOWN = 100


@require_GET
@login_required
def demo_mail(request: HttpRequest) -> HttpResponse:
    if not settings.JOBGRANT_DEMO_MAIL:
        raise Http404
    messages = list(Message.objects.order_by("-created_at", "-pk")[:SHOWN])
    return render(
        request,
        "web/demo_mail.html",
        {"title": _("Messages sent (demonstration)"), "messages": messages, "shown": SHOWN},
    )
