"""A password validator against a list of passwords known from breaches.

The list is zxcvbn's "passwords" frequency list (30,000 passwords ranked by how often they
appeared in Mark Burnett's 10 million passwords leaked from breaches), shipped inside the
zxcvbn package from PyPI: nothing is fetched at run time. Django's CommonPasswordValidator
checks its own 20,000 (also from breaches); both run (settings.AUTH_PASSWORD_VALIDATORS).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from jobgrant.service.accounts.demo_credentials import DEMO_PASSWORD


@cache
def breached_passwords() -> frozenset[str]:
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    return frozenset({*FREQUENCY_LISTS["passwords"], DEMO_PASSWORD})


def is_breached(password: str) -> bool:
    """Also when only letter case or surrounding spaces differ from a listed password."""
    return password.strip().lower() in breached_passwords()


class BreachedPasswordValidator:
    def validate(self, password: str, user: Any = None) -> None:
        if is_breached(password):
            raise ValidationError(
                _("This password is on a list of passwords leaked in breaches: choose another."),
                code="password_breached",
            )

    def get_help_text(self) -> str:
        return _("Your password cannot be one that is known from a breach.")
