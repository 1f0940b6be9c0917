"""Authentication that refuses the demonstration credentials in production."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.http import HttpRequest

from jobgrant.service.accounts.demo_credentials import is_demo_password


class JobgrantBackend(ModelBackend):
    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        # In production neither a demo-* account nor the published password opens anything,
        # even on an account someone gave that password by hand.
        if settings.PRODUCTION and (
            (username or "").startswith("demo-") or is_demo_password(password)
        ):
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
