"""Messages about a person's own account: the password-reset link, through the outbox.

The link carries Django's password-reset token (settings.PASSWORD_RESET_TIMEOUT: an hour), which
stops working once the password is changed: it opens one reset, once. Asking for a reset says
the same whether or not the address is known (the page cannot be used to find accounts).
"""

from __future__ import annotations

import time

from django.contrib.auth.tokens import default_token_generator
from django.db import transaction
from django.urls import reverse
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.chain import record
from jobgrant.service.links import absolute_url
from jobgrant.service.notifications.outbox import enqueue

RESET_MINUTES = 60


def reset_link(user: User, language: str) -> str:
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    with translation.override(language):
        path = reverse("web:password-reset-confirm", kwargs={"uidb64": uid, "token": token})
    return absolute_url(path)


def send_password_reset(email: str, language: str) -> bool:
    """Queue the reset link to the active account with this email, if there is one (True)."""
    user = User.objects.filter(email__iexact=email.strip(), is_active=True).first()
    if user is None or not user.has_usable_password():
        return False
    with transaction.atomic():
        enqueue(
            "password_reset",
            subject=user,
            milestone=f"reset-{time.time_ns()}",  # every request its own message
            to=user.email,
            language=language,
            context={
                "username": user.username,
                "link": reset_link(user, language),
                "minutes": RESET_MINUTES,
            },
        )
        record(
            user.username, "user.password_reset_requested", "user", user.pk, {"language": language}
        )
    return True
