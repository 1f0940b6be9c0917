"""E-mailed links, made one way: a random token goes in the link, only its digest is stored, and
the row is found again by the digest of the token the link brings back. `page_link` writes the
address a message shows, in its recipient's language.

A copy of the database (a backup, a replica, a leaked dump) holds no working link: the token is
in the message only. Each row that a link opens keeps its `digest` (unique), its expiry and what
makes it single-use; the actions that own the row check those. `absolute_url` turns the link's
path into the address the message shows.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import TypeVar

from django.conf import settings
from django.db.models import Model, QuerySet
from django.urls import reverse
from django.utils import translation

TOKEN_BYTES = 32  # 256 bits: not to be guessed, even by many tries at once

M = TypeVar("M", bound=Model)


def new_token(*, as_hex: bool = False) -> str:
    """A fresh token for a link: URL-safe Base64, or hexadecimal digits (the participant's and
    the trainee's links, whose addresses have always been in hexadecimal)."""
    return secrets.token_hex(TOKEN_BYTES) if as_hex else secrets.token_urlsafe(TOKEN_BYTES)


def digest(token: str) -> str:
    """What is stored of a token: its SHA-256, in hexadecimal."""
    return hashlib.sha256(token.encode()).hexdigest()


def by_token(rows: QuerySet[M], token: str) -> QuerySet[M]:
    """The row among `rows` whose stored digest is the token's (none if no row has it)."""
    return rows.filter(digest=digest(token))


def page_link(route: str, language: str, *args: object, **kwargs: object) -> str:
    """The address of a page (`route`, "web:…") in the recipient's language, for a message."""
    with translation.override(language):
        path = reverse(route, args=args or None, kwargs=kwargs or None)
    return absolute_url(path)


def absolute_url(path: str) -> str:
    """The address of `path` ("/en/applications/3/") on the service, for links in messages."""
    return settings.JOBGRANT_BASE_URL.rstrip("/") + "/" + path.lstrip("/")
