"""Authentication that refuses the demonstration accounts in production."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.http import HttpRequest


class JobgrantBackend(ModelBackend):
    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        if settings.PRODUCTION and (username or "").startswith("demo-"):
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
