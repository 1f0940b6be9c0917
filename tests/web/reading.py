"""What the page tests share: a client signed in as someone, and a page read as text."""

from __future__ import annotations

import html
from typing import Any

from django.test import Client
from tests.personas import Persona

from jobgrant.service.accounts.models import User


def signed_in(who: str | Persona) -> Client:
    """A client signed in as a user (a username or a persona), past the second factor."""
    username = who if isinstance(who, str) else who.username
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


def text(response: Any) -> str:
    """The page as text, with French's no-break and narrow no-break spaces written as spaces."""
    return html.unescape(response.content.decode()).replace("\u00a0", " ").replace("\u202f", " ")
